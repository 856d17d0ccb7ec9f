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
/// leaderboard kept beside them, ranked by rating.
///
/// A player is kept by their player identity (``key(name:identity:)``), not by a name: a
/// name held by one identity on one server may be another's on another server, and a
/// rating belongs to the person. A keyless player's matches are kept under the name they
/// used, and rate nobody.
///
/// Invariants: a match stored twice (a retry after a crash) is one row, and counts once in
/// the standings: they move only for a row the insert really added. Matches are rated in
/// the order they were stored (`rated_order`, one store at a time), so each row's ratings
/// and the standings' are what folding the rows in that order gives
/// (``recomputedRatings()``).
public final class SharedHistory: Sendable {
  public let address: HistoryAddress
  let client: PostgresClient
  /// Where the client's connections run: threads of their own, never the game's.
  private let group: MultiThreadedEventLoopGroup
  let logger: Logger
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
    // Ratings: each seat's after the match and each player's now; the matches so far are
    // put in the order they were stored, then rated (``rateEveryMatch(on:)``).
    """
    ALTER TABLE roshambo_matches ADD COLUMN rated_order bigint;
    ALTER TABLE roshambo_matches ADD COLUMN rating1 double precision;
    ALTER TABLE roshambo_matches ADD COLUMN deviation1 double precision;
    ALTER TABLE roshambo_matches ADD COLUMN volatility1 double precision;
    ALTER TABLE roshambo_matches ADD COLUMN rating2 double precision;
    ALTER TABLE roshambo_matches ADD COLUMN deviation2 double precision;
    ALTER TABLE roshambo_matches ADD COLUMN volatility2 double precision;
    UPDATE roshambo_matches AS kept SET rated_order = ordered.n FROM (
      SELECT server_id, match_id,
        row_number() OVER (ORDER BY stored_at, server_id, match_id) AS n
      FROM roshambo_matches) AS ordered
      WHERE kept.server_id = ordered.server_id AND kept.match_id = ordered.match_id;
    CREATE UNIQUE INDEX roshambo_matches_rated ON roshambo_matches (rated_order);
    ALTER TABLE roshambo_standings ADD COLUMN rating double precision NOT NULL DEFAULT 1500;
    ALTER TABLE roshambo_standings ADD COLUMN deviation double precision NOT NULL DEFAULT 350;
    ALTER TABLE roshambo_standings ADD COLUMN volatility double precision NOT NULL DEFAULT 0.06;
    DROP INDEX roshambo_standings_rank;
    -- The leaderboard's order (110: the deviation above which a rating is provisional).
    CREATE INDEX roshambo_standings_rank
      ON roshambo_standings ((deviation > 110), rating DESC, deviation, won DESC, lost,
        name COLLATE "C")
    """,
    // Players kept by identity: each match says which seats were rated and which
    // identities held them; the standings' key is the player's (a row kept by name
    // before this keeps the name's key, "n:" and the name); each player's rated opponents.
    """
    ALTER TABLE roshambo_matches ADD COLUMN rated boolean NOT NULL DEFAULT true;
    ALTER TABLE roshambo_matches ADD COLUMN identity1 text;
    ALTER TABLE roshambo_matches ADD COLUMN identity2 text;
    ALTER TABLE roshambo_standings ADD COLUMN player text;
    UPDATE roshambo_standings SET player = 'n:' || name;
    ALTER TABLE roshambo_standings ALTER COLUMN player SET NOT NULL;
    ALTER TABLE roshambo_standings DROP CONSTRAINT roshambo_standings_pkey;
    ALTER TABLE roshambo_standings ADD PRIMARY KEY (player);
    CREATE TABLE roshambo_rated_opponents (
      player text NOT NULL, opponent text NOT NULL, PRIMARY KEY (player, opponent));
    INSERT INTO roshambo_rated_opponents
      SELECT 'n:' || player1, 'n:' || player2 FROM roshambo_matches
        WHERE player1 <> player2 AND winner IN (player1, player2)
      UNION SELECT 'n:' || player2, 'n:' || player1 FROM roshambo_matches
        WHERE player1 <> player2 AND winner IN (player1, player2)
      ON CONFLICT DO NOTHING
    """,
    // The fleet's name book (``FleetNameBook``): each name's holder on every server;
    // `version` numbers the changes, so a server reads only what changed since it last read.
    """
    CREATE SEQUENCE roshambo_names_version;
    CREATE TABLE roshambo_names (
      folded text PRIMARY KEY, identity text NOT NULL, used_at bigint NOT NULL,
      released boolean NOT NULL DEFAULT false, server_id text NOT NULL,
      version bigint NOT NULL DEFAULT nextval('roshambo_names_version'));
    CREATE INDEX roshambo_names_changed ON roshambo_names (version)
    """,
  ]

  /// The key a player is kept by: their identity ("k:" and its 64 hex digits), or for a
  /// keyless player the name they used ("n:" and the name). The two never meet.
  public static func key(name: String, identity: String?) -> String {
    identity.map { "k:" + $0 } ?? "n:" + name
  }

  /// The keys of `match`'s seats (seat 1's, then seat 2's).
  static func keys(of match: FinishedMatch) -> [String] {
    zip(match.players, match.identities + [nil, nil]).map { key(name: $0, identity: $1) }
  }

  /// The schema version whose matches are rated in Swift once the migrations have run.
  static let ratingVersion = 3

  /// The lock that makes stores take turns, so the shared history's order is the order
  /// its matches were rated in (the migration's is 7443).
  static let storeLock = 7444

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

  /// `body` in one transaction. A ``HistoryError`` it throws comes out as itself (the
  /// client wraps what the body throws in its own error, which would hide the words).
  func transaction<Result: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresConnection) async throws -> Result
  ) async throws -> Result {
    do {
      return try await client.withTransaction(logger: logger, isolation: isolation) {
        try await body($0)
      }
    } catch let failed as PostgresTransactionError {
      if let said = failed.closureError as? HistoryError { throw said }
      throw failed
    }
  }

  /// Creates the tables, or brings them to this version's schema.
  public func migrate() async throws {
    let migrations = Self.migrations
    try await transaction { connection in
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
      // Rated once every column the rating reads is there.
      if version < Self.ratingVersion {
        try await Self.rateEveryMatch(on: connection, logger: logger)
      }
    }
  }

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
