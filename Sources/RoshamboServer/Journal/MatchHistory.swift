import Foundation
import GRDB
import RoshamboProtocol

/// Finished matches and the leaderboard, read from a server's journal, as text.
///
/// Invariant: read-only: it opens the file read-only, never migrates it and never
/// writes, so it may run beside a server using the same journal.
public struct MatchHistory {
  private let database: DatabaseQueue

  /// Opens `roshambo.sqlite` in `dataDirectory` read-only. A journal that an older
  /// release wrote and no server has brought up to date since is refused, saying so.
  public init(dataDirectory: String) throws {
    let path = (dataDirectory as NSString).appendingPathComponent("roshambo.sqlite")
    var configuration = Configuration()
    configuration.readonly = true
    database = try DatabaseQueue(path: path, configuration: configuration)
    let current = try database.read { try JournalSchema.migrator.hasCompletedMigrations($0) }
    guard current else { throw JournalError.olderRelease(path: path) }
  }

  /// Recent matches, newest first, then the leaderboard.
  public func report(limit: Int) throws -> String {
    let (matches, board) = try database.read { db in
      (
        try Journal.recentMatches(db, limit: limit),
        try Journal.leaderboard(db, limit: 10)
      )
    }
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
    if board.isEmpty { lines.append("  none yet") }
    for (rank, entry) in board.enumerated() {
      lines.append("  \(rank + 1). \(quoted(entry.name))  \(entry.won) won, \(entry.lost) lost")
    }
    return lines.joined(separator: "\n")
  }
}
