import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol

/// History: the finished matches kept, newest first.
extension Journal {
  /// The most recent finished matches, newest first.
  func recentMatches(limit: Int) throws -> [FinishedMatch] {
    try database.read { try Self.recentMatches($0, limit: limit) }
  }

  /// The most recent finished matches as read on `db` (any connection, read-only ones
  /// too).
  static func recentMatches(_ db: Database, limit: Int) throws -> [FinishedMatch] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT room, finished_at, ruleset, best_of, player1, player2, score1, score2, winner,
          forfeit, fair FROM matches ORDER BY id DESC LIMIT ?
        """, arguments: [limit]
    ).map { row in
      FinishedMatch(
        room: row["room"], finishedAt: row["finished_at"], ruleset: row["ruleset"],
        bestOf: row["best_of"], players: [row["player1"], row["player2"]],
        scores: [row["score1"], row["score2"]], winner: row["winner"],
        forfeit: row["forfeit"], fair: row["fair"])
    }
  }
}
