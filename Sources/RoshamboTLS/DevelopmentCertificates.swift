import COpenSSL

#if canImport(Glibc)
  import Glibc
#endif

/// The game's own certificates, made with OpenSSL: a private CA and a server certificate
/// signed by it (and, for mutual TLS, client certificates), all EC P-256, written as PEM.
/// `scripts/gen-certs.sh` makes the same files with the `openssl` command.
///
/// Invariant: private keys are written with mode 0600 and never leave their directory;
/// the server certificate is a leaf (`CA:FALSE`, digitalSignature, serverAuth) whose
/// subjectAltName lists every name and address it was made for.
public enum DevelopmentCertificates {
  /// Where the files of one certificate directory are.
  public struct Files: Sendable, Equatable {
    public let directory: String
    /// The CA certificate: the one file players copy to trust the server.
    public var caCertificate: String { directory + "/ca.pem" }
    public var caKey: String { directory + "/ca-key.pem" }
    /// The server's chain: its certificate, then the CA's.
    public var serverCertificate: String { directory + "/server.pem" }
    public var serverKey: String { directory + "/server-key.pem" }

    public init(directory: String) {
      self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// Whether the server's certificate and key are both there.
    public var serverFilesExist: Bool {
      access(serverCertificate, F_OK) == 0 && access(serverKey, F_OK) == 0
    }
  }

  /// The names and addresses a server certificate for this machine should list:
  /// localhost, 127.0.0.1, ::1, the host name, the LAN addresses, then `extra`.
  public static func defaultHosts(extra: [String] = []) -> [String] {
    var hosts = ["localhost", "127.0.0.1", "::1"]
    let name = LocalNetwork.hostName()
    if !name.isEmpty { hosts.append(name) }
    hosts += LocalNetwork.addresses()
    hosts += extra
    var seen: Set<String> = []
    return hosts.filter { seen.insert($0.lowercased()).inserted }
  }

