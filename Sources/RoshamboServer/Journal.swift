import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol

/// A finished match, kept for `roshambo-server history`.
public struct FinishedMatch: Sendable, Equatable {
  public var room: String
  public var finishedAt: Int64
  public var ruleset: String
  public var bestOf: Int
  public var players: [String]
  public var scores: [Int]
  /// The winner's name.
  public var winner: String
  /// Whether the loser gave up (left or never came back).
  public var forfeit: Bool
  /// Whether the match was played by commit–reveal.
  public var fair: Bool

  /// The finished match of `room`, which must be over.
  init(room: RoomState, at: Int64) {
    let seats = Seat.allCases.map { room.seats[$0] }
    self.room = room.name
    self.finishedAt = at
    self.ruleset = room.settings.ruleset.rawValue
    self.bestOf = room.settings.bestOf
    self.players = seats.map { $0?.name ?? "?" }
    self.scores = seats.map { $0?.score ?? 0 }
    self.winner = room.winner.flatMap { room.seats[$0]?.name } ?? "?"
    self.forfeit = seats.contains { $0?.hasLeft == true } && !self.scores.contains(room.winsNeeded)
    self.fair = room.settings.fair
  }
}

/// The server's durable memory in one SQLite file: the journal of accepted lobby actions
/// (and a snapshot it folds onto), and the finished matches.
///
/// Invariant: an action is in the journal (committed, in WAL mode) before any client
/// sees its result; the snapshot is the lobby after the journal's row `through`, and
/// replaying the rows after it gives the lobby as it was. Rows are numbered by the
/// journal itself, one up per action, never reused. Not `Sendable`: used from one thread
/// at a time, the hub's loop (a commit while the disk is quick) or the journal's thread
/// (everything else), the `JournalThread`'s lock deciding which.
final class Journal {
  /// Migrations, loading, history and checkpoints.
  private let database: DatabaseQueue
  /// What the hub writes while the game runs.
  private let writer: JournalWriter
  private var commitsSinceCheckpoint = 0
  /// Whether a checkpoint is running (shared with the thread that runs it).
  private let checkpointing = Flag()
  private let checkpoints = DispatchGroup()

  private final class Flag: Sendable {
    let value = NIOLockedValueBox(false)
  }
  let path: String
  /// The number of the last journaled action.
  private(set) var lastSeq: Int64 = 0
  /// The rows table new rows go to: the journal's rows live in two tables used in turn
  /// (``rowTables``), and a commit whose batch a snapshot will include sends the rows
  /// after it to the other one. Once the snapshot has taken over, a table that holds only
  /// rows it includes is emptied in one statement, which writes a few pages where
  /// deleting its rows one by one rewrote every page they were on.
  private var rowTable = rowTables[0]
  static let rowTables = ["journal", "journal_b"]
  /// The generation of the snapshot's parts (0: the snapshot is in `snapshot.state`).
  private var generation: Int64 = 0
  /// Finished matches kept for `history`; older ones are pruned a batch at a time (the
  /// leaderboard is kept apart, so it stays right).
  let keepMatches: Int
  /// Matches in the table now.
  private var matchCount = 0
  /// The last match whose result is in the standings; later ones are folded in by
  /// ``foldStandings()``, off the commit's path (the leaderboard counts them meanwhile).
  private var foldedThrough: Int64 = 0
  /// Matches not folded into the standings yet.
  private(set) var unfoldedMatches = 0
  /// Players on the leaderboard now. Past ``keepStandings`` + ``standingsBatch`` the
  /// least successful batch is dropped, so a flood of new names cannot grow the file
  /// without bound while the top of the leaderboard stays right.
  private var standingsCount = 0
  static let keepStandings = 10_000
  static let standingsBatch = 1_000
  /// Matches folded into the standings in one transaction, at most; also how many wait
  /// before a fold is due (``foldIsDue``).
  static let foldBatch = 500
  /// What was found while opening that an operator should fix (files readable by others).
  private(set) var warnings: [String] = []

