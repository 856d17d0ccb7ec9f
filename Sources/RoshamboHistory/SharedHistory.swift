import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO
import RoshamboCrypto
import RoshamboGame
import RoshamboHub
import RoshamboProtocol
import RoshamboServer

/// A history shared by a fleet of servers, in PostgreSQL: every server's finished
/// matches, keyed by the server's journal id and the match's number there, and one
/// leaderboard kept beside them.
///
/// Invariant: a match stored twice (a retry after a crash) is one row, and counts once in
/// the standings: they move only for a row the insert really added.
public final class SharedHistory: Sendable {
  public let address: HistoryAddress
  private let client: PostgresClient
  /// Where the client's connections run: threads of their own, never the game's.
  private let group: MultiThreadedEventLoopGroup
  private let logger: Logger
  private let running: Task<Void, Never>
  /// Digests of the names and rooms read back that broke the protocol's rule and were
  /// said in the log (each once; at most ``maxReported`` remembered).
  private let reported = NIOLockedValueBox<Set<[UInt8]>>([])
  static let maxReported = 1_000

  /// The schema's versions, in order; each runs once, in a transaction, under a lock
  /// that keeps two servers starting together from running one twice.
  static let migrations: [String] = [
    """
    CREATE TABLE roshambo_matches (
      server_id text NOT NULL, match_id bigint NOT NULL, room text NOT NULL,
      finished_at bigint NOT NULL, ruleset text NOT NULL, best_of integer NOT NULL,
      player1 text NOT NULL, player2 text NOT NULL, score1 integer NOT NULL,
      score2 integer NOT NULL, winner text NOT NULL, forfeit boolean NOT NULL,
      fair boolean NOT NULL, rounds jsonb,
      stored_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (server_id, match_id));
    CREATE INDEX roshambo_matches_finished ON roshambo_matches (finished_at DESC);
    CREATE TABLE roshambo_standings (
      name text PRIMARY KEY, won bigint NOT NULL, lost bigint NOT NULL);
    CREATE INDEX roshambo_standings_rank ON roshambo_standings (won DESC, lost ASC, name);
    """,
    // How many of a player's wins were by forfeit, from the matches kept.
    """
    ALTER TABLE roshambo_standings ADD COLUMN won_by_forfeit bigint NOT NULL DEFAULT 0;
    UPDATE roshambo_standings AS standing SET won_by_forfeit = (
      SELECT count(*) FROM roshambo_matches AS kept
      WHERE kept.forfeit AND kept.winner = standing.name)
    """,
  ]

  /// Connects lazily (the first query opens a connection); nothing is sent until then.
  public init(address: HistoryAddress, logger: Logger) {
    self.address = address
    self.logger = logger
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    self.group = group
    var configuration = PostgresClient.Configuration(
      host: address.host, port: address.port, username: address.user,
      password: address.password, database: address.database,
      tls: address.requiresTLS ? .require(.makeClientConfiguration()) : .disable)
    configuration.options.maximumConnections = 2
    configuration.options.connectTimeout = .seconds(5)
    let client = PostgresClient(configuration: configuration, eventLoopGroup: group)
    self.client = client
    running = Task { await client.run() }
  }

  /// Stops the client and its threads.
  public func close() async {
    running.cancel()
    await running.value
    try? await group.shutdownGracefully()
  }

  /// Creates the tables, or brings them to this version's schema.
  public func migrate() async throws {
    let migrations = Self.migrations
    try await client.withTransaction(logger: logger) { connection in
      // One server at a time, whichever starts first (released at the commit).
      try await connection.query("SELECT pg_advisory_xact_lock(7443)", logger: logger)
      try await connection.query(
        "CREATE TABLE IF NOT EXISTS roshambo_schema (version integer NOT NULL)", logger: logger)
      let rows = try await connection.query(
        "SELECT coalesce(max(version), 0) FROM roshambo_schema", logger: logger)
      var version = 0
      for try await (found) in rows.decode(Int.self) { version = found }
      guard version <= migrations.count else {
        throw HistoryError(
          "the shared history has schema version \(version), newer than this server's "
            + "\(migrations.count); upgrade roshambo-server")
      }
      for (index, sql) in migrations.enumerated().dropFirst(version) {
        for statement in sql.split(separator: ";")
        where !statement.allSatisfy({ $0.isWhitespace }) {
          try await connection.query(PostgresQuery(unsafeSQL: String(statement)), logger: logger)
        }
        try await connection.query(
          "INSERT INTO roshambo_schema (version) VALUES (\(index + 1))", logger: logger)
      }
    }
  }

