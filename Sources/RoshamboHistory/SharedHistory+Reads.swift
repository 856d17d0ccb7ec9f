import Logging
import PostgresNIO
import RoshamboCrypto
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// What servers and hosts read from the shared history: the leaderboard, the latest
/// matches, how many are kept; rows another program broke are left out and said once.
extension SharedHistory {
  /// The leaderboard's top `limit`, in its order (``LobbyView/Leader/ranksAbove(_:)``): each
  /// player's rating, matches won and lost, and how many of the wins were by forfeit;
  /// only players rated against `listedOpponents` different opponents. A row whose name
  /// breaks the protocol's name rule, or whose rating cannot be one, is left out
  /// (``HistoryRows``) and said once.
  public func leaderboard(
    limit: Int, listedOpponents: Int = Glicko2Rating.listedOpponents
  ) async throws -> [LobbyView.Leader] {
    let fetch = HistoryRows<LobbyView.Leader>.fetchCount(for: limit)
    // 110 is `Glicko2Rating.provisionalDeviation`, written out as the index has it.
    let rows = try await client.query(
      """
      SELECT name, won, lost, won_by_forfeit, rating, deviation, volatility
        FROM roshambo_standings AS standing
        WHERE \(listedOpponents) <= (SELECT count(*) FROM roshambo_rated_opponents AS rated
          WHERE rated.player = standing.player)
        ORDER BY deviation > 110 ASC, rating DESC, deviation ASC, won DESC, lost ASC,
          name COLLATE "C" ASC
        LIMIT \(fetch)
      """, logger: logger)
    var board: [(LobbyView.Leader, Glicko2Rating)] = []
    for try await (name, won, lost, byForfeit, rating, deviation, volatility) in rows.decode(
      (String, Int, Int, Int, Double, Double, Double).self)
    {
      let kept = Glicko2Rating(rating: rating, deviation: deviation, volatility: volatility)
      board.append(
        (
          LobbyView.Leader(
            name: name, won: won, lost: lost, wonByForfeit: byForfeit,
            rating: LobbyView.Rating(kept)), kept
        ))
    }
    let checked = HistoryRows(leaders: board, limit: limit)
    report(checked.broken, table: "roshambo_standings")
    return checked.kept.map(\.0)
  }

  /// The latest matches of the whole fleet, newest first, without their rounds. A match
  /// whose players, winner or room break the protocol's rules is left out
  /// (``HistoryRows``) and said once.
  public func recentMatches(limit: Int) async throws -> [FinishedMatch] {
    let fetch = HistoryRows<FinishedMatch>.fetchCount(for: limit)
    let rows = try await client.query(
      """
      SELECT match_id, room, finished_at, ruleset, best_of, player1, player2, score1, score2,
        winner, forfeit, fair FROM roshambo_matches
        ORDER BY finished_at DESC, server_id, match_id DESC LIMIT \(fetch)
      """, logger: logger)
    var matches: [FinishedMatch] = []
    for try await row in rows {
      let (
        id, room, finishedAt, ruleset, bestOf, player1, player2, score1, score2, winner, forfeit,
        fair
      ) = try row.decode(
        (Int64, String, Int64, String, Int, String, String, Int, Int, String, Bool, Bool).self)
      matches.append(
        FinishedMatch(
          id: id, room: room, finishedAt: finishedAt, ruleset: ruleset, bestOf: bestOf,
          players: [player1, player2], scores: [score1, score2], winner: winner,
          forfeit: forfeit, fair: fair))
    }
    let checked = HistoryRows(matches: matches, limit: limit)
    report(checked.broken, table: "roshambo_matches")
    return checked.kept
  }

  /// Says each of `broken` in the log, once for the life of this history.
  private func report(_ broken: [BrokenText], table: String) {
    let new = reported.withLockedValue { reported in
      broken.filter { found in
        guard reported.count < Self.maxReported else { return false }
        return reported.insert(SHA256Digest.digest(Array(found.text.utf8))).inserted
      }
    }
    for found in new {
      logger.warning(
        """
        the shared history holds \(LogText.quoted(found.text)) in \(table), which \
        \(found.problem); its rows are left out of the leaderboard and recent \
        matches. Another program wrote it: correct or delete those rows in PostgreSQL
        """, metadata: ["history": "\(address)"])
    }
  }

  /// How many matches the shared history holds, and how many of them came from `serverID`
  /// (all servers' when nil).
  public func count(serverID: String? = nil) async throws -> Int {
    let rows =
      if let serverID {
        try await client.query(
          "SELECT count(*) FROM roshambo_matches WHERE server_id = \(serverID)", logger: logger)
      } else {
        try await client.query("SELECT count(*) FROM roshambo_matches", logger: logger)
      }
    for try await count in rows.decode(Int.self) { return count }
    return 0
  }
}