  /// Opens (or creates) `roshambo.sqlite` in `directory`: the directory mode 0700, the
  /// files 0600 (existing ones that are wider are reported in ``warnings``).
  init(directory: String, keepMatches: Int = 10_000) throws {
    self.keepMatches = max(1, keepMatches)
    let files = FileManager.default
    if files.fileExists(atPath: directory) {
      if let mode = Self.mode(of: directory), mode & 0o077 != 0 {
        warnings.append(
          "\(directory) is readable by others (mode \(String(mode, radix: 8))); "
            + "run chmod 700 \(directory)")
      }
    } else {
      try files.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    path = (directory as NSString).appendingPathComponent("roshambo.sqlite")
    for file in [path, path + "-wal", path + "-shm"] {
      if let mode = Self.mode(of: file), mode & 0o077 != 0 {
        warnings.append(
          "\(file) is readable by others (mode \(String(mode, radix: 8))); run chmod 600 \(file)")
      }
    }
    if !files.fileExists(atPath: path) {
      // SQLite gives the -wal and -shm files the database file's mode.
      guard files.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
      else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
    }
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      // WAL: a commit is an append to the log, durable across a crash of the process.
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    database = try DatabaseQueue(path: path, configuration: configuration)
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
    try migrator.migrate(database)
    writer = try JournalWriter(path: path)
    (matchCount, standingsCount, foldedThrough, unfoldedMatches) = try database.read {
      let through =
        try Int64.fetchOne($0, sql: "SELECT through FROM standings_folded WHERE id = 1") ?? 0
      return (
        try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM matches") ?? 0,
        try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM standings") ?? 0,
        through,
        try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM matches WHERE id > ?", arguments: [through])
          ?? 0
      )
    }
    (lastSeq, generation, rowTable) = try database.read { db in
      let row = try Row.fetchOne(
        db,
        sql: """
          SELECT COALESCE((SELECT MAX(seq) FROM journal), 0) AS a,
            COALESCE((SELECT MAX(seq) FROM journal_b), 0) AS b,
            COALESCE((SELECT through FROM snapshot WHERE id = 1), 0) AS through,
            COALESCE((SELECT generation FROM snapshot WHERE id = 1), 0) AS generation
          """)
      let (a, b): (Int64, Int64) = (row?["a"] ?? 0, row?["b"] ?? 0)
      // New rows go on after the newest row, in its table.
      return (
        max(a, b, row?["through"] ?? 0), row?["generation"] ?? 0, Self.rowTables[b > a ? 1 : 0]
      )
    }
  }

  /// The lobby as saved: the snapshot with every journaled action folded onto it. A
  /// snapshot or row that cannot be read or replayed throws a ``JournalError`` naming it;
  /// with `stopAtBadRow` loading stops there instead and says where (for `--recover`).
  func load(defaults: RoomState.Settings, stopAtBadRow: Bool = false) throws -> (
    lobby: LobbyState, actions: Int, badRow: JournalError?
  ) {
    try database.read { db in
      var lobby = LobbyState(defaults: defaults)
      var through: Int64 = 0
      if let row = try Row.fetchOne(
        db, sql: "SELECT state, through, generation FROM snapshot WHERE id = 1")
      {
        let generation: Int64 = row["generation"]
        var bytes = Data()
        if generation == 0 {
          bytes = Data((row["state"] as String).utf8)
        } else {
          let parts = try Data.fetchCursor(
            db, sql: "SELECT bytes FROM snapshot_part WHERE generation = ? ORDER BY part",
            arguments: [generation])
          while let part = try parts.next() { bytes.append(part) }
        }
        do {
          lobby = try JournalFormat.lobby(from: bytes)
        } catch {
          throw JournalError.badSnapshot(path: path, problem: Self.describe(error))
        }
        through = row["through"]
      }
      lobby.defaults = defaults
      var count = 0
      var badRow: JournalError?
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT seq, action FROM journal WHERE seq > ?1
          UNION ALL SELECT seq, action FROM journal_b WHERE seq > ?1 ORDER BY seq
          """, arguments: [through])
      while let row = try rows.next() {
        let seq: Int64 = row["seq"]
        let text: String = row["action"]
        do {
          let action = try JournalFormat.action(from: text.utf8)
          // The rules, then the live server's own reducer: a replay is the game again.
          if let refusal = lobby.refusal(for: action) {
            throw JournalError.badRow(
              path: path, seq: seq, problem: "the rules refuse it: \(refusal.message)")
          }
          HubReducer().reduce(into: &lobby, action: .lobby(action, origin: nil))
        } catch {
          let failure =
            error as? JournalError
            ?? .badRow(path: path, seq: seq, problem: Self.describe(error))
          guard stopAtBadRow else { throw failure }
          badRow = failure
          break
        }
        count += 1
      }
      Self.upgradeTokens(&lobby)
      return (lobby, count, badRow)
    }
  }

  /// Seats saved before tokens were hashed hold the token itself: hash it.
  private static func upgradeTokens(_ lobby: inout LobbyState) {
    for (name, room) in lobby.rooms {
      for (seat, held) in room.seats where !held.token.hasPrefix(ResumeToken.prefix) {
        lobby.rooms[name]!.seats[seat]!.token = ResumeToken.upgraded(held.token)
      }
    }
  }

  /// A decoding error in one line.
  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
      DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return "not a journal entry: \(context.debugDescription)"
        + (path.isEmpty ? "" : " at \(path)")
    default:
      return "\(error)"
    }
  }

  /// Moves a damaged journal aside (renamed, never deleted) and starts a new one in the
  /// same directory from the last good state: the snapshot and the rows before the first
  /// bad one (empty rooms if the snapshot itself is bad). Finished matches and the
  /// leaderboard are copied over. Returns where the old file went and what was lost.
  static func recover(directory: String, defaults: RoomState.Settings, keepMatches: Int)
    throws -> (movedTo: String, lobby: LobbyState, problem: String?)
  {
    let old = try Journal(directory: directory, keepMatches: keepMatches)
    var lobby = LobbyState(defaults: defaults)
    var problem: String?
    do {
      let loaded = try old.load(defaults: defaults, stopAtBadRow: true)
      lobby = loaded.lobby
      problem = loaded.badRow.map { "\($0)" }
    } catch {
      problem = "\(error)"
    }
    old.waitForCheckpoints()
    try old.database.close()
    old.writer.close()
    let stamp = Int64(Date().timeIntervalSince1970)
    let movedTo = old.path + ".damaged-\(stamp)"
    for suffix in ["", "-wal", "-shm"]
    where FileManager.default.fileExists(atPath: old.path + suffix) {
      try FileManager.default.moveItem(atPath: old.path + suffix, toPath: movedTo + suffix)
    }
    let fresh = try Journal(directory: directory, keepMatches: keepMatches)
    try fresh.compact(lobby)
    // What the old file still has of matches and standings comes along.
    try? fresh.database.writeWithoutTransaction { db in
      try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [movedTo])
      do {
        try db.execute(sql: "INSERT INTO matches SELECT * FROM old.matches")
      } catch {
        // An old file from before "v7" has no `fair` column: its matches were not fair.
        try? db.execute(
          sql: """
            INSERT INTO matches (id, room, finished_at, ruleset, best_of, player1, player2,
              score1, score2, winner, forfeit)
            SELECT id, room, finished_at, ruleset, best_of, player1, player2, score1, score2,
              winner, forfeit FROM old.matches
            """)
      }
      try? db.execute(sql: "INSERT OR REPLACE INTO standings SELECT * FROM old.standings")
      // The standings hold the old file's matches through its fold mark (all of them, in
      // a file from before "v8").
      do {
        try db.execute(
          sql: "UPDATE standings_folded SET through = (SELECT through FROM old.standings_folded)")
      } catch {
        try? db.execute(
          sql: "UPDATE standings_folded SET through = (SELECT COALESCE(MAX(id), 0) FROM matches)")
      }
      try db.execute(sql: "DETACH DATABASE old")
    }
    return (movedTo, lobby, problem)
  }

  /// Limits the database to `pages` pages: past it writes fail as on a full disk (a test
  /// seam for write failures; see ``JournalWriter/limitPages(_:)``).
  func limitPages(_ pages: Int) throws { try writer.limitPages(pages) }

  /// Limits the database to the pages it has now.
  func limitPagesToCurrent() throws { try writer.limitPages(try writer.pageCount()) }

  /// Whether the journal can be written now: one tiny transaction. While the disk is
  /// failing the hub calls this until it succeeds.
  func probe(at: Int64) throws {
    try writer.transaction {
      try writer.run("INSERT OR REPLACE INTO heartbeat (id, at) VALUES (1, ?)", .int(at))
    }
  }

  /// Replaces snapshot and journal with one snapshot of `lobby`, which must be the
  /// lobby after every journaled action.
  func compact(_ lobby: LobbyState) throws {
    var snapshot = beginSnapshot(Self.snapshotParts(lobby), through: lastSeq)
    while try writeNextPart(of: &snapshot) {}
  }

  /// The most bytes of snapshot written in one transaction (8 pages): a commit asked
  /// while a part is written waits for it.
  static let snapshotPartSize = 32 * 1024

  /// A lobby as the snapshot stores it, in parts of at most ``snapshotPartSize`` bytes.
  /// Pure and `Sendable`, so the server encodes it away from the hub's loop: for
  /// thousands of rooms it takes tens of milliseconds.
  static func snapshotParts(_ lobby: LobbyState) -> [[UInt8]] {
    let bytes = JournalFormat.bytes(of: lobby)
    return stride(from: 0, to: bytes.count, by: snapshotPartSize).map {
      [UInt8](bytes[$0..<min($0 + snapshotPartSize, bytes.count)])
    }
  }

  /// A snapshot being written: the lobby after row `through`, in parts.
  struct PendingSnapshot: Sendable {
    let generation: Int64
    let through: Int64
    let parts: [[UInt8]]
    fileprivate var written = 0
    fileprivate var switched = false
    fileprivate var rowsLeft = true
  }

  /// Starts a snapshot of the lobby after row `through`, as `parts` made by
  /// ``snapshotParts(_:)``; ``writeNextPart(of:)`` writes it.
  func beginSnapshot(_ parts: [[UInt8]], through: Int64) -> PendingSnapshot {
    PendingSnapshot(generation: generation + 1, through: through, parts: parts)
  }

  /// Rows dropped per transaction once a snapshot has taken over (about 12 pages).
  static let cleanupBatch = 500

  /// Takes the snapshot's next step in one small transaction, and returns whether
  /// there are more: each part; then the switch (from here on loading starts from the
  /// new snapshot: until then it loads as before, so a crash in between loses
  /// nothing); then dropping the rows it includes and the old parts, a batch at a time
  /// (what a crash leaves of those is ignored, and dropped by the next snapshot).
  func writeNextPart(of snapshot: inout PendingSnapshot) throws -> Bool {
    if snapshot.written < snapshot.parts.count {
      try snapshot.parts[snapshot.written].withUnsafeBytes { bytes in
        try writer.transaction {
          try writer.run(
            "INSERT OR REPLACE INTO snapshot_part (generation, part, bytes) VALUES (?, ?, ?)",
            .int(snapshot.generation), .int(Int64(snapshot.written)), .blob(bytes))
        }
      }
      snapshot.written += 1
    } else if !snapshot.switched {
      try writer.transaction {
        try writer.run(
          """
          INSERT OR REPLACE INTO snapshot (id, state, through, generation) VALUES (1, '', ?, ?)
          """, .int(snapshot.through), .int(snapshot.generation))
      }
      generation = snapshot.generation
      snapshot.switched = true
    } else if snapshot.rowsLeft {
      snapshot.rowsLeft = try dropIncludedRows(through: snapshot.through)
    } else {
      try writer.transaction {
        try writer.run(
          """
          DELETE FROM snapshot_part WHERE rowid IN (
            SELECT rowid FROM snapshot_part WHERE generation != ? LIMIT 32)
          """, .int(snapshot.generation))
      }
      return writer.changes == 32
    }
    return true
  }

  /// One step of dropping the rows a snapshot through row `through` includes: a table
  /// holding only such rows is emptied at once; from a table that also holds later rows
  /// (after a snapshot that failed, or one taken without a turn of the tables) they go a
  /// batch at a time. Returns whether any may be left.
  private func dropIncludedRows(through: Int64) throws -> Bool {
    for table in Self.rowTables {
      let (first, last) = try writer.integers(
        "SELECT COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) FROM \(table)")
      guard first != 0, first <= through else { continue }
      try writer.transaction {
        if last <= through {
          try writer.run("DELETE FROM \(table)")
        } else {
          try writer.run(
            """
            DELETE FROM \(table) WHERE seq IN (
              SELECT seq FROM \(table) WHERE seq <= ? ORDER BY seq LIMIT \(Self.cleanupBatch))
            """, .int(through))
        }
      }
      return true
    }
    return false
  }

  /// Commits `actions` and `matches` in one transaction, on the hub's own connection.
  /// Both are appended at the end of their tables, so a commit writes few pages; the
  /// standings and the pruning of old matches wait for ``foldStandings()``. With
  /// `snapshotAfter`, a snapshot will include this batch: later rows go to the other
  /// rows table.
  func append(_ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool = false)
    throws
  {
    var json = JSONText(capacity: 128)
    try writer.transaction {
      for (offset, action) in actions.enumerated() {
        json.removeAll()
        json.journalRow(action)
        try json.bytes.withUnsafeBufferPointer { text in
          try writer.run(
            "INSERT INTO \(rowTable) (seq, action) VALUES (?, ?)",
            .int(lastSeq + Int64(offset) + 1), .bytes(text))
        }
      }
      for match in matches {
        try writer.run(
          """
          INSERT INTO matches (room, finished_at, ruleset, best_of, player1, player2, score1,
            score2, winner, forfeit, fair) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """, .text(match.room), .int(match.finishedAt), .text(match.ruleset),
          .int(Int64(match.bestOf)), .text(match.players[0]), .text(match.players[1]),
          .int(Int64(match.scores[0])), .int(Int64(match.scores[1])), .text(match.winner),
          .int(match.forfeit ? 1 : 0), .int(match.fair ? 1 : 0))
      }
    }
    matchCount += matches.count
    unfoldedMatches += matches.count
    lastSeq += Int64(actions.count)
    if snapshotAfter { rowTable = Self.rowTables.first { $0 != rowTable }! }
    commitsSinceCheckpoint += 1
    if commitsSinceCheckpoint >= Self.checkpointInterval { checkpointInBackground() }
  }

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
          INSERT INTO standings (name, won, lost)
            SELECT name, SUM(won), SUM(1 - won) FROM match_results WHERE id > ? AND id <= ?
            GROUP BY name
          ON CONFLICT (name) DO UPDATE SET won = won + excluded.won, lost = lost + excluded.lost
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
            SELECT id FROM matches WHERE id <= ? ORDER BY id LIMIT ?)
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

  /// Commits between checkpoints: each commit adds at least one page to the WAL.
  static let checkpointInterval = 500

  /// Copies the WAL's pages into the database file on another thread and connection
  /// (a passive checkpoint never waits for the writer), so the fsyncs it takes never
  /// hold up the hub; the WAL is then reused from its start.
  private func checkpointInBackground() {
    let idle = checkpointing.value.withLockedValue { running in
      defer { running = true }
      return !running
    }
    guard idle else { return }
    commitsSinceCheckpoint = 0
    let database = self.database
    let checkpointing = self.checkpointing
    DispatchQueue.global(qos: .utility).async(group: checkpoints) {
      _ = try? database.writeWithoutTransaction { try $0.checkpoint(.passive) }
      checkpointing.value.withLockedValue { $0 = false }
    }
  }

  /// A file's permission bits, or nil if it does not exist.
  private static func mode(of path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
  }

  /// Waits for a checkpoint that is running (for tests and shutdown).
  func waitForCheckpoints() { checkpoints.wait() }

  /// The most recent finished matches, newest first.
  func recentMatches(limit: Int) throws -> [FinishedMatch] {
    try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT room, finished_at, ruleset, best_of, player1, player2, score1, score2, winner,
            forfeit, fair FROM matches ORDER BY id DESC LIMIT ?
          """, arguments: [limit]
      ).map { row in
        var match = FinishedMatch(room: RoomState(name: row["room"]), at: row["finished_at"])
        match.ruleset = row["ruleset"]
        match.bestOf = row["best_of"]
        match.players = [row["player1"], row["player2"]]
        match.scores = [row["score1"], row["score2"]]
        match.winner = row["winner"]
        match.forfeit = row["forfeit"]
        match.fair = row["fair"]
        return match
      }
    }
  }

  /// Players by matches won, then by fewest lost: (name, won, lost). Matches not folded
  /// into the standings yet are counted too.
  func leaderboard(limit: Int) throws -> [(name: String, won: Int, lost: Int)] {
    try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT name, SUM(won) AS won, SUM(lost) AS lost FROM (
            SELECT name, won, lost FROM standings
            UNION ALL SELECT name, won, 1 - won FROM match_results
            WHERE id > (SELECT through FROM standings_folded WHERE id = 1))
          GROUP BY name ORDER BY won DESC, lost ASC, name ASC LIMIT ?
          """, arguments: [limit]
      ).map { ($0["name"], $0["won"], $0["lost"]) }
    }
  }
}
