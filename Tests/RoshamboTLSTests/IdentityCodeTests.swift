import Foundation
import RoshamboTLS
import Testing

@Suite("Identity codes")
struct IdentityCodeTests {
  @Test("the code is the digest's first 8 bytes, big-endian, modulo 10^16, in groups of four")
  func definition() throws {
    // Worked by hand from docs/PROTOCOL.md: 0x00000000000000FF = 255.
    let small = "00:00:00:00:00:00:00:FF" + String(repeating: ":AB", count: 24)
    #expect(IdentityCode.code(forFingerprint: small) == "0000-0000-0000-0255")
    // 0xFFFFFFFFFFFFFFFF = 18446744073709551615; modulo 10^16 = 6744073709551615.
    let large = String(repeating: "FF:", count: 8) + String(repeating: "00:", count: 23) + "00"
    #expect(IdentityCode.code(forFingerprint: large) == "6744-0737-0955-1615")
    // Bytes after the eighth do not count; case and colons do not matter.
    let other = String(repeating: "ff", count: 8) + String(repeating: "11", count: 24)
    #expect(IdentityCode.code(forFingerprint: other) == "6744-0737-0955-1615")
    #expect(IdentityCode.code(forFingerprint: "not a fingerprint") == nil)
  }

  @Test("the code of the test certificate matches one worked out with openssl and Python")
  func realCertificate() throws {
    let fingerprint = try Fingerprint.sha256(ofPEMFile: Fixtures.game.serverCertificate)
    let first8 = fingerprint.split(separator: ":").prefix(8).joined()
    let script = "print('%016d' % (int('\(first8)', 16) % 10**16))"
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = ["-c", script]
    let pipe = Pipe()
    python.standardOutput = pipe
    try python.run()
    let digits = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    python.waitUntilExit()
    let code = try #require(IdentityCode.code(forFingerprint: fingerprint))
    #expect(code.replacingOccurrences(of: "-", with: "") == digits)
    #expect(code.count == 19)
  }
}
