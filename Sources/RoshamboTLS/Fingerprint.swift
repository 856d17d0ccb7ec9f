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

  /// The fingerprint of an OpenSSL certificate.
  static func sha256(of certificate: OpaquePointer) -> String {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    X509_digest(certificate, EVP_sha256(), &digest, &length)
    return format(digest.prefix(Int(length)))
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
