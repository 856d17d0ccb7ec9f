import Foundation
import GRDB
import GRDBSQLite
import NIOConcurrencyHelpers
import NIOPosix
import RoshamboGame
import RoshamboJSON
import RoshamboJournalFormat
import RoshamboProtocol
import RoshamboServer

/// The server's durable memory in one SQLite file: the journal of accepted lobby actions
/// (and a snapshot it folds onto), and the finished matches.
///
/// Invariant: an action is in the journal (committed, in WAL mode) before any client
/// sees its result, and so is a match it ended (in its row until it is settled into
/// `matches`); the snapshot is the lobby after the journal's row `through`, and
/// replaying the rows after it gives the lobby as it was. Rows are numbered by the
/// journal itself, one up per action, never reused. Not `Sendable`: used from one thread
/// at a time, the hub's loop (a commit while the disk is quick) or the journal's thread
/// (everything else), the `JournalThread`'s lock deciding which.
package final class Journal {
  /// Migrations, loading, history and checkpoints (the extensions in `Journal+*.swift`
  /// and `JournalSchema` use it too).
  let database: DatabaseQueue
  /// What the hub writes while the game runs.
  let writer: JournalWriter
  private var commitsSinceCheckpoint = 0
  /// Commits since the WAL grew past ``walFrameLimit`` (0: it is shorter).
  private var commitsWhileWALIsLong = 0
  /// Commits between checkpoints on the other connection.
  let checkpointInterval: Int
  /// See ``defaultWALFrameLimit``.
  let walFrameLimit: Int
  /// Whether a checkpoint is running (shared with the thread that runs it).
  private let checkpointing = Flag()
  /// Counts the checkpoints running (``waitForCheckpoints()``).
  private let checkpoints = DispatchGroup()
  /// The journal's low-priority thread (snapshot encoding, checkpoints); without one
  /// (tools, tests) a checkpoint runs on the caller's thread.
  private let background: NIOThreadPool?

  private final class Flag: Sendable {
    let value = NIOLockedValueBox(false)
  }
  let path: String
  /// The rows committed and not yet in the database, when the journal keeps a tail
  /// (a server's with `--durability process`): see ``JournalTail``.
  private(set) var tail: JournalTail?
  /// The number of the last journaled action (the tail's, when there is one).
  var lastSeq: Int64 {
    get { tail?.lastSeq ?? ownLastSeq }
    set {
      if let tail { tail.lastSeq = newValue } else { ownLastSeq = newValue }
    }
  }
  private var ownLastSeq: Int64 = 0
  /// The rows table new rows go to: the journal's rows live in two tables used in turn
  /// (``rowTables``), and a commit whose batch a snapshot will include sends the rows
  /// after it to the other one. Once the snapshot has taken over, a table that holds only
  /// rows it includes is emptied in one statement, which writes a few pages where
  /// deleting its rows one by one rewrote every page they were on.
  var rowTable: String {
    get { Self.rowTables[tail?.table ?? ownRowTable] }
    set {
      let index = Self.rowTables.firstIndex(of: newValue) ?? 0
      if let tail { tail.table = index } else { ownRowTable = index }
    }
  }
  private var ownRowTable = 0
  static let rowTables = ["journal", "journal_b"]
  /// The generation of the snapshot's parts (0: the snapshot is in `snapshot.state`).
  var generation: Int64 = 0
  /// Finished matches kept for `history`; older ones are pruned a batch at a time (the
  /// leaderboard is kept apart, so it stays right).
  let keepMatches: Int
  /// Whether each match committed is also put in the outbox for a shared history
  /// (``JournalThread/unshipped(limit:)``).
  let shipsHistory: Bool
  /// Matches the outbox holds at most (``trimOutbox()``).
  let maxOutbox: Int
  static let defaultMaxOutbox = 100_000
  /// Matches in the outbox now, and how many left it unshipped, for scrapes and the
  /// shipper.
  let outboxLevel: OutboxLevel
  /// Matches in the outbox now (published in ``outboxLevel``).
  var outboxCount = 0
  /// Matches in the table now.
  var matchCount = 0
  /// The last match whose result is in the standings; later ones are folded in by
  /// ``foldStandings()``, off the commit's path (the leaderboard counts them meanwhile).
  var foldedThrough: Int64 = 0
  /// Matches not folded into the standings yet.
  var unfoldedMatches = 0
  /// Players on the leaderboard now. Past ``keepStandings`` + ``standingsBatch`` the
  /// least successful batch is dropped, so a flood of new names cannot grow the file
  /// without bound while the top of the leaderboard stays right.
  var standingsCount = 0
  static let keepStandings = 10_000
  /// The different rated opponents a player needs to be listed on the leaderboard
  /// (``Glicko2Rating/listedOpponents``; tests of other things list everyone).
  var listedOpponents = Glicko2Rating.listedOpponents
  static let standingsBatch = 1_000
  /// Matches folded into the standings in one transaction, at most; also how many wait
  /// before a fold is due (``foldIsDue``).
  static let foldBatch = 500
  /// What was found while opening that an operator should fix (files readable by others).
  private(set) var warnings: [String] = []
  /// Every player's rating as the journal keeps it (``keptRatings(_:path:)``), so that a
  /// commit rates its matches without reading: read at opening, and again after the
  /// standings drop players.
  var ratings = PlayerRatings()
  /// A kept rating that cannot be one, found at opening: ``Journal/load(defaults:stopAtBadRow:)``
  /// throws it, and `--recover` rates every player again.
  private(set) var badRatings: JournalError?
  /// Finished matches written in their actions' rows and not yet in `matches`, by the
  /// row that holds them (see ``settleMatches()``).
  var unsettled: [(seq: Int64, matches: [FinishedMatch])] = []
  /// Matches in a row that cannot be read back, found at opening:
  /// ``Journal/load(defaults:stopAtBadRow:)`` throws it.
  private(set) var badUnsettled: JournalError?

  /// Opens (or creates) `roshambo.sqlite` in `directory`: the directory mode 0700, the
  /// files 0600 (existing ones that are wider are reported in ``warnings``). With
  /// `durability` `.power` every commit is synced to the disk before it returns; `vfs`
  /// names the SQLite VFS that opens the files (nil: SQLite's default; tests give one
  /// that simulates power cuts).
  init(
    directory: String, keepMatches: Int = 10_000, shipsHistory: Bool = false,
    maxOutbox: Int = Journal.defaultMaxOutbox, background: NIOThreadPool? = nil,
    durability: JournalDurability = .process, vfs: String? = nil,
    checkpointInterval: Int = Journal.defaultCheckpointInterval,
    walFrameLimit: Int = Journal.defaultWALFrameLimit, keepsTail: Bool = false,
    tailRegionBytes: Int = JournalTail.defaultRegionBytes
  ) throws {
    self.keepMatches = max(1, keepMatches)
    self.checkpointInterval = max(1, checkpointInterval)
    self.walFrameLimit = max(1, walFrameLimit)
    self.shipsHistory = shipsHistory
    self.maxOutbox = max(1, maxOutbox)
    outboxLevel = OutboxLevel(bound: self.maxOutbox)
    self.background = background
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
    for file in [path, path + "-wal", path + "-shm", path + Self.tailSuffix] {
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
    // A journal this process closed a moment ago may still be finishing its last
    // checkpoint on another thread: wait for it rather than take it for another server's.
    configuration.busyMode = .timeout(2)
    let synchronous = Self.synchronous(durability)
    configuration.prepareDatabase { db in
      // WAL: a commit is an append to the log, durable across a crash of the process;
      // with FULL the log is also synced at each commit, durable across a power cut.
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
    }
    // Every connection of the server's goes through one VFS, `unix-excl` unless a test
    // names its own: the process takes the file's lock once and keeps it, and the WAL's
    // index lives in this process's memory, so a commit takes no `fcntl` lock (five
    // before, about a fifth of a commit's time) while the journal's connections still
    // share the file. Another process cannot open the journal meanwhile: tools ask the
    // server instead (``JournalSocket``).
    let vfs = vfs ?? Self.serverVFS
    do {
      database = try DatabaseQueue(path: Self.uri(path, vfs: vfs), configuration: configuration)
      try JournalSchema.migrator.migrate(database)
      writer = try JournalWriter(path: path, synchronous: synchronous, vfs: vfs)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      throw JournalError.inUse(path: path)
    } catch let error as JournalWriter.Failure where error.code == SQLITE_BUSY {
      throw JournalError.inUse(path: path)
    }
    // Rows a process that ended left in its tail go to the database before anything
    // reads it.
    try moveTailIntoDatabase()
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
    do {
      ratings = try keptRatings()
    } catch let bad as JournalError {
      badRatings = bad
    }
    // Matches a process that ended right after their commit left in their rows.
    if badRatings == nil {
      do {
        try readUnsettledMatches()
        try settleMatches()
      } catch let bad as JournalError {
        badUnsettled = bad
      }
    }
    if shipsHistory {
      outboxCount = try database.read {
        try Int.fetchOne($0, sql: "SELECT count(*) FROM history_outbox") ?? 0
      }
      outboxLevel.set(waiting: outboxCount)
    }
    let (last, generation, table) = try database.read { db in
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
      let through: Int64 = row?["through"] ?? 0
      let generation: Int64 = row?["generation"] ?? 0
      return (max(a, b, through), generation, b > a ? 1 : 0)
    }
    self.generation = generation
    (ownLastSeq, ownRowTable) = (last, table)
    if keepsTail {
      do {
        tail = try JournalTail(
          path: path + Self.tailSuffix, lastSeq: last, table: table, regionBytes: tailRegionBytes)
      } catch {
        warnings.append(
          "cannot keep the journal's tail (\(error)): every commit writes the database, "
            + "which is slower; check the data directory's disk")
      }
    } else {
      try? FileManager.default.removeItem(atPath: path + Self.tailSuffix)
    }
  }

  /// The tail's file beside the database (``JournalTail``).
  static let tailSuffix = "-tail"

  /// Writes the rows a tail file holds to the database, those after its last row: what a
  /// process that ended left there. A row out of sequence ends them, with a warning.
  private func moveTailIntoDatabase() throws {
    let rows = try JournalTail.rows(inFileAt: path + Self.tailSuffix)
    guard !rows.isEmpty else { return }
    let (a, b) = try writer.integers(
      "SELECT COALESCE((SELECT MAX(seq) FROM journal), 0), COALESCE((SELECT MAX(seq) FROM journal_b), 0)"
    )
    let (through, _) = try writer.integers(
      "SELECT COALESCE((SELECT through FROM snapshot WHERE id = 1), 0), 0")
    var next = max(a, b, through) + 1
    var moved: [JournalTail.Row] = []
    for row in rows where row.seq >= next {
      guard row.seq == next, Self.rowTables.indices.contains(row.table) else {
        warnings.append(
          "the journal's tail (\(path + Self.tailSuffix)) skips from row \(next - 1) to "
            + "row \(row.seq): the rows from there on were not carried over")
        break
      }
      moved.append(row)
      next += 1
    }
    guard !moved.isEmpty else { return }
    try writer.transaction { try insert(moved) }
  }

  /// Writes `rows` to their tables, inside the caller's transaction.
  private func insert(_ rows: [JournalTail.Row]) throws {
    for row in rows {
      let table = Self.rowTables[row.table]
      try row.action.withUnsafeBufferPointer { action in
        if let finished = row.finished {
          try finished.withUnsafeBufferPointer { finished in
            try writer.run(
              "INSERT INTO \(table) (seq, action, finished) VALUES (?, ?, ?)",
              .int(row.seq), .bytes(action), .bytes(finished))
          }
        } else {
          try writer.run(
            "INSERT INTO \(table) (seq, action) VALUES (?, ?)", .int(row.seq), .bytes(action))
        }
      }
    }
  }

  /// Writes the rows waiting in the tail to the database in one transaction; their
  /// matches then wait to be settled. If it fails they wait in the tail, which takes no
  /// more rows until an apply succeeds (the next commit then fails, and the hub pauses).
  /// Returns whether it wrote any.
  @discardableResult
  func applyTail() throws -> Bool {
    guard let tail, let rows = tail.take() else { return false }
    do {
      try writer.transaction { try insert(rows) }
    } catch {
      tail.notApplied(rows)
      throw error
    }
    tail.applied(rows)
    for row in rows where !row.matches.isEmpty { unsettled.append((row.seq, row.matches)) }
    transactionCommitted()
    return true
  }

  /// The rows of `actions` for the tail: each action in the journal's format, and the
  /// matches the last one ended as its `finished` column holds them (nil: none).
  static func tailRows(_ actions: [LobbyAction], matches: [FinishedMatch]) -> (
    actions: [[UInt8]], finished: [UInt8]?
  ) {
    var json = JSONText(capacity: 128)
    let rows = actions.map { action in
      json.removeAll()
      json.journalRow(action)
      return json.bytes
    }
    return (rows, matches.isEmpty ? nil : unsettledText(matches))
  }

  /// SQLite's `synchronous` setting for `durability`.
  static func synchronous(_ durability: JournalDurability) -> String {
    switch durability {
    case .process: "NORMAL"
    case .power: "FULL"
    }
  }

  /// The SQLite VFS a server opens its journal through (see ``init(directory:keepMatches:shipsHistory:maxOutbox:background:durability:vfs:checkpointInterval:walFrameLimit:)``).
  static let serverVFS = "unix-excl"

  /// `path` as a URI naming `vfs` (GRDB takes a path alone; SQLite reads `file:` URIs
  /// as paths when built with SQLITE_USE_URI, as Debian's and Apple's are).
  static func uri(_ path: String, vfs: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#%")
    return "file:\(path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)?vfs=\(vfs)"
  }

  /// Limits the database to `pages` pages: past it writes fail as on a full disk (a test
  /// seam for write failures; see ``JournalWriter/limitPages(_:)``).
  func limitPages(_ pages: Int) throws { try writer.limitPages(pages) }

  /// Limits the database to the pages it has now.
  func limitPagesToCurrent() throws { try writer.limitPages(try writer.pageCount()) }

  /// Whether the journal can be written now: one tiny transaction. While the disk is
  /// failing the hub calls this until it succeeds.
  func probe(at: Int64) throws {
    try applyTail()
    try writer.transaction {
      try writer.run("INSERT OR REPLACE INTO heartbeat (id, at) VALUES (1, ?)", .int(at))
    }
  }

  /// Commits `actions` and `matches` in one transaction, on the hub's own connection.
  /// Both are appended at the end of their tables, so a commit writes few pages; the
  /// standings and the pruning of old matches wait for ``foldStandings()``. With
  /// `snapshotAfter`, a snapshot will include this batch: later rows go to the other
  /// rows table.
  /// With `settleLater`, the matches are written in the row of the batch's last action
  /// (no page of their own on this commit's path) and moved to `matches` by
  /// ``settleMatches()``; the caller then asks for that soon.
  func append(
    _ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool = false,
    settleLater: Bool = false
  ) throws {
    var json = JSONText(capacity: 128)
    var written = MatchesWritten()
    // Matches wait in a row only when there is one to wait in (a match ends by an action).
    let matchesWait = settleLater && !matches.isEmpty && !actions.isEmpty
    if let tail {
      if settleLater, !actions.isEmpty {
        // A failed apply first: while the database cannot be written, neither can this.
        if tail.hasFailed { try applyTail() }
        let rows = Self.tailRows(actions, matches: matches)
        let append = {
          tail.append(
            rows.actions, finished: rows.finished, matches: matches, snapshotAfter: snapshotAfter)
        }
        if append() != nil { return }
        try applyTail()
        if append() != nil { return }
        // More than a region holds: straight to the database, below.
      } else {
        try applyTail()
      }
    }
    let finished = matchesWait ? Self.unsettledText(matches) : []
    try writer.transaction {
      for (offset, action) in actions.enumerated() {
        json.removeAll()
        json.journalRow(action)
        let seq = lastSeq + Int64(offset) + 1
        try json.bytes.withUnsafeBufferPointer { text in
          if matchesWait, offset == actions.count - 1 {
            try finished.withUnsafeBufferPointer { finished in
              try writer.run(
                "INSERT INTO \(rowTable) (seq, action, finished) VALUES (?, ?, ?)",
                .int(seq), .bytes(text), .bytes(finished))
            }
          } else {
            try writer.run(
              "INSERT INTO \(rowTable) (seq, action) VALUES (?, ?)", .int(seq), .bytes(text))
          }
        }
      }
      if !matchesWait { try insert(matches, into: &written) }
    }
    if matchesWait {
      unsettled.append((lastSeq + Int64(actions.count), matches))
    } else {
      keep(written, matches: matches.count)
    }
    lastSeq += Int64(actions.count)
    if snapshotAfter { rowTable = Self.rowTables.first { $0 != rowTable }! }
    transactionCommitted()
  }

  /// Counts a transaction of the journal's rows towards the next checkpoint and the WAL's
  /// catching up.
  private func transactionCommitted() {
    commitsSinceCheckpoint += 1
    if commitsSinceCheckpoint >= checkpointInterval { checkpointInBackground() }
    commitsWhileWALIsLong = writer.walFrames >= walFrameLimit ? commitsWhileWALIsLong + 1 : 0
  }

  /// What writing matches changed, kept once their transaction is durable.
  struct MatchesWritten {
    /// The players' ratings after the matches.
    var rated: [String: Glicko2Rating] = [:]
    /// Matches dropped from a full outbox.
    var dropped = 0
  }

  /// Writes `matches`' rows (rated in order), each rated player's new opponents and the
  /// outbox's rows, inside the caller's transaction.
  func insert(_ matches: [FinishedMatch], into written: inout MatchesWritten) throws {
    for match in matches {
      let before = match.players.map { written.rated[$0] ?? ratings[$0] }
      let after = ratings.system.ratings(after: match, before: before)
      for (name, rating) in zip(match.players, after) { written.rated[name] = rating }
      try MatchRecord.encode(rounds: match.rounds ?? []).withUnsafeBufferPointer { rounds in
        try writer.run(
          """
          INSERT INTO matches (room, finished_at, ruleset, best_of, player1, player2, score1,
            score2, winner, forfeit, fair, rounds, rating1, deviation1, volatility1, rating2,
            deviation2, volatility2, rated, identity1, identity2)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """, .text(match.room), .int(match.finishedAt), .text(match.ruleset),
          .int(Int64(match.bestOf)), .text(match.players[0]), .text(match.players[1]),
          .int(Int64(match.scores[0])), .int(Int64(match.scores[1])), .text(match.winner),
          .int(match.forfeit ? 1 : 0), .int(match.fair ? 1 : 0), .bytes(rounds),
          .real(after[0].rating), .real(after[0].deviation), .real(after[0].volatility),
          .real(after[1].rating), .real(after[1].deviation), .real(after[1].volatility),
          .int(match.rated ? 1 : 0), .text(match.identities.first ?? nil),
          .text(match.identities.last ?? nil))
      }
      if after != before {
        for (name, opponent) in [
          (match.players[0], match.players[1]), (match.players[1], match.players[0]),
        ] {
          try writer.run(
            "INSERT OR IGNORE INTO rated_opponents (name, opponent) VALUES (?, ?)",
            .text(name), .text(opponent))
        }
      }
      if shipsHistory {
        try writer.run("INSERT INTO history_outbox (match_id) VALUES (last_insert_rowid())")
      }
    }
    if shipsHistory, !matches.isEmpty {
      written.dropped = try trimOutbox(holding: outboxCount + matches.count)
    }
  }

  /// Keeps what writing `count` matches changed, once it is durable.
  func keep(_ written: MatchesWritten, matches count: Int) {
    if shipsHistory, count > 0 {
      outboxCount += count - written.dropped
      outboxLevel.set(waiting: outboxCount, droppedMore: written.dropped)
    }
    for (name, rating) in written.rated { ratings.set(name, rating) }
    matchCount += count
    unfoldedMatches += count
  }

  /// Commits between checkpoints: each commit adds at least one page to the WAL.
  static let defaultCheckpointInterval = 500
  /// The WAL's length, in frames of a page (4 KiB), past which the journal's own
  /// connection copies it into the database (``catchUpWAL()``): 64 MiB.
  static let defaultWALFrameLimit = 16_384

  /// Whether the WAL has grown past ``walFrameLimit``: checkpoints on the other connection
  /// copy it while commits go on, so under steady play they never copy all of it, and
  /// SQLite starts the log over only once all of it is copied. Due at the first commit
  /// past the limit, then every 100 commits while it stays long (a reader, in another
  /// process too, can keep it from starting over).
  var walCatchUpIsDue: Bool { commitsWhileWALIsLong % 100 == 1 }

  /// The WAL's length in frames after the last commit.
  var walFrames: Int { writer.walFrames }

  /// Copies the rest of the WAL into the database on the journal's own connection, so
  /// that no commit can come in between; the next commit then writes the log from its
  /// start. Commits wait meanwhile: checkpoints on the other connection have copied all
  /// but what came since the last of them, so this is mostly one sync of the database.
  func catchUpWAL() throws {
    commitsWhileWALIsLong = 1
    _ = try writer.checkpoint()
  }

  /// Copies the WAL's pages into the database file on the low-priority thread and
  /// another connection (a passive checkpoint never waits for the writer), so the fsyncs
  /// it takes never hold up the hub; the WAL is then reused from its start.
  private func checkpointInBackground() {
    let idle = checkpointing.value.withLockedValue { running in
      defer { running = true }
      return !running
    }
    guard idle else { return }
    commitsSinceCheckpoint = 0
    let database = self.database
    let checkpointing = self.checkpointing
    let checkpoints = self.checkpoints
    checkpoints.enter()
    let checkpoint: @Sendable (NIOThreadPool.WorkItemState) -> Void = { state in
      if state == .active {
        _ = try? database.writeWithoutTransaction { try $0.checkpoint(.passive) }
      }
      checkpointing.value.withLockedValue { $0 = false }
      checkpoints.leave()
    }
    if let background { background.submit(checkpoint) } else { checkpoint(.active) }
  }

  /// A file's permission bits, or nil if it does not exist.
  private static func mode(of path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
  }

  /// Waits for a checkpoint that is running (for tests and shutdown).
  func waitForCheckpoints() { checkpoints.wait() }
}
