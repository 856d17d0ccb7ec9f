import RoshamboCrypto

/// The secret that takes a seat back after a dropped connection. The player gets the
/// token; the lobby (and so the journal) holds only its SHA-256, so a copy of the data
/// directory hands nobody a seat.
///
/// Invariant: ``stored(_:)`` is a pure function of the token, and every value it returns
/// starts with ``prefix``, so a stored hash is never mistaken for a token.
package enum ResumeToken {
  package static let prefix = "sha256:"

  /// 128 random bits as hex.
  package static func make() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<2).map { _ in
      let hex = String(generator.next() as UInt64, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }

  /// What the lobby stores for `token`.
  package static func stored(_ token: String) -> String {
    prefix + SHA256Digest.hex(token)
  }

  /// A seat's stored value as it should be: journals written before tokens were hashed
  /// hold the token itself, which is hashed when it is loaded.
  package static func upgraded(_ value: String) -> String {
    value.hasPrefix(prefix) ? value : stored(value)
  }
}
