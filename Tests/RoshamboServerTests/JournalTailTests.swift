import Foundation
import GRDB
import RoshamboGame
import Testing

@testable import RoshamboJournal
@testable import RoshamboServer

/// The journal's tail: a commit is a copy into a mapped file, and the rows reach the
/// database later; what a process that ended left there is found and carried over.
@Suite("Server: the journal's tail")
struct JournalTailTests {
  static func tailPath() -> String {
    let directory = temporaryDataDirectory()
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return (directory as NSString).appendingPathComponent("tail")
  }

  static func action(_ number: Int) -> [UInt8] {
    Array("{\"type\":\"row\",\"n\":\(number)}".utf8)
  }

  /// A tail whose journal's last row is 10.
  static func tail(at path: String, regionBytes: Int = 4_096) throws -> JournalTail {
    try JournalTail(path: path, lastSeq: 10, table: 0, regionBytes: regionBytes)
  }

  @Test("rows appended are in the file, numbered on, whether or not the process goes on")
  func rowsInTheFile() throws {
    let path = Self.tailPath()
    try {
      let tail = try Self.tail(at: path)
      #expect(
        tail.append(
          [Self.action(1), Self.action(2)], finished: Array("[]".utf8), matches: [],
          snapshotAfter: true)?.applyIsDue == true)
      #expect(
        tail.append([Self.action(3)], finished: nil, matches: [], snapshotAfter: false)?
          .applyIsDue == false)
      #expect(tail.lastSeq == 13 && tail.table == 1)
    }()
    // The tail is gone (unmapped, closed) without its rows being applied.
    let rows = try JournalTail.rows(inFileAt: path)
    #expect(rows.map(\.seq) == [11, 12, 13])
    #expect(rows.map(\.table) == [0, 0, 1])
    #expect(rows.map(\.action) == [Self.action(1), Self.action(2), Self.action(3)])
    #expect(rows.map(\.finished) == [nil, Array("[]".utf8), nil])
  }

  @Test("a row cut short, or changed, ends what is read")
  func cutShort() throws {
    let path = Self.tailPath()
    let tail = try Self.tail(at: path)
    for number in 1...3 {
      _ = tail.append([Self.action(number)], finished: nil, matches: [], snapshotAfter: false)
    }
    // The third row's last byte, as a crash in the middle of its copy would leave it.
    let third = JournalTail.headerBytes + 2 * (8 + 13 + Self.action(1).count)
    let handle = try #require(FileHandle(forUpdatingAtPath: path))
    try handle.seek(toOffset: UInt64(third + 8 + 13 + Self.action(3).count - 1))
    try handle.write(contentsOf: [0x7F])
    try handle.close()
    #expect(try JournalTail.rows(inFileAt: path).map(\.seq) == [11, 12])
  }

  @Test("a region starts over once its rows are in the database; appends go on meanwhile")
  func startsOver() throws {
    let path = Self.tailPath()
    let tail = try Self.tail(at: path)
    _ = tail.append(
      [Self.action(1), Self.action(2)], finished: nil, matches: [], snapshotAfter: false)
    let taken = try #require(tail.take())
    #expect(taken.map(\.seq) == [11, 12])
    // Appended while the first two are written: the other region.
    _ = tail.append([Self.action(3)], finished: nil, matches: [], snapshotAfter: false)
    #expect(try JournalTail.rows(inFileAt: path).map(\.seq) == [11, 12, 13])
    tail.applied(taken)
    #expect(try JournalTail.rows(inFileAt: path).map(\.seq) == [13])
    let rest = try #require(tail.take())
    tail.applied(rest)
    #expect(try JournalTail.rows(inFileAt: path).isEmpty)
    #expect(tail.take() == nil)
    // Rows of an earlier epoch are not read again, though their bytes are still there.
    _ = tail.append([Self.action(4)], finished: nil, matches: [], snapshotAfter: false)
    #expect(try JournalTail.rows(inFileAt: path).map(\.seq) == [14])
  }

  @Test("opened again, a tail starts over: what the file held is not read twice")
  func openedAgain() throws {
    let path = Self.tailPath()
    _ = try Self.tail(at: path).append(
      [Self.action(1)], finished: nil, matches: [], snapshotAfter: false)
    #expect(try JournalTail.rows(inFileAt: path).count == 1)
    let again = try Self.tail(at: path)
    #expect(try JournalTail.rows(inFileAt: path).isEmpty)
    _ = again.append([Self.action(2)], finished: nil, matches: [], snapshotAfter: false)
    #expect(try JournalTail.rows(inFileAt: path).map(\.action) == [Self.action(2)])
  }

  @Test("a full tail, or one whose last apply failed, takes no rows")
  func refuses() throws {
    let tail = try Self.tail(at: Self.tailPath(), regionBytes: 140)
    let row = [UInt8](repeating: 0x61, count: 40)
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) != nil)
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) != nil)
    // The first region is full and the second one empty: the rows go on there.
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) != nil)
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) != nil)
    // Both full.
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) == nil)
    #expect(tail.lastSeq == 14)
    let taken = try #require(tail.take())
    tail.notApplied(taken)
    #expect(tail.hasFailed && tail.pendingRows.map(\.seq) == [11, 12, 13, 14])
    let again = try #require(tail.take())
    tail.applied(again)
    #expect(!tail.hasFailed)
    #expect(tail.append([row], finished: nil, matches: [], snapshotAfter: false) != nil)
    #expect(tail.lastSeq == 15)
  }

  @Test("a damaged file gives back only rows it really holds, whatever its bytes")
  func damagedFiles() throws {
    let path = Self.tailPath()
    let tail = try Self.tail(at: path, regionBytes: 512)
    for number in 1...6 {
      _ = tail.append(
        [Self.action(number)], finished: number % 2 == 0 ? Array("[]".utf8) : nil, matches: [],
        snapshotAfter: false)
    }
    let intact = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    let written = try JournalTail.rows(inFileAt: path)
    #expect(written.count == 6)
    var generator = SplitMix64(seed: 53)
    for trial in 0..<400 {
      var bytes = intact
      switch trial % 4 {
      case 0:
        // A few bytes changed anywhere.
        for _ in 0...Int.random(in: 0...3, using: &generator) {
          let at = Int.random(in: 0..<bytes.count, using: &generator)
          bytes[at] = UInt8.random(in: 0...255, using: &generator)
        }
      case 1:
        // Cut short anywhere (as a copy interrupted, or a file truncated).
        bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
      case 2:
        // Nothing but noise, of any length.
        bytes = (0..<Int.random(in: 0...1_100, using: &generator)).map { _ in
          UInt8.random(in: 0...255, using: &generator)
        }
      default:
        // A length field claiming far more than the file holds.
        let at = JournalTail.headerBytes + Int.random(in: 0...3, using: &generator)
        bytes[at] = 0xFF
      }
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      let read = try JournalTail.rows(inFileAt: path)
      for row in read {
        // Every row read is one that was written, unchanged.
        let original = try #require(written.first { $0.seq == row.seq }, "trial \(trial)")
        #expect(row.action == original.action && row.finished == original.finished)
        #expect(row.table == original.table)
      }
    }
  }

  static let joins: [LobbyAction] = (1...200).map {
    .join(room: "r\($0)", name: "P\($0)", token: "t\($0)", at: Int64($0))
  }

  static func rowCount(_ journal: Journal) throws -> Int {
    try journal.database.read {
      try Int.fetchOne(
        $0, sql: "SELECT (SELECT count(*) FROM journal) + (SELECT count(*) FROM journal_b)")
        ?? 0
    }
  }

  @Test("a process that ended with rows in its tail loses none: the next opening writes them")
  func crashKeepsRows() throws {
    let directory = temporaryDataDirectory()
    try {
      let journal = try Journal(directory: directory, keepsTail: true)
      try journal.append(
        JournalSettlingTests.actions, matches: JournalSettlingTests.matches, settleLater: true)
      #expect(journal.lastSeq == 2)
      // In the tail only: not in the database, its matches not even waiting in a row.
      #expect(try Self.rowCount(journal) == 0)
      #expect(!journal.hasUnsettledMatches)
    }()
    let reopened = try Journal(directory: directory)
    #expect(reopened.lastSeq == 2)
    #expect(try Self.rowCount(reopened) == 2)
    #expect(try reopened.load(defaults: .init()).lobby.rooms["den"]?.seats.count == 2)
    // The matches the last row ended are settled as after any other crash.
    #expect(try reopened.recentMatches(limit: 10).count == 2)
    // A journal without a tail removes the file once its rows are in.
    #expect(!FileManager.default.fileExists(atPath: reopened.path + Journal.tailSuffix))
  }

  @Test("while the database cannot be written the tail's rows still load, and go in later")
  func fullDisk() throws {
    let journal = try Journal(directory: temporaryDataDirectory(), keepsTail: true)
    let tail = try #require(journal.tail)
    try journal.append(Array(Self.joins.prefix(10)), matches: [], settleLater: true)
    try journal.applyTail()
    try journal.limitPagesToCurrent()
    try journal.append(Array(Self.joins.dropFirst(10)), matches: [], settleLater: true)
    #expect(throws: (any Error).self) { try journal.applyTail() }
    #expect(tail.hasFailed && tail.pendingRows.count == 190)
    // The next commit fails too (the hub then pauses), and takes nothing.
    #expect(throws: (any Error).self) {
      try journal.append(
        [.join(room: "late", name: "Late", token: "l", at: 300)], matches: [], settleLater: true)
    }
    #expect(journal.lastSeq == 200)
    #expect(try journal.load(defaults: .init()).lobby.rooms.count == 200)
    try journal.limitPages(1_000_000)
    try journal.applyTail()
    #expect(!tail.hasFailed)
    #expect(try Self.rowCount(journal) == 200)
    #expect(try journal.load(defaults: .init()).lobby.rooms.count == 200)
  }

  @Test(
    "a server killed the moment a match's last state arrives keeps the match",
    .timeLimit(.minutes(3)))
  func killedAtOnce() async throws {
    let data = temporaryDataDirectory()
    let server = try ServerProcess([
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data,
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--log-level", "warning",
    ])
    let port = try await server.port
    let (alice, bob) = try await seatTwo(port: port)
    _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    let (final, _) = try await playRound(alice, .paper, bob, .rock, round: 2)
    #expect(final.phase == .over)
    // Sent, so durable: killed before the journal's thread could write it to the database.
    kill(server.process.processIdentifier, SIGKILL)
    _ = await server.finish()
    let (status, report) = await (try ServerProcess(["history", "--data-dir", data])).finish()
    #expect(status == 0, "\(report)")
    #expect(report.contains("\"Alice\" 2–0 \"Bob\"  winner: \"Alice\""), "\(report)")
  }
}
