import Logging
import PostgresNIO
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// Storing finished matches in the shared history, each rated after every match stored
/// before it, by any server.
extension SharedHistory {
  /// The lock that makes stores take turns, so the shared history's order is the order
  /// its matches were rated in (the migration's is 7443).
  static let storeLock = 7444

  /// Stores `matches` of the server `serverID` in one transaction; returns how many were
  /// new (a match already there is left as it is, and not counted or rated again). Each
  /// new match is rated after every match stored before it, by any server. A player's
  /// kept rating that cannot be one (another program wrote it) stops the store with a
  /// ``HistoryError`` naming it: the matches wait in the journal until it is corrected.
  @discardableResult
  public func store(_ matches: [FinishedMatch], serverID: String) async throws -> Int {
    guard !matches.isEmpty else { return 0 }
    let logger = self.logger
    return try await transaction { connection in
      // One store at a time, fleet-wide (released at the commit): the order below is the
      // order the matches are rated in.
      try await connection.query(
        "SELECT pg_advisory_xact_lock(\(Self.storeLock))", logger: logger)
      var order: Int64 = 0
      for try await last in try await connection.query(
        "SELECT coalesce(max(rated_order), 0) FROM roshambo_matches", logger: logger
      ).decode(Int64.self) { order = last }
      var ratings = try await Self.ratings(
        of: Array(Set(matches.flatMap(Self.keys(of:)))), on: connection, logger: logger)
      var added = 0
      for match in matches {
        guard let id = match.id, match.players.count == 2, match.scores.count == 2 else { continue }
        let rounds = match.rounds.map {
          String(decoding: MatchRecord.encode(rounds: $0), as: UTF8.self)
        }
        let keys = Self.keys(of: match)
        let before = keys.map { ratings[$0] }
        let after = ratings.system.ratings(after: Self.keyed(match), before: before)
        // The standings move only for a row this insert added (RETURNING is empty when
        // the match was already there); one row a player, since both seats may be one
        // (then both seats' ratings are the same).
        let rows = try await connection.query(
          """
          WITH added AS (
            INSERT INTO roshambo_matches (server_id, match_id, room, finished_at, ruleset,
              best_of, player1, player2, score1, score2, winner, forfeit, fair, rounds,
              rated_order, rating1, deviation1, volatility1, rating2, deviation2, volatility2,
              rated, identity1, identity2)
            VALUES (\(serverID), \(id), \(match.room), \(match.finishedAt), \(match.ruleset),
              \(match.bestOf), \(match.players[0]), \(match.players[1]), \(match.scores[0]),
              \(match.scores[1]), \(match.winner), \(match.forfeit), \(match.fair),
              \(rounds)::jsonb, \(order + 1), \(after[0].rating), \(after[0].deviation),
              \(after[0].volatility), \(after[1].rating), \(after[1].deviation),
              \(after[1].volatility), \(match.rated), \(match.identities.first ?? nil),
              \(match.identities.last ?? nil))
            ON CONFLICT (server_id, match_id) DO NOTHING
            RETURNING player1, player2, winner, forfeit, rating1, deviation1, volatility1,
              rating2, deviation2, volatility2),
          results AS (
            SELECT \(keys[0]) AS player, player1 AS name, (player1 = winner)::int AS won,
              (player1 <> winner)::int AS lost, (player1 = winner AND forfeit)::int AS by_forfeit,
              rating1 AS rating, deviation1 AS deviation, volatility1 AS volatility
              FROM added
            UNION ALL
            SELECT \(keys[1]), player2, (player2 = winner)::int, (player2 <> winner)::int,
              (player2 = winner AND forfeit)::int, rating2, deviation2, volatility2 FROM added)
          INSERT INTO roshambo_standings (player, name, won, lost, won_by_forfeit, rating,
              deviation, volatility)
            SELECT player, max(name), sum(won), sum(lost), sum(by_forfeit), max(rating),
              max(deviation), max(volatility) FROM results GROUP BY player
          ON CONFLICT (player) DO UPDATE SET name = excluded.name,
            won = roshambo_standings.won + excluded.won,
            lost = roshambo_standings.lost + excluded.lost,
            won_by_forfeit = roshambo_standings.won_by_forfeit + excluded.won_by_forfeit,
            rating = excluded.rating, deviation = excluded.deviation,
            volatility = excluded.volatility
          RETURNING player
          """, logger: logger)
        var players = 0
        for try await _ in rows { players += 1 }
        if players > 0 {
          added += 1
          order += 1
          for (key, rating) in zip(keys, after) { ratings.set(key, rating) }
          if after != before {
            try await connection.query(
              """
              INSERT INTO roshambo_rated_opponents (player, opponent)
                VALUES (\(keys[0]), \(keys[1])), (\(keys[1]), \(keys[0]))
                ON CONFLICT DO NOTHING
              """, logger: logger)
          }
        }
      }
      return added
    }
  }

  /// `match` as its seats are rated: each player by their key (``key(name:identity:)``),
  /// the winner's too.
  static func keyed(_ match: FinishedMatch) -> FinishedMatch {
    var keyed = match
    let keys = Self.keys(of: match)
    keyed.winner = match.players.firstIndex(of: match.winner).map { keys[$0] } ?? "?"
    keyed.players = keys
    return keyed
  }

  /// The kept ratings of the players `keys` (those with none are unrated), checked.
  private static func ratings(
    of keys: [String], on connection: PostgresConnection, logger: Logger
  ) async throws -> PlayerRatings {
    var ratings = PlayerRatings()
    let rows = try await connection.query(
      """
      SELECT player, name, rating, deviation, volatility FROM roshambo_standings
        WHERE player = ANY(\(keys))
      """, logger: logger)
    for try await (player, name, rating, deviation, volatility) in rows.decode(
      (String, String, Double, Double, Double).self)
    {
      let kept = Glicko2Rating(rating: rating, deviation: deviation, volatility: volatility)
      if let problem = kept.problem {
        throw HistoryError(
          "roshambo_standings holds a rating for \(LogText.quoted(name)) that cannot be one "
            + "(\(problem)); another program wrote it. Correct that row, or rate every match "
            + "again (roshambo-server history --history-url URL --rate-again); the matches "
            + "wait in the journal meanwhile")
      }
      ratings.set(player, kept)
    }
    return ratings
  }
}
