import Logging
import PostgresNIO

/// The shared history's tables: the schema's versions in order, and bringing a database
/// to this server's.
extension SharedHistory {
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

  /// The schema version whose matches are rated in Swift once the migrations have run.
  static let ratingVersion = 3

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
}
