import Foundation
import GRDB
import RoshamboGame
import RoshamboHub

/// Ratings: each player's Glicko-2 rating, kept with every match (each seat's after it)
/// and in the standings (after the player's last match folded in). They are a fold over
/// the matches in the order they finished (``PlayerRatings``), so recomputing them from
/// the matches gives the same bits, as long as the journal keeps every match
/// (`--keep-matches`); once old matches are pruned, the kept ratings still remember them.
extension Journal {
  /// Each player's rating as the journal keeps it, as one subquery's rows (`name`,
  /// `rating`, `deviation`, `volatility`, the counts `won`, `lost`, `forfeits`): the
  /// standings' rating, or the rating after the player's latest match not folded yet.
  /// With more than one `max()` SQLite would not say which row the bare columns come
  /// from; here `MAX(at)` is the only one, so they are the latest row's.
  static let keptPerPlayer = """
    SELECT name, SUM(won) AS won, SUM(lost) AS lost, SUM(won_by_forfeit) AS forfeits,
      rating, deviation, volatility, MAX(at) AS at FROM (
        SELECT name, won, lost, won_by_forfeit, rating, deviation, volatility, 0 AS at
          FROM standings
        UNION ALL SELECT name, won, 1 - won, won_by_forfeit, rating, deviation, volatility, id
          FROM match_results WHERE id > (SELECT through FROM standings_folded WHERE id = 1))
      GROUP BY name
    """

  /// The rating in `row` (columns `rating`, `deviation`, `volatility`), checked: one that
  /// cannot be a rating throws ``JournalError/badRating(path:holder:problem:)``.
  static func rating(in row: Row, path: String, holder: @autoclosure () -> String) throws
    -> Glicko2Rating
  {
    let (rating, deviation, volatility): (Double?, Double?, Double?) = (
      row["rating"], row["deviation"], row["volatility"]
    )
    guard let rating, let deviation, let volatility else {
      throw JournalError.badRating(
        path: path, holder: holder(), problem: "a rating, deviation or volatility is missing")
    }
    let kept = Glicko2Rating(rating: rating, deviation: deviation, volatility: volatility)
    if let problem = kept.problem {
      throw JournalError.badRating(path: path, holder: holder(), problem: problem)
    }
    return kept
  }

  /// Every player's rating as the journal keeps it, read on `db`.
  static func keptRatings(_ db: Database, path: String) throws -> PlayerRatings {
    var ratings = PlayerRatings()
    let rows = try Row.fetchCursor(db, sql: keptPerPlayer)
    while let row = try rows.next() {
      let name: String = row["name"]
      let at: Int64 = row["at"]
      let holder = { LogText.quoted(name) + (at > 0 ? " after match \(at)" : " in the standings") }
      ratings.set(name, try rating(in: row, path: path, holder: holder()))
    }
    return ratings
  }

  /// Every player's rating as the journal keeps it.
  func keptRatings() throws -> PlayerRatings {
    try database.read { try Self.keptRatings($0, path: path) }
  }

  /// The ratings the kept matches give, folded again in the order they finished.
  func recomputedRatings() throws -> PlayerRatings {
    try database.read { db in
      var ratings = PlayerRatings()
      try Self.forEachKeptMatch(db) { _, match in ratings.record(match) }
      return ratings
    }
  }

  /// Each kept match (its number, players and winner: what rates it), oldest first, read
  /// a page at a time so that a long history is never all in memory.
  static func forEachKeptMatch(_ db: Database, _ body: (Int64, FinishedMatch) throws -> Void)
    throws
  {
    var last: Int64 = 0
    // A file older than v15 rated every match (its migration v14 rates them all again).
    let rated = try db.columns(in: "matches").contains { $0.name == "rated" } ? "rated" : "1"
    while true {
      let page = try Row.fetchAll(
        db,
        sql: """
          SELECT id, player1, player2, winner, \(rated) AS rated FROM matches WHERE id > ?
            ORDER BY id LIMIT 1000
          """, arguments: [last])
      guard !page.isEmpty else { return }
      for row in page {
        last = row["id"]
        try body(
          last,
          FinishedMatch(
            room: "", finishedAt: 0, ruleset: "", bestOf: 1,
            players: [row["player1"], row["player2"]], scores: [0, 0], winner: row["winner"],
            forfeit: false, fair: false, rated: row["rated"]))
      }
    }
  }

  /// Rates every kept match again, in order, from nobody rated: each match's row takes
  /// its seats' ratings after it, and the standings each player's after their last match
  /// folded in (a player with none kept starts again as new). For migration v14, and for
  /// `--recover` of a file whose ratings were changed by another program.
  static func rateKeptMatches(_ db: Database) throws {
    let through =
      try Int64.fetchOne(db, sql: "SELECT through FROM standings_folded WHERE id = 1") ?? 0
    var ratings = PlayerRatings()
    var folded: [String: Glicko2Rating] = [:]
    try forEachKeptMatch(db) { id, match in
      let after = ratings.record(match)
      try db.execute(
        sql: """
          UPDATE matches SET rating1 = ?, deviation1 = ?, volatility1 = ?, rating2 = ?,
            deviation2 = ?, volatility2 = ? WHERE id = ?
          """,
        arguments: [
          after[0].rating, after[0].deviation, after[0].volatility, after[1].rating,
          after[1].deviation, after[1].volatility, id,
        ])
      if id <= through {
        for (name, rating) in zip(match.players, after) { folded[name] = rating }
      }
    }
    let unrated = Glicko2Rating.unrated
    try db.execute(
      sql: "UPDATE standings SET rating = ?, deviation = ?, volatility = ?",
      arguments: [unrated.rating, unrated.deviation, unrated.volatility])
    for (name, rating) in folded {
      try db.execute(
        sql: "UPDATE standings SET rating = ?, deviation = ?, volatility = ? WHERE name = ?",
        arguments: [rating.rating, rating.deviation, rating.volatility, name])
    }
  }
}
