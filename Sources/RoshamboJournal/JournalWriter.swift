import GRDBSQLite

/// The journal's own SQLite connection for what the hub writes while the game runs:
/// prepared statements stepped through SQLite's C API, with nothing between them and
/// the hub (GRDB's queue and hooks around each transaction cost more than SQLite's own
/// work on this path).
///
/// Invariant: used from one thread at a time (the hub's loop or the journal's thread,
/// under the `JournalThread`'s lock); every transaction it
/// begins is committed or rolled back before a call returns. Automatic checkpoints are
/// off here: they fsync, so the journal runs them on another connection and thread.
final class JournalWriter {
  /// A failed step, with SQLite's message.
  struct Failure: Error, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }
  }

  private let connection: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]
  /// The WAL's length in frames after the last commit, as SQLite's WAL hook reports it.
  private let walFrameCount = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

  /// The WAL's length in frames after the last commit (a restarted log is short again).
  var walFrames: Int { Int(walFrameCount.pointee) }

  /// Opens `path`, which must already hold the journal's tables, through the SQLite VFS
  /// named `vfs` (nil: the default), with `synchronous` (SQLite's setting: NORMAL syncs
  /// the WAL only at checkpoints, FULL at every commit too).
  init(path: String, synchronous: String = "NORMAL", vfs: String? = nil) throws {
    var handle: OpaquePointer?
    let code = sqlite3_open_v2(
      path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, vfs)
    guard code == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      sqlite3_close_v2(handle)
      throw Failure(code: code, message: "\(message) (\(path))")
    }
    connection = handle
    // secure_delete FAST: deleted content is still zeroed on the pages a change writes
    // anyway, but freed pages are not rewritten with zeros (Debian's SQLite zeroes them by
    // default, so dropping an old snapshot's 4 MB wrote 4 MB more to the log and held
    // the writer for hundreds of milliseconds on a slow disk). A 16 MiB page cache (the
    // default is 2 MiB) holds a whole rows table, so emptying one after a snapshot reads
    // no page back from the file: that step took 10–12 ms with the default, 5–9 with this.
    for pragma in [
      "PRAGMA journal_mode = WAL", "PRAGMA synchronous = \(synchronous)",
      "PRAGMA wal_autocheckpoint = 0",
      "PRAGMA busy_timeout = 5000", "PRAGMA secure_delete = FAST", "PRAGMA cache_size = -16384",
    ] {
      guard sqlite3_exec(connection, pragma, nil, nil, nil) == SQLITE_OK else {
        let failure = Failure(code: sqlite3_errcode(connection), message: lastMessage)
        sqlite3_close_v2(connection)
        throw failure
      }
    }
    // (After the pragmas: `wal_autocheckpoint` sets the same hook.)
    walFrameCount.initialize(to: 0)
    sqlite3_wal_hook(
      connection,
      { context, _, _, frames in
        context?.assumingMemoryBound(to: Int32.self).pointee = frames
        return SQLITE_OK
      }, walFrameCount)
  }

  private var isClosed = false

  deinit {
    close()
    walFrameCount.deallocate()
  }

  /// Copies what the WAL holds into the database file on this connection, without
  /// waiting for anyone (`PASSIVE`); returns whether every frame was copied, in which case
  /// the next commit writes the log from its start again. False also when another
  /// checkpoint is running.
  func checkpoint() throws -> Bool {
    var frames: Int32 = 0
    var copied: Int32 = 0
    let code = sqlite3_wal_checkpoint_v2(
      connection, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
    if code == SQLITE_BUSY { return false }
    guard code == SQLITE_OK else { throw Failure(code: code, message: lastMessage) }
    return frames == copied
  }

  /// Finalizes the statements and closes the connection (at most once).
  func close() {
    guard !isClosed else { return }
    isClosed = true
    for statement in statements.values { sqlite3_finalize(statement) }
    statements = [:]
    sqlite3_close_v2(connection)
  }

  /// Limits the database to `pages` pages (`PRAGMA max_page_count`): past it, writes fail
  /// as on a full disk. A test seam for the hub's handling of write failures.
  func limitPages(_ pages: Int) throws {
    guard sqlite3_exec(connection, "PRAGMA max_page_count = \(pages)", nil, nil, nil) == SQLITE_OK
    else { throw Failure(code: sqlite3_errcode(connection), message: lastMessage) }
  }

  /// The database's size in pages now.
  func pageCount() throws -> Int {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(connection, "PRAGMA page_count", -1, &statement, nil) == SQLITE_OK
    else { throw Failure(code: sqlite3_errcode(connection), message: lastMessage) }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else {
      throw Failure(code: sqlite3_errcode(connection), message: lastMessage)
    }
    return Int(sqlite3_column_int64(statement, 0))
  }

  /// Runs `body` in one transaction (BEGIN IMMEDIATE … COMMIT), rolled back if it throws.
  func transaction(_ body: () throws -> Void) throws {
    try run("BEGIN IMMEDIATE")
    do {
      try body()
      try run("COMMIT")
    } catch {
      if sqlite3_get_autocommit(connection) == 0 {
        sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
      }
      throw error
    }
  }

  /// A value to bind to a statement's next parameter.
  enum Value {
    case int(Int64)
    case real(Double)
    case text(String)
    /// UTF-8 bytes bound without a copy: they live until the step returns.
    case bytes(UnsafeBufferPointer<UInt8>)
    /// A blob bound without a copy: it lives until the step returns.
    case blob(UnsafeRawBufferPointer)
    case null

    /// `text`, or SQL's null for nil.
    static func text(_ text: String?) -> Value { text.map(Value.text) ?? .null }
  }

  /// Runs a statement that returns no rows, once, with `values` bound in order.
  func run(_ sql: String, _ values: Value...) throws {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    try bind(values, to: statement)
    let code = sqlite3_step(statement)
    guard code == SQLITE_DONE else { throw Failure(code: code, message: lastMessage) }
  }

  private func bind(_ values: [Value], to statement: OpaquePointer) throws {
    for (offset, value) in values.enumerated() {
      let index = Int32(offset + 1)
      let code: Int32
      switch value {
      case .int(let number):
        code = sqlite3_bind_int64(statement, index, number)
      case .real(let number):
        code = sqlite3_bind_double(statement, index, number)
      case .text(let text):
        code = sqlite3_bind_text(statement, index, text, -1, Self.transient)
      case .bytes(let bytes):
        code = bytes.withMemoryRebound(to: CChar.self) {
          sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), nil)
        }
      case .blob(let bytes):
        code = sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), nil)
      case .null:
        code = sqlite3_bind_null(statement, index)
      }
      guard code == SQLITE_OK else { throw Failure(code: code, message: lastMessage) }
    }
  }

  /// Runs a query for one row and returns its first two columns as integers.
  func integers(_ sql: String, _ values: Value...) throws -> (Int64, Int64) {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    try bind(values, to: statement)
    guard sqlite3_step(statement) == SQLITE_ROW else {
      throw Failure(code: sqlite3_errcode(connection), message: lastMessage)
    }
    return (sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1))
  }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let statement = statements[sql] { return statement }
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v3(
      connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard code == SQLITE_OK, let statement else {
      throw Failure(code: code, message: "\(lastMessage) in \(sql)")
    }
    statements[sql] = statement
    return statement
  }

  /// Rows changed by the last statement run.
  var changes: Int { Int(sqlite3_changes(connection)) }

  private var lastMessage: String { String(cString: sqlite3_errmsg(connection)) }

  /// SQLite copies the text before the bind returns (`SQLITE_TRANSIENT`).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
