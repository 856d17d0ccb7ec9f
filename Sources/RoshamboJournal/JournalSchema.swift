import Foundation
import GRDB
import RoshamboJournalFormat

/// The journal's tables and their history: every migration from v1 on, in order, so a
/// data directory of any earlier release opens and is brought up to date.
///
/// Invariant: migrations are only ever added at the end; a released one never changes.
enum JournalSchema {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL);
          CREATE TABLE snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
          CREATE TABLE matches (
            id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL, finished_at INTEGER NOT NULL,
            ruleset TEXT NOT NULL, best_of INTEGER NOT NULL, player1 TEXT NOT NULL,
            player2 TEXT NOT NULL, score1 INTEGER NOT NULL, score2 INTEGER NOT NULL,
            winner TEXT NOT NULL, forfeit INTEGER NOT NULL);
          """)
    }
    migrator.registerMigration("v2: rows numbered by the journal; snapshot through a row") { db in
      // AUTOINCREMENT wrote a second page (sqlite_sequence) on every commit; the journal
      // numbers its rows itself. The snapshot says which row it includes, so it can be
      // written while later rows are appended. (In v1 every row came after the snapshot.)
      try db.execute(
        sql: """
          CREATE TABLE journal_v2 (seq INTEGER PRIMARY KEY, action TEXT NOT NULL);
          INSERT INTO journal_v2 (seq, action) SELECT seq, action FROM journal;
          DROP TABLE journal;
          ALTER TABLE journal_v2 RENAME TO journal;
          ALTER TABLE snapshot ADD COLUMN through INTEGER NOT NULL DEFAULT 0;
          """)
    }
    migrator.registerMigration("v3: snapshots in parts") { db in
      // A snapshot of thousands of rooms is megabytes; written in one transaction it
      // held the hub's loop for tens of milliseconds. Now it is written a part per
      // transaction, and `generation` says which parts are the snapshot (0: `state`).
      try db.execute(
        sql: """
          CREATE TABLE snapshot_part (
            generation INTEGER NOT NULL, part INTEGER NOT NULL, bytes BLOB NOT NULL,
            PRIMARY KEY (generation, part));
          ALTER TABLE snapshot ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
          """)
    }
    migrator.registerMigration("v4: matches without AUTOINCREMENT") { db in
      // Matches are never deleted, so rowids are never reused anyway; AUTOINCREMENT
      // only wrote the sqlite_sequence page on every commit that ended a match.
      try db.execute(
        sql: """
          CREATE TABLE matches_v4 (
            id INTEGER PRIMARY KEY, room TEXT NOT NULL, finished_at INTEGER NOT NULL,
            ruleset TEXT NOT NULL, best_of INTEGER NOT NULL, player1 TEXT NOT NULL,
            player2 TEXT NOT NULL, score1 INTEGER NOT NULL, score2 INTEGER NOT NULL,
            winner TEXT NOT NULL, forfeit INTEGER NOT NULL);
          INSERT INTO matches_v4 SELECT * FROM matches;
          DROP TABLE matches;
          ALTER TABLE matches_v4 RENAME TO matches;
          """)
    }
    migrator.registerMigration("v5: a leaderboard apart from matches; a heartbeat row") { db in
      // Matches are pruned past a limit; the standings keep every player's totals so the
      // leaderboard stays right. The heartbeat is what a write probe touches while the
      // disk is failing.
      try db.execute(
        sql: """
          CREATE TABLE standings (
            name TEXT PRIMARY KEY, won INTEGER NOT NULL, lost INTEGER NOT NULL) WITHOUT ROWID;
          INSERT INTO standings (name, won, lost)
            SELECT name, SUM(name = winner), SUM(name != winner) FROM (
              SELECT player1 AS name, winner FROM matches UNION ALL
              SELECT player2 AS name, winner FROM matches)
            GROUP BY name;
          CREATE TABLE heartbeat (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL);
          """)
    }
    migrator.registerMigration("v6: journal format 2") { db in
      // Rows and the snapshot in the journal's own format, whose names no longer follow
      // the Swift types (see JournalFormat). What format 1 cannot read is left as it is,
      // for `load` to report and `--recover` to deal with.
      for row in try Row.fetchAll(db, sql: "SELECT seq, action FROM journal") {
        let text: String = row["action"]
        guard let action = try? JournalFormat.Version1.action(from: text.utf8) else { continue }
        try db.execute(
          sql: "UPDATE journal SET action = ? WHERE seq = ?",
          arguments: [String(decoding: JournalFormat.bytes(of: action), as: UTF8.self), row["seq"]])
      }
      guard
        let snapshot = try Row.fetchOne(
          db, sql: "SELECT state, generation FROM snapshot WHERE id = 1")
      else { return }
      let generation: Int64 = snapshot["generation"]
      var bytes = Data()
      if generation == 0 {
        bytes = Data((snapshot["state"] as String).utf8)
      } else {
        for part in try Data.fetchAll(
          db, sql: "SELECT bytes FROM snapshot_part WHERE generation = ? ORDER BY part",
          arguments: [generation])
        {
          bytes.append(part)
        }
      }
      guard let lobby = try? JournalFormat.Version1.lobby(from: bytes) else { return }
      try db.execute(
        sql: "UPDATE snapshot SET state = ?, generation = 0 WHERE id = 1",
        arguments: [String(decoding: JournalFormat.bytes(of: lobby), as: UTF8.self)])
      try db.execute(sql: "DELETE FROM snapshot_part")
    }
    migrator.registerMigration("v7: which matches were fair") { db in
      try db.execute(sql: "ALTER TABLE matches ADD COLUMN fair INTEGER NOT NULL DEFAULT 0")
    }
    migrator.registerMigration("v8: standings folded in the background") { db in
      // A commit that ended matches updated each player's row in `standings`, a page
      // of its own per player: most of what a commit wrote. Now a commit only appends the
      // matches, and a fold adds a batch of them to the standings later; `through` is the
      // last match folded (every match so far is in the standings).
      try db.execute(
        sql: """
          CREATE TABLE standings_folded (
            id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL);
          INSERT INTO standings_folded (id, through) SELECT 1, COALESCE(MAX(id), 0) FROM matches;
          """)
    }
    migrator.registerMigration("v9: rows in two tables used in turn") { db in
      try db.execute(
        sql: "CREATE TABLE journal_b (seq INTEGER PRIMARY KEY, action TEXT NOT NULL)")
    }
    migrator.registerMigration("v10: each match's result per player") { db in
      // One rule for who won and lost a match, for folding the standings and for the
      // matches the leaderboard counts before they are folded.
      try db.execute(
        sql: """
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won FROM matches
            UNION ALL SELECT id, player2, player2 = winner FROM matches
          """)
    }
    migrator.registerMigration("v11: each match's rounds") { db in
      // The rounds of a match as a JSON array of the contract's round objects (with
      // commitments and nonces in a fair match); null for a match kept before this.
      try db.execute(sql: "ALTER TABLE matches ADD COLUMN rounds TEXT")
    }
    migrator.registerMigration("v12: matches waiting to be shipped; this journal's id") { db in
      // A match to ship to a shared history has a row here, written in the commit that
      // records it, and keeps it (and its match) until the history has acknowledged it.
      try db.execute(sql: "CREATE TABLE history_outbox (match_id INTEGER PRIMARY KEY)")
      // The id that names this server's matches in a shared history: made once, here.
      try db.execute(sql: "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
      try db.execute(
        sql: "INSERT INTO meta (key, value) VALUES ('server_id', lower(hex(randomblob(16))))")
    }
    migrator.registerMigration("v13: matches won by forfeit in the standings") { db in
      // The leaderboard says how many of a player's wins were forfeits. The standings
      // learn it from the matches still kept (those pruned before this knew no forfeit).
      try db.execute(
        sql: """
          ALTER TABLE standings ADD COLUMN won_by_forfeit INTEGER NOT NULL DEFAULT 0;
          DROP VIEW match_results;
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won,
              player1 = winner AND forfeit != 0 AS won_by_forfeit FROM matches
            UNION ALL SELECT id, player2, player2 = winner, player2 = winner AND forfeit != 0
              FROM matches;
          UPDATE standings SET won_by_forfeit = (
            SELECT COUNT(*) FROM match_results AS result
            WHERE result.name = standings.name AND result.won_by_forfeit
              AND result.id <= (SELECT through FROM standings_folded WHERE id = 1));
          """)
    }
    migrator.registerMigration("v14: ratings kept with each match and in the standings") { db in
      // Each seat's Glicko-2 rating after the match, and each player's after the last
      // match folded into the standings; the leaderboard ranks by them. They are computed
      // here from the matches kept, in order: a player whose matches were all pruned
      // before this starts again as new (provisional).
      try db.execute(
        sql: """
          ALTER TABLE matches ADD COLUMN rating1 REAL;
          ALTER TABLE matches ADD COLUMN deviation1 REAL;
          ALTER TABLE matches ADD COLUMN volatility1 REAL;
          ALTER TABLE matches ADD COLUMN rating2 REAL;
          ALTER TABLE matches ADD COLUMN deviation2 REAL;
          ALTER TABLE matches ADD COLUMN volatility2 REAL;
          ALTER TABLE standings ADD COLUMN rating REAL NOT NULL DEFAULT 1500;
          ALTER TABLE standings ADD COLUMN deviation REAL NOT NULL DEFAULT 350;
          ALTER TABLE standings ADD COLUMN volatility REAL NOT NULL DEFAULT 0.06;
          DROP VIEW match_results;
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won,
              player1 = winner AND forfeit != 0 AS won_by_forfeit,
              rating1 AS rating, deviation1 AS deviation, volatility1 AS volatility FROM matches
            UNION ALL SELECT id, player2, player2 = winner, player2 = winner AND forfeit != 0,
              rating2, deviation2, volatility2 FROM matches;
          """)
      try Journal.rateKeptMatches(db)
    }
    migrator.registerMigration("v15: which matches are rated; each player's rated opponents") {
      db in
      // A match kept before this was rated: ratings are history, and stay as they were.
      // The leaderboard lists a player only once they have been rated against enough
      // different opponents: the pairs are kept here (pruned matches are not found).
      try db.execute(
        sql: """
          ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 1;
          CREATE TABLE rated_opponents (
            name TEXT NOT NULL, opponent TEXT NOT NULL, PRIMARY KEY (name, opponent))
            WITHOUT ROWID;
          INSERT OR IGNORE INTO rated_opponents
            SELECT player1, player2 FROM matches
              WHERE player1 != player2 AND winner IN (player1, player2)
            UNION SELECT player2, player1 FROM matches
              WHERE player1 != player2 AND winner IN (player1, player2);
          """)
    }
    migrator.registerMigration("v16: the identity holding each seat's name") { db in
      // What a shared history rates a fleet's players by; null for a keyless player and
      // for a match kept before this.
      try db.execute(
        sql: """
          ALTER TABLE matches ADD COLUMN identity1 TEXT;
          ALTER TABLE matches ADD COLUMN identity2 TEXT;
          """)
    }
    migrator.registerMigration("v17: finished matches committed in their action's row") { db in
      // A commit that ends a match writes it beside the action that ended it (one page
      // where a row of `matches` is a second one); the journal's thread moves it to
      // `matches` right after and empties the column (``Journal/settleMatches()``).
      try db.execute(
        sql: """
          ALTER TABLE journal ADD COLUMN finished TEXT;
          ALTER TABLE journal_b ADD COLUMN finished TEXT;
          """)
    }
    return migrator
  }
}
