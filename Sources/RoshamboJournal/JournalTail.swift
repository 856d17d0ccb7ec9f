import Foundation
import NIOConcurrencyHelpers
import RoshamboGame

/// The journal's newest rows on their way to its database: a file of fixed size
/// (`roshambo.sqlite-tail`) that the server maps into its memory, so that making a commit
/// durable is one copy of its rows into a page the kernel holds. A process that dies
/// leaves those pages to the kernel, which writes them to the file, so a row here is as
/// durable as one in SQLite's WAL with `synchronous = NORMAL` (across a crash of the
/// process, not a power cut). The journal's thread moves the rows into the database
/// within a tenth of a second (``Journal/applyTail()``), many commits in one transaction, and
/// a journal opened after a crash moves what the file still holds first.
///
/// The file is two regions used in turn: rows are appended to one while the rows of the
/// other are written to the database, and a region starts over (a new epoch in its
/// header) once every row in it is in the database. Each row is checked by a checksum
/// that covers its region's epoch, so a row cut short by a crash, or left from an earlier
/// epoch, ends the region when it is read.
///
/// Invariant: a row is in the file before ``append(_:finished:matches:snapshotAfter:)``
/// returns, and stays readable there until ``applied(_:)`` says it is in the database;
/// rows are numbered one up from the journal's last, in the order appended.
///
/// `@unchecked Sendable`: every stored property but the constants is touched only while
/// holding `lock`; the hub's loop appends while the journal's thread applies.
package final class JournalTail: @unchecked Sendable {
  /// A row of the journal on its way to the database.
  package struct Row: Sendable {
    package var seq: Int64
    /// Which of the journal's rows tables it goes to (an index in `Journal.rowTables`).
    package var table: Int
    /// The action, in the journal's format.
    package var action: [UInt8]
    /// The matches the action finished, as the row's `finished` column holds them.
    package var finished: [UInt8]?
    /// The same matches, for settling (only rows appended by this process have them).
    package var matches: [FinishedMatch] = []
    /// The region that holds it.
    var region = 0
  }

  /// What an append did.
  package struct Appended: Sendable {
    /// Whether the caller should ask the journal's thread to apply the tail: the first
    /// row since the last apply began.
    package var applyIsDue: Bool
  }

  package let path: String
  let regionBytes: Int
  private let descriptor: Int32
  private let base: UnsafeMutableRawPointer
  private let lock = NIOLock()

  // Under `lock`:
  private var epochs = [UInt64](repeating: 0, count: 2)
  private var positions = [Int](repeating: headerBytes, count: 2)
  /// Rows in each region not yet in the database (pending or being applied).
  private var unapplied = [0, 0]
  private var current = 0
  private var pending: [Row] = []
  private var applyDue = false
  private var failed = false
  private var head: (lastSeq: Int64, table: Int)

  static let headerBytes = 16
  /// The bytes before a row's body: its body's length and checksum.
  static let rowPrefixBytes = 8
  /// seq (8), table (1), the action's length (4).
  static let bodyFixedBytes = 13
  static let magic: UInt32 = 0x4C54_5352  // "RSTL"
  static let version: UInt32 = 1
  /// Each of the two regions: about 10,000 rows, a second of a full server's picks; the
  /// journal's thread applies them every tenth of a second.
  package static let defaultRegionBytes = 2 << 20

  /// Opens the tail at `path` (created, its blocks allocated, if missing) for a journal
  /// whose last row is `lastSeq`, new rows going to table `table`. Both regions start
  /// over: the caller has already moved what the file held into the database
  /// (``rows(inFileAt:)``).
  package init(
    path: String, lastSeq: Int64, table: Int, regionBytes: Int = JournalTail.defaultRegionBytes
  ) throws {
    self.path = path
    // A multiple of 8: each region's epoch is stored aligned, in one store.
    let regionBytes = (regionBytes + 7) & ~7
    self.regionBytes = regionBytes
    head = (lastSeq, table)
    let size = 2 * regionBytes
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw Failure.system("cannot open", path, errno) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      throw Failure.system("cannot read the size of", path, code)
    }
    if Int(status.st_size) != size {
      // Every block allocated now: a page of a mapping with no block behind it would
      // kill the process (SIGBUS) when written on a full disk.
      let code = posix_fallocate(descriptor, 0, off_t(size))
      guard code == 0, ftruncate(descriptor, off_t(size)) == 0 else {
        close(descriptor)
        throw Failure.system("cannot make room for", path, code != 0 ? code : errno)
      }
    }
    guard
      let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      mapped != MAP_FAILED
    else {
      let code = errno
      close(descriptor)
      throw Failure.system("cannot map", path, code)
    }
    self.descriptor = descriptor
    base = mapped
    for region in 0..<2 {
      let header = Self.header(base + region * regionBytes)
      epochs[region] = (header.magic == Self.magic ? header.epoch : 0) &+ 1
      startOver(region)
    }
  }

  deinit {
    munmap(base, 2 * regionBytes)
    close(descriptor)
  }

  /// A file that could not be used, with the system's reason.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String

    static func system(_ what: String, _ path: String, _ code: Int32) -> Failure {
      Failure(description: "\(what) \(path): \(String(cString: strerror(code)))")
    }
  }

  // MARK: - Appending (the hub's loop)

  /// The journal's last row, and the table new rows go to.
  package var lastSeq: Int64 {
    get { lock.withLock { head.lastSeq } }
    set { lock.withLock { head.lastSeq = newValue } }
  }

  package var table: Int {
    get { lock.withLock { head.table } }
    set { lock.withLock { head.table = newValue } }
  }

  /// Appends a row for each action (in the journal's format), numbered on from the last,
  /// the last one holding `finished` (the matches it ended); with `snapshotAfter` later
  /// rows go to the other table. Nil, and nothing written, when the tail has no room or
  /// an apply failed since the last that succeeded (the database first, then).
  package func append(
    _ actions: [[UInt8]], finished: [UInt8]?, matches: [FinishedMatch], snapshotAfter: Bool
  ) -> Appended? {
    lock.withLock {
      guard !failed, !actions.isEmpty else { return nil }
      var bytes = 0
      for (index, action) in actions.enumerated() {
        bytes += Self.rowPrefixBytes + Self.bodyFixedBytes + action.count
        if index == actions.count - 1 { bytes += finished?.count ?? 0 }
      }
      if positions[current] + bytes > regionBytes {
        let other = 1 - current
        guard unapplied[other] == 0, Self.headerBytes + bytes <= regionBytes else { return nil }
        current = other
      }
      for (index, action) in actions.enumerated() {
        let isLast = index == actions.count - 1
        let row = Row(
          seq: head.lastSeq + 1, table: head.table, action: action,
          finished: isLast ? finished : nil, matches: isLast ? matches : [], region: current)
        positions[current] = write(row, at: positions[current], in: current)
        head.lastSeq = row.seq
        unapplied[current] += 1
        pending.append(row)
      }
      if snapshotAfter { head.table = 1 - head.table }
      defer { applyDue = true }
      return Appended(applyIsDue: !applyDue)
    }
  }

  /// Writes `row` at `offset` of `region` and returns the offset after it.
  private func write(_ row: Row, at offset: Int, in region: Int) -> Int {
    let start = base + region * regionBytes + offset
    let body = start + Self.rowPrefixBytes
    body.storeBytes(of: row.seq.littleEndian, as: Int64.self)
    body.storeBytes(of: UInt8(row.table), toByteOffset: 8, as: UInt8.self)
    body.storeBytes(of: UInt32(row.action.count).littleEndian, toByteOffset: 9, as: UInt32.self)
    var length = Self.bodyFixedBytes
    row.action.withUnsafeBytes {
      (body + length).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
    }
    length += row.action.count
    if let finished = row.finished {
      finished.withUnsafeBytes {
        (body + length).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
      }
      length += finished.count
    }
    let checksum = Self.checksum(
      epoch: epochs[region], UnsafeRawBufferPointer(start: body, count: length))
    start.storeBytes(of: UInt32(length).littleEndian, as: UInt32.self)
    start.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
    return offset + Self.rowPrefixBytes + length
  }

  // MARK: - Applying (the journal's thread)

  /// Whether rows wait to be applied.
  package var hasPending: Bool { lock.withLock { !pending.isEmpty } }

  /// Whether the last apply failed (appends are refused until one succeeds).
  package var hasFailed: Bool { lock.withLock { failed } }

  /// The rows waiting, oldest first, to be written to the database; the caller then says
  /// ``applied(_:)`` or ``notApplied(_:)``. Appends go on meanwhile, in the other region
  /// when it is empty. Nil when none wait.
  package func take() -> [Row]? {
    lock.withLock {
      applyDue = false
      guard !pending.isEmpty else { return nil }
      let rows = pending
      pending = []
      if unapplied[1 - current] == 0 { current = 1 - current }
      return rows
    }
  }

  /// `rows` (from ``take()``) are in the database: a region left with none waiting
  /// starts over.
  package func applied(_ rows: [Row]) {
    lock.withLock {
      failed = false
      for row in rows { unapplied[row.region] -= 1 }
      for region in 0..<2 where unapplied[region] == 0 && positions[region] > Self.headerBytes {
        epochs[region] &+= 1
        startOver(region)
      }
    }
  }

  /// `rows` (from ``take()``) could not be written to the database: they wait again, and
  /// appends are refused until an apply succeeds.
  package func notApplied(_ rows: [Row]) {
    lock.withLock {
      pending = rows + pending
      failed = true
    }
  }

  /// The rows not yet in the database, oldest first (for loading while the database
  /// cannot be written).
  package var pendingRows: [Row] { lock.withLock { pending } }

  /// Writes `region`'s header with its epoch and empties it.
  private func startOver(_ region: Int) {
    let start = base + region * regionBytes
    start.storeBytes(of: Self.magic.littleEndian, as: UInt32.self)
    start.storeBytes(of: Self.version.littleEndian, toByteOffset: 4, as: UInt32.self)
    start.storeBytes(of: epochs[region].littleEndian, toByteOffset: 8, as: UInt64.self)
    positions[region] = Self.headerBytes
  }

  // MARK: - Reading a file

  /// The rows a tail file holds, in order (none if there is no file): each region's
  /// rows up to the first that is cut short, from an earlier epoch or unreadable.
  package static func rows(inFileAt path: String) throws -> [Row] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let regionBytes = bytes.count / 2
    var rows: [Row] = []
    bytes.withUnsafeBytes { file in
      for region in 0..<2 {
        let slice = UnsafeRawBufferPointer(
          rebasing: file[region * regionBytes..<(region + 1) * regionBytes])
        rows += Self.rows(in: slice, region: region)
      }
    }
    return rows.sorted { $0.seq < $1.seq }
  }

  /// The valid rows of one region.
  static func rows(in region: UnsafeRawBufferPointer, region index: Int) -> [Row] {
    guard region.count >= headerBytes, let start = region.baseAddress else { return [] }
    let header = Self.header(UnsafeMutableRawPointer(mutating: start))
    guard header.magic == magic, header.version == version else { return [] }
    var rows: [Row] = []
    var offset = headerBytes
    while offset + rowPrefixBytes + bodyFixedBytes <= region.count {
      let length = Int(
        UInt32(littleEndian: region.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      let stored = UInt32(
        littleEndian: region.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
      let bodyStart = offset + rowPrefixBytes
      guard length >= bodyFixedBytes, bodyStart + length <= region.count else { break }
      let body = UnsafeRawBufferPointer(rebasing: region[bodyStart..<bodyStart + length])
      guard checksum(epoch: header.epoch, body) == stored else { break }
      let actionLength = Int(
        UInt32(littleEndian: body.loadUnaligned(fromByteOffset: 9, as: UInt32.self)))
      guard bodyFixedBytes + actionLength <= length else { break }
      let action = [UInt8](body[bodyFixedBytes..<bodyFixedBytes + actionLength])
      let rest = bodyFixedBytes + actionLength
      rows.append(
        Row(
          seq: Int64(littleEndian: body.loadUnaligned(as: Int64.self)),
          table: Int(body[8]), action: action,
          finished: rest < length ? [UInt8](body[rest..<length]) : nil, region: index))
      offset = bodyStart + length
    }
    return rows
  }

  private static func header(_ start: UnsafeMutableRawPointer) -> (
    magic: UInt32, version: UInt32, epoch: UInt64
  ) {
    (
      UInt32(littleEndian: start.loadUnaligned(as: UInt32.self)),
      UInt32(littleEndian: start.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
      UInt64(littleEndian: start.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    )
  }

  /// FNV-1a (32 bits) of the region's epoch and a row's body.
  static func checksum(epoch: UInt64, _ body: UnsafeRawBufferPointer) -> UInt32 {
    var hash: UInt32 = 0x811c_9dc5
    var epoch = epoch.littleEndian
    withUnsafeBytes(of: &epoch) { bytes in
      for byte in bytes { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    }
    for byte in body { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    return hash
  }
}
