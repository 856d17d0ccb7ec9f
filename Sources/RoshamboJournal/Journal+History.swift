import Foundation
import GRDB
import RoshamboGame
import RoshamboProtocol
import RoshamboServer

/// History: the finished matches kept, newest first, and each one's record.
extension Journal {
  /// Which kept matches a history lists.
  struct MatchFilter: Equatable {
    /// Only matches this player played (either seat), by exact name.
    var player: String?
    /// Only matches finished at or after this (ms since 1970).
    var since: Int64?
    /// Only matches finished before this (ms since 1970).
    var until: Int64?
    var limit: Int = 20
    /// Whether to read each match's rounds (a lobby's list needs none).
    var withRounds = true
  }

  /// The most recent finished matches, newest first.
  func recentMatches(limit: Int) throws -> [FinishedMatch] {
    try database.read { try Self.matches($0, MatchFilter(limit: limit)) }
  }

  /// The most recent finished matches as read on `db` (any connection, read-only ones
  /// too).
  static func recentMatches(_ db: Database, limit: Int) throws -> [FinishedMatch] {
    try matches(db, MatchFilter(limit: limit))
  }

  /// The kept matches `filter` lets through, newest first, with their rounds.
  static func matches(_ db: Database, _ filter: MatchFilter) throws -> [FinishedMatch] {
    var conditions: [String] = []
    var arguments: [any DatabaseValueConvertible] = []
    if let player = filter.player {
      conditions.append("(player1 = ? OR player2 = ?)")
      arguments += [player, player]
    }
    if let since = filter.since {
      conditions.append("finished_at >= ?")
      arguments.append(since)
    }
    if let until = filter.until {
      conditions.append("finished_at < ?")
      arguments.append(until)
    }
    let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    arguments.append(filter.limit)
    return try Row.fetchAll(
      db,
      sql: "\(selectMatch(withRounds: filter.withRounds)) \(condition) ORDER BY id DESC LIMIT ?",
      arguments: StatementArguments(arguments)
    ).map(match(from:))
  }

  /// The oldest matches in the history's outbox, with their rounds, at most `limit`.
  static func matches(_ db: Database, inOutboxUpTo limit: Int) throws -> [FinishedMatch] {
    try Row.fetchAll(
      db,
      sql: """
        \(selectMatch(withRounds: true))
          WHERE id IN (SELECT match_id FROM history_outbox ORDER BY match_id LIMIT ?)
          ORDER BY id
        """, arguments: [limit]
    ).map(match(from:))
  }

  /// The kept match numbered `id`, or nil (never kept, or pruned since).
  static func match(_ db: Database, id: Int64) throws -> FinishedMatch? {
    try Row.fetchOne(db, sql: "\(selectMatch(withRounds: true)) WHERE id = ?", arguments: [id])
      .map(match(from:))
  }

  private static func selectMatch(withRounds: Bool) -> String {
    """
    SELECT id, room, finished_at, ruleset, best_of, player1, player2, score1, score2, winner,
      forfeit, fair, rated, identity1, identity2, \(withRounds ? "rounds" : "NULL AS rounds") FROM matches
    """
  }

  /// A match from its row. Rounds that do not read back (a file changed by hand) are
  /// left out rather than failing the history: the record then says it has none.
  private static func match(from row: Row) -> FinishedMatch {
    let text: String? = row["rounds"]
    let rounds = text.flatMap { try? MatchRecord.rounds(from: Array($0.utf8)) }
    var match = FinishedMatch(
      id: row["id"], room: row["room"], finishedAt: row["finished_at"], ruleset: row["ruleset"],
      bestOf: row["best_of"], players: [row["player1"], row["player2"]],
      scores: [row["score1"], row["score2"]], winner: row["winner"], forfeit: row["forfeit"],
      fair: row["fair"], rated: row["rated"], rounds: rounds)
    match.identities = [row["identity1"], row["identity2"]]
    return match
  }
}