  /// Makes a new CA and a server certificate for `hosts` in `directory` (created if
  /// missing), replacing any there.
  @discardableResult
  public static func create(
    in directory: String, hosts: [String] = defaultHosts(), validDays: Int = 365
  ) throws -> Files {
    let files = Files(directory: directory)
    try makeDirectory(files.directory)
    let caKey = try generateKey()
    defer { EVP_PKEY_free(caKey) }
    let ca = try makeCertificate(
      commonName: "Roshambo game CA (\(LocalNetwork.hostName()))", key: caKey, issuer: nil,
      issuerKey: caKey, validDays: validDays * 2,
      extensions: [
        (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
        (NID_key_usage, "critical,keyCertSign,cRLSign"),
        (NID_subject_key_identifier, "hash"),
      ])
    defer { X509_free(ca) }
    let serverKey = try generateKey()
    defer { EVP_PKEY_free(serverKey) }
    let server = try makeCertificate(
      commonName: hosts.first { !IPAddress.isIPAddress($0) } ?? "roshambo-server", key: serverKey,
      issuer: ca, issuerKey: caKey, validDays: validDays,
      extensions: serverExtensions(hosts: hosts))
    defer { X509_free(server) }

    try writeFile(files.caKey, pem(key: caKey), mode: 0o600)
    try writeFile(files.caCertificate, pem(certificate: ca), mode: 0o644)
    try writeFile(files.serverKey, pem(key: serverKey), mode: 0o600)
    try writeFile(
      files.serverCertificate, pem(certificate: server) + pem(certificate: ca), mode: 0o644)
    return files
  }

  /// Issues a client certificate (clientAuth) signed by the CA in `files`, for mutual
  /// TLS, into `<directory>/<name>.pem` and `<name>-key.pem`. Returns both paths.
  @discardableResult
  public static func issueClientCertificate(
    name: String, files: Files, validDays: Int = 365
  ) throws -> (certificate: String, key: String) {
    let caKey = try readKey(files.caKey)
    defer { EVP_PKEY_free(caKey) }
    let ca = try readCertificate(files.caCertificate)
    defer { X509_free(ca) }
    let key = try generateKey()
    defer { EVP_PKEY_free(key) }
    let certificate = try makeCertificate(
      commonName: name, key: key, issuer: ca, issuerKey: caKey, validDays: validDays,
      extensions: [
        (NID_basic_constraints, "critical,CA:FALSE"),
        (NID_key_usage, "critical,digitalSignature"),
        (NID_ext_key_usage, "clientAuth"),
        (NID_subject_key_identifier, "hash"),
        (NID_authority_key_identifier, "keyid"),
      ])
    defer { X509_free(certificate) }
    let paths = (files.directory + "/\(name).pem", files.directory + "/\(name)-key.pem")
    try writeFile(paths.1, pem(key: key), mode: 0o600)
    try writeFile(paths.0, pem(certificate: certificate) + pem(certificate: ca), mode: 0o644)
    return paths
  }

  // MARK: - OpenSSL steps

  static func serverExtensions(hosts: [String]) -> [(Int32, String)] {
    let names = hosts.map { IPAddress.isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }
    return [
      (NID_basic_constraints, "critical,CA:FALSE"),
      (NID_key_usage, "critical,digitalSignature"),
      (NID_ext_key_usage, "serverAuth"),
      (NID_subject_alt_name, names.joined(separator: ",")),
      (NID_subject_key_identifier, "hash"),
      (NID_authority_key_identifier, "keyid"),
    ]
  }

  /// A new key and a self-signed certificate for it (clientAuth, 100 years), written
  /// together to `path` (mode 0600, in a directory that exists): a player's identity,
  /// which OpenSSL reads as both the certificate and the key. Returns the key's SHA-256
  /// (``Fingerprint/publicKeySHA256(of:)``). A file another process made at `path`
  /// meanwhile is kept, never replaced (several bots started at once share the first),
  /// and its key is returned.
  @discardableResult
  public static func createIdentity(at path: String) throws -> String {
    let key = try generateKey()
    defer { EVP_PKEY_free(key) }
    let certificate = try makeCertificate(
      commonName: "Roshambo player", key: key, issuer: nil, issuerKey: key,
      validDays: 36_500,
      extensions: [
        (NID_basic_constraints, "critical,CA:FALSE"),
        (NID_key_usage, "critical,digitalSignature"),
        (NID_ext_key_usage, "clientAuth"),
      ])
    defer { X509_free(certificate) }
    let temporary = path + ".new-\(getpid())"
    try writeFile(temporary, pem(key: key) + pem(certificate: certificate), mode: 0o600)
    defer { unlink(temporary) }
    // link() never replaces: the first identity made at `path` is the one everyone uses.
    if link(temporary, path) != 0 {
      guard errno == EEXIST else {
        throw TLSError(
          .configuration, "cannot write \(path): \(String(cString: strerror(errno))).")
      }
      return try Fingerprint.publicKeySHA256(ofPEMFile: path)
    }
    guard let identity = Fingerprint.publicKeySHA256(of: certificate) else {
      throw TLSError.configuration("could not read the new identity's key")
    }
    return identity
  }

  private static func generateKey() throws -> OpaquePointer {
    ERR_clear_error()
    guard let key = shim_EVP_EC_gen("P-256") else {
      throw TLSError.configuration("could not generate an EC P-256 key")
    }
    return key
  }

  /// A certificate for `key`, signed by `issuerKey` (self-signed when `issuer` is nil).
  private static func makeCertificate(
    commonName: String, key: OpaquePointer, issuer: OpaquePointer?, issuerKey: OpaquePointer,
    validDays: Int, extensions: [(Int32, String)]
  ) throws -> OpaquePointer {
    ERR_clear_error()
    guard let certificate = X509_new() else {
      throw TLSError.configuration("could not allocate a certificate")
    }
    do {
      guard X509_set_version(certificate, 2) == 1 else {
        throw TLSError.configuration("X509_set_version")
      }
      let serial = BN_new()
      defer { BN_free(serial) }
      guard BN_rand(serial, 127, -1, 0) == 1,
        BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate)) != nil
      else { throw TLSError.configuration("could not make a serial number") }
      X509_gmtime_adj(X509_getm_notBefore(certificate), -3600)
      X509_gmtime_adj(X509_getm_notAfter(certificate), validDays * 86_400)
      guard X509_set_pubkey(certificate, key) == 1 else {
        throw TLSError.configuration("could not set the public key")
      }
      let subject = X509_get_subject_name(certificate)
      guard X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
        X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC, "Roshambo", -1, -1, 0) == 1
      else { throw TLSError.configuration("could not set the name \(commonName)") }
      let issuerCertificate = issuer ?? certificate
      guard X509_set_issuer_name(certificate, X509_get_subject_name(issuerCertificate)) == 1 else {
        throw TLSError.configuration("could not set the issuer")
      }
      var v3 = X509V3_CTX()
      shim_X509V3_set_ctx_nodb(&v3)
      X509V3_set_ctx(&v3, issuerCertificate, certificate, nil, nil, 0)
      for (nid, value) in extensions {
        guard let extensionPointer = X509V3_EXT_nconf_nid(nil, &v3, nid, value) else {
          throw TLSError.configuration("could not make the extension \(value)")
        }
        defer { X509_EXTENSION_free(extensionPointer) }
        guard X509_add_ext(certificate, extensionPointer, -1) == 1 else {
          throw TLSError.configuration("could not add the extension \(value)")
        }
      }
      guard X509_sign(certificate, issuerKey, EVP_sha256()) > 0 else {
        throw TLSError.configuration("could not sign the certificate")
      }
      return certificate
    } catch {
      X509_free(certificate)
      throw error
    }
  }

  private static func pem(certificate: OpaquePointer) throws -> String {
    try withMemoryBIO { PEM_write_bio_X509($0, certificate) }
  }

  private static func pem(key: OpaquePointer) throws -> String {
    try withMemoryBIO { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
  }

  private static func withMemoryBIO(_ write: (OpaquePointer) -> Int32) throws -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.configuration("out of memory") }
    defer { BIO_free(bio) }
    guard write(bio) == 1 else { throw TLSError.configuration("could not write PEM") }
    var data: UnsafeMutablePointer<CChar>?
    let length = shim_BIO_get_mem_data(bio, &data)
    guard let data, length > 0 else { throw TLSError.configuration("could not write PEM") }
    return String(
      decoding: UnsafeRawBufferPointer(start: data, count: length).bindMemory(to: UInt8.self),
      as: UTF8.self)
  }

  static func readCertificate(_ path: String) throws -> OpaquePointer {
    guard let bio = BIO_new_file(path, "r") else {
      throw TLSError.configuration("cannot open the certificate \(path)")
    }
    defer { BIO_free(bio) }
    guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
      throw TLSError.configuration("\(path) holds no PEM certificate")
    }
    return certificate
  }

  private static func readKey(_ path: String) throws -> OpaquePointer {
    guard let bio = BIO_new_file(path, "r") else {
      throw TLSError.configuration("cannot open the private key \(path)")
    }
    defer { BIO_free(bio) }
    guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
      throw TLSError.configuration("\(path) holds no PEM private key")
    }
    return key
  }

  // MARK: - Files

  private static func makeDirectory(_ path: String) throws {
    var current = path.hasPrefix("/") ? "" : "."
    for part in path.split(separator: "/") {
      current += "/" + part
      if mkdir(current, 0o755) != 0 && errno != EEXIST {
        throw TLSError(
          .configuration,
          "cannot create the directory \(current): \(String(cString: strerror(errno))).")
      }
    }
  }

  /// Writes `text` to `path` with `mode`, through a temporary file and a rename, so a
  /// reader never sees half a file and a key is never readable by others for a moment.
  private static func writeFile(_ path: String, _ text: String, mode: mode_t) throws {
    let temporary = path + ".tmp-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode)
    guard fd >= 0 else {
      throw TLSError(.configuration, "cannot write \(path): \(String(cString: strerror(errno))).")
    }
    var bytes = Array(text.utf8)
    let written = write(fd, &bytes, bytes.count)
    fchmod(fd, mode)
    close(fd)
    guard written == bytes.count, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw TLSError(.configuration, "cannot write \(path): \(String(cString: strerror(errno))).")
    }
  }
}
