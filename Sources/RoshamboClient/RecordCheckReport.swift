import RoshamboGame
import RoshamboProtocol

/// What `roshambo verify` prints: the record's heading, its check and, with another
/// record of the same match, where the two differ; wrapped between words at a terminal's
/// width (nil: a pipe or a file, lines as they are).
///
/// Invariant: no line is wider than `width` unless a single word is; a verdict never
/// says what a record alone cannot show once another record agreed with it.
public struct RecordCheckReport: Sendable {
  public var lines: [String]
  /// Whether the record holds (and agrees with the other, if there is one).
  public var holds: Bool

  public init(_ match: FinishedMatch, comparedWith other: FinishedMatch? = nil, width: Int?) {
    let verification = RecordVerification(match)
    let differences = other.map { RecordComparison.differences(match, $0) }
    var paragraphs: [(text: String, indent: String)] = MatchRecordText.heading(match).map {
      ($0, "  ")
    }
    paragraphs += MatchRecordText.verification(
      verification, agreedWithAnother: differences?.isEmpty == true
    ).map { ($0, $0.hasPrefix("  ") ? "    " : "") }
    holds = verification.holds
    if let differences {
      if differences.isEmpty {
        paragraphs.append(("The two records agree on every round, the scores and the winner.", ""))
      } else {
        paragraphs.append(("The two records differ:", ""))
        paragraphs += differences.map { ("  ✗ " + $0, "    ") }
        holds = false
      }
    }
    lines = paragraphs.flatMap { paragraph -> [String] in
      guard let width else { return [paragraph.text] }
      return Paragraph.wrapped(paragraph.text, width: width, indent: paragraph.indent)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
  }
}