  /// Stores `matches` of the server `serverID` in one transaction; returns how many were
  /// new (a match already there is left as it is, and not counted again).
  @discardableResult
  public func store(_ matches: [FinishedMatch], serverID: String) async throws -> Int {
    guard !matches.isEmpty else { return 0 }
    let logger = self.logger
    return try await client.withTransaction(logger: logger) { connection in
      var added = 0
      for match in matches {
        guard let id = match.id, match.players.count == 2, match.scores.count == 2 else { continue }
        let rounds = match.rounds.map {
          String(decoding: MatchRecord.encode(rounds: $0), as: UTF8.self)
        }
        // The standings move only for a row this insert added (RETURNING is empty when
        // the match was already there); one row a name, since names are not unique and
        // both seats may have the same.
        let rows = try await connection.query(
          """
          WITH added AS (
            INSERT INTO roshambo_matches (server_id, match_id, room, finished_at, ruleset,
              best_of, player1, player2, score1, score2, winner, forfeit, fair, rounds)
            VALUES (\(serverID), \(id), \(match.room), \(match.finishedAt), \(match.ruleset),
              \(match.bestOf), \(match.players[0]), \(match.players[1]), \(match.scores[0]),
              \(match.scores[1]), \(match.winner), \(match.forfeit), \(match.fair),
              \(rounds)::jsonb)
            ON CONFLICT (server_id, match_id) DO NOTHING
            RETURNING player1, player2, winner, forfeit),
          results AS (
            SELECT player1 AS name, (player1 = winner)::int AS won, (player1 <> winner)::int AS lost,
              (player1 = winner AND forfeit)::int AS by_forfeit
              FROM added
            UNION ALL
            SELECT player2, (player2 = winner)::int, (player2 <> winner)::int,
              (player2 = winner AND forfeit)::int FROM added)
          INSERT INTO roshambo_standings (name, won, lost, won_by_forfeit)
            SELECT name, sum(won), sum(lost), sum(by_forfeit) FROM results GROUP BY name
          ON CONFLICT (name) DO UPDATE SET won = roshambo_standings.won + excluded.won,
            lost = roshambo_standings.lost + excluded.lost,
            won_by_forfeit = roshambo_standings.won_by_forfeit + excluded.won_by_forfeit
          RETURNING name
          """, logger: logger)
        var names = 0
        for try await _ in rows { names += 1 }
        if names > 0 { added += 1 }
      }
      return added
    }
  }

  /// Players by matches won, then fewest lost, then name: (name, won, lost, won by
  /// forfeit). A row whose name breaks the protocol's name rule is left out
  /// (``HistoryRows``) and said once.
  public func leaderboard(limit: Int) async throws -> [LeaderboardLine] {
    let fetch = HistoryRows<LeaderboardLine>.fetchCount(for: limit)
    let rows = try await client.query(
      """
      SELECT name, won, lost, won_by_forfeit FROM roshambo_standings
        ORDER BY won DESC, lost ASC, name ASC LIMIT \(fetch)
      """, logger: logger)
    var board: [LeaderboardLine] = []
    for try await (name, won, lost, byForfeit) in rows.decode((String, Int, Int, Int).self) {
      board.append((name, won, lost, byForfeit))
    }
    let checked = HistoryRows(leaders: board, limit: limit)
    report(checked.broken, table: "roshambo_standings")
    return checked.kept
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
        the shared history holds \(LogText.quoted(found.text)) in \(table), which breaks the \
        protocol's rule (\(found.problem)); its rows are left out of the leaderboard and recent \
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

extension SharedHistory {
  /// An error from PostgreSQL or the journal in the host's words (no library internals).
  public static func explain(_ error: any Error) -> String {
    if let history = error as? HistoryError { return history.description }
    let text = String(reflecting: error)
    if text.contains("connectionError") || text.contains("Connection refused")
      || text.contains("connect")
    {
      return "nothing answers there (is PostgreSQL running, and the address right?)"
    }
    if text.contains("password") || text.contains("28P01") || text.contains("28000") {
      return "PostgreSQL refused the user or password"
    }
    if text.contains("3D000") { return "the database does not exist (create it first)" }
    if text.contains("42501") { return "the user may not create or write the tables" }
    return "PostgreSQL failed (\(String(describing: error).prefix(200)))"
  }
}

/// A problem with the shared history, in the host's words.
public struct HistoryError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
