import COpenSSL

/// SHA-256 fingerprints of certificates, in the `AB:CD:…` form `openssl x509
/// -fingerprint -sha256` prints, for players to compare and pin.
///
/// Invariant: every fingerprint this type returns is 32 upper-case hex pairs joined by colons.
public enum Fingerprint {
  /// The fingerprint of the first certificate in a PEM file.
  public static func sha256(ofPEMFile path: String) throws -> String {
    let certificate = try DevelopmentCertificates.readCertificate(path)
    defer { X509_free(certificate) }
    return sha256(of: certificate)
  }

  /// The public key's SHA-256 (``publicKeySHA256(of:)``) of the first certificate in a
  /// PEM file.
  public static func publicKeySHA256(ofPEMFile path: String) throws -> String {
    let certificate = try DevelopmentCertificates.readCertificate(path)
    defer { X509_free(certificate) }
    guard let key = publicKeySHA256(of: certificate) else {
      throw TLSError.configuration("\(path) holds a certificate whose key cannot be read")
    }
    return key
  }

  /// The fingerprint of an OpenSSL certificate.
  static func sha256(of certificate: OpaquePointer) -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    X509_digest(certificate, EVP_sha256(), &digest, &length)
    return format(digest.prefix(Int(length)))
  }

  /// The SHA-256 of a certificate's public key (its DER SubjectPublicKeyInfo), as 64
  /// lower-case hex digits: what stays the same when a certificate is made again for the
  /// same key. Nil for a certificate whose key cannot be encoded.
  public static func publicKeySHA256(of certificate: OpaquePointer) -> String? {
    guard let key = X509_get_X509_PUBKEY(certificate) else { return nil }
    var der: UnsafeMutablePointer<UInt8>?
    let length = i2d_X509_PUBKEY(key, &der)
    guard length > 0, let der else { return nil }
    defer { CRYPTO_free(der, #fileID, #line) }
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var size: UInt32 = 0
    guard EVP_Digest(der, Int(length), &digest, &size, EVP_sha256(), nil) == 1 else { return nil }
    return digest.prefix(Int(size)).map { byte in
      let hex = String(byte, radix: 16)
      return hex.count == 1 ? "0" + hex : hex
    }.joined()
  }

  /// The public key's SHA-256 (``publicKeySHA256(of:)``) of a DER certificate, if the
  /// bytes hold one (what the server makes of whatever a client presents).
  public static func publicKeySHA256(ofDER bytes: [UInt8]) -> String? {
    bytes.withUnsafeBufferPointer { buffer -> String? in
      guard var cursor = buffer.baseAddress.map({ Optional($0) }) else { return nil }
      guard let certificate = d2i_X509(nil, &cursor, buffer.count) else {
        ERR_clear_error()
        return nil
      }
      defer { X509_free(certificate) }
      return publicKeySHA256(of: certificate)
    }
  }

  static func format<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    bytes.map { byte in
      let hex = String(byte, radix: 16, uppercase: true)
      return hex.count == 1 ? "0" + hex : hex
    }.joined(separator: ":")
  }

  /// `text` in the canonical form, or nil when it is not a SHA-256 fingerprint. Accepts
  /// upper or lower case, with or without colons, and an optional `sha256:` prefix.
  public static func normalize(_ text: String) -> String? {
    var hex = text.lowercased()
    if hex.hasPrefix("sha256:") { hex.removeFirst(7) }
    hex.removeAll { $0 == ":" || $0 == " " }
    guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
    var pairs: [String] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      pairs.append(hex[index..<next].uppercased())
      index = next
    }
    return pairs.joined(separator: ":")
  }
}
