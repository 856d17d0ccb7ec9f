import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboHub
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
    var droppedPlayers = false
    try writer.transaction {
      if unfoldedMatches > 0 {
        let (last, count) = try writer.integers(
          """
          SELECT COALESCE(MAX(id), ?1), COUNT(*) FROM (
            SELECT id FROM matches WHERE id > ?1 ORDER BY id LIMIT ?2)
          """, .int(foldedThrough), .int(Int64(Self.foldBatch)))
        (through, folded) = (last, Int(count))
        // Each player's rating becomes the one after their last match folded (the only
        // max() of the inner query, so its bare columns are that row's).
        try writer.run(
          """
          INSERT INTO standings (name, won, lost, won_by_forfeit, rating, deviation, volatility)
            SELECT name, won, lost, forfeits, rating, deviation, volatility FROM (
              SELECT name, SUM(won) AS won, SUM(1 - won) AS lost,
                SUM(won_by_forfeit) AS forfeits, rating, deviation, volatility, MAX(id)
              FROM match_results WHERE id > ? AND id <= ? GROUP BY name)
            WHERE true
          ON CONFLICT (name) DO UPDATE SET won = won + excluded.won, lost = lost + excluded.lost,
            won_by_forfeit = won_by_forfeit + excluded.won_by_forfeit,
            rating = excluded.rating, deviation = excluded.deviation,
            volatility = excluded.volatility
          """, .int(foldedThrough), .int(through))
        try writer.run("UPDATE standings_folded SET through = ? WHERE id = 1", .int(through))
        players = Int(try writer.integers("SELECT COUNT(*), 0 FROM standings").0)
        if players >= Self.keepStandings + Self.standingsBatch {
          // One scan per batch of new names: the players at the foot of the leaderboard
          // go (its order reversed), and with them their ratings.
          try writer.run(
            """
            DELETE FROM standings WHERE name IN (
              SELECT name FROM standings
              ORDER BY deviation > \(Glicko2Rating.provisionalDeviation) DESC, rating ASC,
                deviation DESC, won ASC, lost DESC, name DESC LIMIT ?)
            """, .int(Int64(Self.standingsBatch)))
          players -= writer.changes
          droppedPlayers = true
          try writer.run(
            """
            DELETE FROM rated_opponents WHERE name NOT IN (SELECT name FROM standings)
              AND name NOT IN (SELECT name FROM match_results WHERE id > ?)
            """, .int(through))
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
    // Those dropped start again as new, unless a match not folded yet rated them: the
    // journal's ratings are read again, as the leaderboard will read them.
    if droppedPlayers { ratings = try keptRatings() }
    return unfoldedMatches > 0
  }

  /// The leaderboard's top `limit`, in its order (``LobbyView/Leader/ranksAbove(_:)``):
  /// each player's rating, matches won and lost, and how many of the wins were by
  /// forfeit. Matches not folded into the standings yet are counted (and rated) too. A
  /// player is listed once rated against ``Glicko2Rating/listedOpponents`` different
  /// opponents.
  func leaderboard(limit: Int) throws -> [LobbyView.Leader] {
    try database.read {
      try Self.leaderboard($0, path: path, limit: limit, listedOpponents: listedOpponents)
    }
  }

  /// The leaderboard as read on `db` (any connection, read-only ones too). A rating that
  /// cannot be one throws ``JournalError/badRating(path:holder:problem:)``.
  static func leaderboard(
    _ db: Database, path: String, limit: Int,
    listedOpponents: Int = Glicko2Rating.listedOpponents
  ) throws -> [LobbyView.Leader] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT * FROM (\(keptPerPlayer)) AS kept
        WHERE (SELECT COUNT(*) FROM rated_opponents WHERE name = kept.name)
          >= ?
        ORDER BY deviation > \(Glicko2Rating.provisionalDeviation) ASC, rating DESC,
          deviation ASC, won DESC, lost ASC, name ASC LIMIT ?
        """, arguments: [listedOpponents, limit]
    ).map { row in
      let name: String = row["name"]
      let rating = try rating(in: row, path: path, holder: LogText.quoted(name))
      return LobbyView.Leader(
        name: name, won: row["won"], lost: row["lost"], wonByForfeit: row["forfeits"],
        rating: LobbyView.Rating(rating))
    }
  }
}
