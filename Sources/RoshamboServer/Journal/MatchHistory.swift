import Foundation
import RoshamboProtocol

/// Finished matches and the leaderboard, read from a server's journal, as text.
///
/// Invariant: read-only; it never changes the journal.
public struct MatchHistory {
  private let journal: Journal

  public init(dataDirectory: String) throws {
    journal = try Journal(directory: dataDirectory)
  }

  /// Recent matches, newest first, then the leaderboard.
  public func report(limit: Int) throws -> String {
    let matches = try journal.recentMatches(limit: limit)
    var lines = ["Recent matches (newest first):"]
    if matches.isEmpty { lines.append("  none yet") }
    // Names and rooms come from players (or from whoever could write the file): quoted
    // and escaped, so none can draw on the terminal or pass for a line of this report.
    let quoted = { (text: String) in LogText.quoted(text) }
    for match in matches {
      let when = Date(timeIntervalSince1970: Double(match.finishedAt) / 1000)
      let score =
        "\(quoted(match.players[0])) \(match.scores[0])–\(match.scores[1]) "
        + quoted(match.players[1])
      lines.append(
        "  \(when.formatted(.iso8601))  \(quoted(match.room))  \(score)  winner: "
          + quoted(match.winner)
          + (match.forfeit ? " (forfeit)" : "")
          + (match.fair ? "  fair: every round committed and revealed" : ""))
    }
    lines.append("")
    lines.append("Leaderboard (matches won, lost):")
    let board = try journal.leaderboard(limit: 10)
    if board.isEmpty { lines.append("  none yet") }
    for (rank, entry) in board.enumerated() {
      lines.append("  \(rank + 1). \(quoted(entry.name))  \(entry.won) won, \(entry.lost) lost")
    }
    return lines.joined(separator: "\n")
  }
}
