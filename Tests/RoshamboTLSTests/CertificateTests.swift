import Foundation
import NIOCore
import RoshamboTLS
import Testing

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

func certificateText(_ path: String) throws -> String {
  try runOpenSSL(["x509", "-in", path, "-noout", "-text"], stdin: "").stdout
}

func fileMode(_ path: String) throws -> Int {
  (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
}

@Suite("Certificates")
struct CertificateTests {
  @Test("certificates made through OpenSSL from Swift: a CA and a leaf with the right extensions")
  func swiftMadeCertificates() throws {
    let files = try DevelopmentCertificates.create(
      in: Fixtures.root + "/made", hosts: ["localhost", "127.0.0.1", "::1", "game.lan", "10.0.0.9"])
    let leaf = try certificateText(files.serverCertificate)
    #expect(leaf.contains("CA:FALSE"))
    #expect(leaf.contains("Digital Signature"))
    #expect(leaf.contains("TLS Web Server Authentication"))
    #expect(leaf.contains("prime256v1") || leaf.contains("P-256"))
    for name in ["DNS:localhost", "IP Address:127.0.0.1", "DNS:game.lan", "IP Address:10.0.0.9"] {
      #expect(leaf.contains(name), "missing \(name)")
    }
    #expect(try certificateText(files.caCertificate).contains("CA:TRUE"))
    let verify = try runOpenSSL(
      ["verify", "-CAfile", files.caCertificate, files.serverCertificate], stdin: "")
    #expect(verify.status == 0, "\(verify.stderr)")
    #expect(try fileMode(files.serverKey) == 0o600)
    #expect(try fileMode(files.caKey) == 0o600)
  }

  @Test("scripts/gen-certs.sh makes certificates our TLS layer accepts")
  func generatedByScript() throws {
    let out = Fixtures.root + "/script"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      repositoryRoot + "/scripts/gen-certs.sh", "--out", out, "--host", "game.lan",
    ]
    process.standardOutput = Pipe()
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let files = DevelopmentCertificates.Files(directory: out)
    #expect(try certificateText(files.serverCertificate).contains("DNS:game.lan"))
    #expect(try fileMode(files.serverKey) == 0o600)
    let server = try TLSContext(
      .server(certificateChainFile: files.serverCertificate, privateKeyFile: files.serverKey))
    #expect(server.warnings.isEmpty)
    let client = try TLSContext(.client(trust: .caFile(files.caCertificate)))
    let pair = try EmbeddedPair(
      clientContext: client, serverContext: server, serverName: "game.lan")
    try pair.connect()
    #expect(pair.clientRecorder.handshakes.count == 1)
    #expect(pair.clientRecorder.errors.isEmpty)
  }

  @Test("the fingerprint matches openssl's, and pins are read in any usual form")
  func fingerprint() throws {
    let ours = try Fingerprint.sha256(ofPEMFile: Fixtures.game.serverCertificate)
    let theirs = try runOpenSSL(
      ["x509", "-in", Fixtures.game.serverCertificate, "-noout", "-fingerprint", "-sha256"],
      stdin: ""
    ).stdout.split(separator: "=").last!.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(ours == theirs)
    #expect(Fingerprint.normalize(ours.lowercased()) == ours)
    #expect(Fingerprint.normalize(ours.replacingOccurrences(of: ":", with: "")) == ours)
    #expect(Fingerprint.normalize("sha256:" + ours) == ours)
    #expect(Fingerprint.normalize("abc") == nil)
    #expect(Fingerprint.normalize(String(repeating: "zz", count: 32)) == nil)
  }

  @Test("a private key readable by others gets a warning")
  func keyPermissionWarning() throws {
    let files = try DevelopmentCertificates.create(
      in: Fixtures.root + "/loose", hosts: ["localhost"])
    chmod(files.serverKey, 0o644)
    let context = try TLSContext(
      .server(certificateChainFile: files.serverCertificate, privateKeyFile: files.serverKey))
    #expect(context.warnings.count == 1)
    #expect(context.warnings.first?.contains("chmod 600 \(files.serverKey)") == true)
  }

  @Test("bad files give errors that name the file and the problem")
  func badFiles() throws {
    let garbage = Fixtures.root + "/garbage.pem"
    try "not a certificate".write(toFile: garbage, atomically: true, encoding: .utf8)
    #expect {
      try TLSContext(
        .server(certificateChainFile: "/nonexistent/server.pem", privateKeyFile: garbage))
    } throws: { error in
      "\(error)".contains("cannot read the certificate chain file /nonexistent/server.pem")
    }
    #expect {
      try TLSContext(.server(certificateChainFile: garbage, privateKeyFile: garbage))
    } throws: { error in
      "\(error)".contains("\(garbage) is not a PEM certificate chain")
    }
    #expect {
      try TLSContext(
        .server(
          certificateChainFile: Fixtures.game.serverCertificate,
          privateKeyFile: Fixtures.stranger.serverKey))
    } throws: { error in
      "\(error)".contains("is not the private key of the certificate")
    }
    #expect {
      try TLSContext(.client(trust: .pinnedSHA256("12:34")))
    } throws: { error in
      "\(error)".contains("is not a SHA-256 fingerprint")
    }
  }
}
