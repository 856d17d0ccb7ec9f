import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol
import RoshamboServer

/// The standings: finished matches folded into every player's totals, and the
/// leaderboard read from them and from the matches not folded yet.
extension Journal {
  /// Whether enough matches wait to be folded into the standings.
  var foldIsDue: Bool { unfoldedMatches >= Self.foldBatch }

  /// Folds up to ``foldBatch`` matches into the standings in one transaction, drops the
  /// least successful players past the leaderboard's bound and the oldest folded matches
  /// past ``keepMatches``; returns whether more wait. Each standings page is written
  /// once per fold rather than once per commit that touched it.
  @discardableResult
  func foldStandings() throws -> Bool {
    var through = foldedThrough
    var folded = 0
    var pruned = 0
    var players = standingsCount
    try writer.transaction {
      if unfoldedMatches > 0 {
        let (last, count) = try writer.integers(
          """
          SELECT COALESCE(MAX(id), ?1), COUNT(*) FROM (
            SELECT id FROM matches WHERE id > ?1 ORDER BY id LIMIT ?2)
          """, .int(foldedThrough), .int(Int64(Self.foldBatch)))
        (through, folded) = (last, Int(count))
        try writer.run(
          """
          INSERT INTO standings (name, won, lost, won_by_forfeit)
            SELECT name, SUM(won), SUM(1 - won), SUM(won_by_forfeit) FROM match_results
            WHERE id > ? AND id <= ? GROUP BY name
          ON CONFLICT (name) DO UPDATE SET won = won + excluded.won, lost = lost + excluded.lost,
            won_by_forfeit = won_by_forfeit + excluded.won_by_forfeit
          """, .int(foldedThrough), .int(through))
        try writer.run("UPDATE standings_folded SET through = ? WHERE id = 1", .int(through))
        players = Int(try writer.integers("SELECT COUNT(*), 0 FROM standings").0)
        if players >= Self.keepStandings + Self.standingsBatch {
          // One scan per batch of new names: the players with the fewest wins go.
          try writer.run(
            """
            DELETE FROM standings WHERE name IN (
              SELECT name FROM standings ORDER BY won ASC, lost DESC, name ASC LIMIT ?)
            """, .int(Int64(Self.standingsBatch)))
          players -= writer.changes
        }
      }
      if matchCount > keepMatches {
        // The oldest matches beyond the limit, once they are in the standings.
        try writer.run(
          """
          DELETE FROM matches WHERE id IN (
            SELECT id FROM matches WHERE id <= ?
              AND id NOT IN (SELECT match_id FROM history_outbox) ORDER BY id LIMIT ?)
          """, .int(through), .int(Int64(matchCount - keepMatches)))
        pruned = writer.changes
      }
    }
    foldedThrough = through
    unfoldedMatches -= folded
    matchCount -= pruned
    standingsCount = players
    return unfoldedMatches > 0
  }

  /// Players by matches won, then by fewest lost: (name, won, lost, and how many of
  /// the wins were by forfeit). Matches not folded into the standings yet are counted too.
  func leaderboard(limit: Int) throws -> [LeaderboardLine] {
    try database.read { try Self.leaderboard($0, limit: limit) }
  }

  /// The leaderboard as read on `db` (any connection, read-only ones too).
  static func leaderboard(_ db: Database, limit: Int) throws -> [LeaderboardLine] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT name, SUM(won) AS won, SUM(lost) AS lost, SUM(won_by_forfeit) AS forfeits FROM (
          SELECT name, won, lost, won_by_forfeit FROM standings
          UNION ALL SELECT name, won, 1 - won, won_by_forfeit FROM match_results
          WHERE id > (SELECT through FROM standings_folded WHERE id = 1))
        GROUP BY name ORDER BY won DESC, lost ASC, name ASC LIMIT ?
        """, arguments: [limit]
    ).map { ($0["name"], $0["won"], $0["lost"], $0["forfeits"]) }
  }
}
