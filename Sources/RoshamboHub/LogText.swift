import RoshamboProtocol

/// A log field from untrusted text (a player's name, a room): quoted, escaped and cut
/// (``UntrustedText``), so it stays one field of one line.
///
/// Invariant: the result begins and ends with `"` and is at most about `limit + 18`
/// characters.
package enum LogText {
  /// The most characters of untrusted text kept in a log field.
  static let defaultLimit = 48

  /// `text` quoted and escaped for a log field, cut to `limit` characters.
  package static func quoted(_ text: String, limit: Int = defaultLimit) -> String {
    "\"" + UntrustedText.escaped(text, limit: limit) + "\""
  }
}
