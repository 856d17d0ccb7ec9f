/// A short code for a certificate, for people to compare by eye or read aloud: four
/// groups of four digits (`4821-0937-5512-8830`) made from the certificate's SHA-256
/// fingerprint. The server prints it when it starts and announces it; a client shows it
/// before trusting a server it has never seen.
///
/// The code is the first 8 bytes of the SHA-256 digest as a big-endian unsigned integer,
/// modulo 10^16, written with leading zeros in groups of four (docs/PROTOCOL.md). That
/// is about 53 bits: enough that a certificate made to show someone else's code takes
/// years of signing, while the full fingerprint stays what `--pin` and known_servers keep.
///
/// Invariant: the same fingerprint always gives the same code, of exactly 19 characters.
public enum IdentityCode {
  /// The code of a fingerprint in any form ``Fingerprint/normalize(_:)`` accepts, or
  /// nil when `fingerprint` is not a SHA-256 fingerprint.
  public static func code(forFingerprint fingerprint: String) -> String? {
    guard let canonical = Fingerprint.normalize(fingerprint) else { return nil }
    var value: UInt64 = 0
    for pair in canonical.split(separator: ":").prefix(8) {
      guard let byte = UInt8(pair, radix: 16) else { return nil }
      value = value << 8 | UInt64(byte)
    }
    let digits = String(value % 10_000_000_000_000_000)
    let padded = String(repeating: "0", count: 16 - digits.count) + digits
    var groups: [Substring] = []
    var index = padded.startIndex
    while index < padded.endIndex {
      let next = padded.index(index, offsetBy: 4)
      groups.append(padded[index..<next])
      index = next
    }
    return groups.joined(separator: "-")
  }
}
