import Logging
import PostgresNIO
import RoshamboGame

/// Rating the shared history's matches again from nobody rated, and comparing what is kept
/// with what folding them gives.
extension SharedHistory {
  /// Rates every match of the shared history again, in the order stored, from nobody
  /// rated: each row takes its seats' ratings after it, and the standings each player's
  /// after their last match (a player with none stays unrated).
  static func rateEveryMatch(on connection: PostgresConnection, logger: Logger) async throws {
    var ratings = PlayerRatings()
    var orders: [Int64] = []
    var after: [[Double]] = Array(repeating: [], count: 6)
    func flush() async throws {
      guard !orders.isEmpty else { return }
      try await connection.query(
        """
        UPDATE roshambo_matches AS kept SET rating1 = rated.r1, deviation1 = rated.d1,
          volatility1 = rated.v1, rating2 = rated.r2, deviation2 = rated.d2,
          volatility2 = rated.v2
        FROM unnest(\(orders)::bigint[], \(after[0])::float8[], \(after[1])::float8[],
          \(after[2])::float8[], \(after[3])::float8[], \(after[4])::float8[],
          \(after[5])::float8[]) AS rated(n, r1, d1, v1, r2, d2, v2)
        WHERE kept.rated_order = rated.n
        """, logger: logger)
      orders = []
      after = Array(repeating: [], count: 6)
    }
    let rows = try await connection.query(
      """
      SELECT rated_order, player1, player2, winner, rated, identity1, identity2
        FROM roshambo_matches ORDER BY rated_order
      """, logger: logger)
    var matches: [(Int64, FinishedMatch)] = []
    for try await (order, player1, player2, winner, rated, identity1, identity2) in rows.decode(
      (Int64, String, String, String, Bool, String?, String?).self)
    {
      matches.append(
        (
          order,
          Self.rated(
            players: [player1, player2], winner: winner, rated: rated,
            identities: [identity1, identity2])
        ))
    }
    for (order, match) in matches {
      let rated = ratings.record(match)
      orders.append(order)
      for (index, value) in [
        rated[0].rating, rated[0].deviation, rated[0].volatility, rated[1].rating,
        rated[1].deviation, rated[1].volatility,
      ].enumerated() {
        after[index].append(value)
      }
      if orders.count == 1_000 { try await flush() }
    }
    try await flush()
    let unrated = Glicko2Rating.unrated
    try await connection.query(
      """
      UPDATE roshambo_standings SET rating = \(unrated.rating), deviation = \(unrated.deviation),
        volatility = \(unrated.volatility)
      """, logger: logger)
    let names = Array(ratings.ratings.keys)
    for start in stride(from: 0, to: names.count, by: 1_000) {
      let part = Array(names[start..<min(names.count, start + 1_000)])
      let kept = part.map { ratings[$0] }
      try await connection.query(
        """
        UPDATE roshambo_standings AS standing SET rating = rated.r, deviation = rated.d,
          volatility = rated.v
        FROM unnest(\(part)::text[], \(kept.map(\.rating))::float8[],
          \(kept.map(\.deviation))::float8[], \(kept.map(\.volatility))::float8[])
          AS rated(player, r, d, v)
        WHERE standing.player = rated.player
        """, logger: logger)
    }
  }

  /// What rates a match: its players by their keys, its winner, and whether it is rated.
  static func rated(
    players: [String], winner: String, rated: Bool, identities: [String?]
  ) -> FinishedMatch {
    var match = FinishedMatch(
      room: "", finishedAt: 0, ruleset: "", bestOf: 1, players: players, scores: [0, 0],
      winner: winner, forfeit: false, fair: false, rated: rated)
    match.identities = identities
    return keyed(match)
  }

  /// Rates every match again, in the order stored (`history --rate-again`): for a history
  /// whose ratings another program changed.
  public func rateAgain() async throws {
    let logger = self.logger
    try await transaction { connection in
      try await connection.query(
        "SELECT pg_advisory_xact_lock(\(Self.storeLock))", logger: logger)
      try await Self.rateEveryMatch(on: connection, logger: logger)
    }
  }

  /// What the shared history keeps of every player's rating (the standings), and what
  /// folding its matches in the order stored gives: equal, bit for bit, unless another
  /// program changed them.
  public func ratings() async throws -> (kept: PlayerRatings, recomputed: PlayerRatings) {
    var kept = PlayerRatings()
    for try await (player, rating, deviation, volatility) in try await client.query(
      "SELECT player, rating, deviation, volatility FROM roshambo_standings", logger: logger
    ).decode((String, Double, Double, Double).self) {
      kept.set(player, Glicko2Rating(rating: rating, deviation: deviation, volatility: volatility))
    }
    var recomputed = PlayerRatings()
    for try await (player1, player2, winner, rated, identity1, identity2) in try await client.query(
      """
      SELECT player1, player2, winner, rated, identity1, identity2 FROM roshambo_matches
        ORDER BY rated_order
      """,
      logger: logger
    ).decode((String, String, String, Bool, String?, String?).self) {
      recomputed.record(
        Self.rated(
          players: [player1, player2], winner: winner, rated: rated,
          identities: [identity1, identity2]))
    }
    return (kept, recomputed)
  }
}
