import Foundation
import NIOCore
import RoshamboGame
import Testing

@testable import RoshamboJournal
@testable import RoshamboServer

@Suite("Server: the journal's own thread")
struct JournalThreadTests {
  /// A journal on its thread; with `--durability power` it keeps no tail, so every
  /// commit writes the database.
  func open(quick: Int, durability: JournalDurability = .process) async throws -> JournalThread {
    try await JournalThread.open(
      directory: temporaryDataDirectory(), keepMatches: 100, quickCommitMicros: quick,
      durability: durability
    ) { _ in () }.0
  }

  func joins(_ range: Range<Int>) -> [LobbyAction] {
    range.map { .join(room: "r\($0)", name: "p\($0)", token: "t\($0)", at: Int64($0)) }
  }

  @Test("a busy journal sends the commit to its thread, where it lands after the work before it")
  func busy() async throws {
    let thread = try await open(quick: 1_000_000, durability: .power)
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    // Something long on the journal's thread (a snapshot step, say) holds the journal.
    let long = thread.submit { journal -> Int64 in
      held.signal()
      release.wait()
      return journal.lastSeq
    }
    held.wait()
    #expect(thread.commitNowIfQuick(joins(0..<3), matches: []).isNil)
    let queued = thread.commit(joins(0..<3), matches: [])
    release.signal()
    #expect(try await long.get() == 0)
    _ = try await queued.get()
    // Free again, and quick: the next commit runs on the caller's thread.
    guard case .success = thread.commitNowIfQuick(joins(3..<4), matches: []) else {
      Issue.record("a free, quick journal did not commit at once")
      return
    }
    let loaded = try await thread.submit { try $0.load(defaults: .init()) }.get()
    #expect(loaded.actions == 4)
    #expect(loaded.lobby.rooms.keys.sorted() == ["r0", "r1", "r2", "r3"])
    try await thread.close()
  }

  @Test("after a slow commit the next ones go to the journal's thread")
  func slow() async throws {
    let thread = try await open(quick: 300, durability: .power)
    // 20,000 rows in one commit take far longer than 300 µs on any disk.
    guard case .success = thread.commitNowIfQuick(joins(0..<20_000), matches: []) else {
      Issue.record("the first commit was not taken at once")
      return
    }
    #expect(thread.commitNowIfQuick(joins(20_000..<20_001), matches: []).isNil)
    _ = try await thread.commit(joins(20_000..<20_001), matches: []).get()
    let never = try await open(quick: 0)
    #expect(never.commitNowIfQuick(joins(0..<1), matches: []).isNil)
    try await thread.close()
    try await never.close()
  }

  @Test("with a tail, a busy journal still takes a commit at once; its rows land after that work")
  func busyWithTail() async throws {
    let thread = try await open(quick: 300)
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let long = thread.submit { journal -> Int in
      held.signal()
      release.wait()
      return try journal.load(defaults: .init()).actions
    }
    held.wait()
    // 20,000 rows in one commit, while the journal is held: a copy into the tail.
    guard case .success = thread.commitNowIfQuick(joins(0..<20_000), matches: []) else {
      Issue.record("the tail did not take the commit at once")
      return
    }
    #expect(thread.commitNowIfQuick(joins(20_000..<20_001), matches: []) != nil)
    release.signal()
    // The held task loads what is saved, the tail included.
    #expect(try await long.get() == 20_001)
    let rows = try await thread.submit { journal in
      try journal.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM journal") }
    }.get()
    #expect(rows == 20_001)
    try await thread.close()
  }

  func match(_ winner: String, _ loser: String, at: Int64) -> FinishedMatch {
    var room = RoomState(name: "den", settings: .init(bestOf: 1))
    room.apply(.playerJoined(name: winner, token: "a", at: 0))
    room.apply(.playerJoined(name: loser, token: "b", at: 0))
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 0))
    room.apply(.chose(seat: .two, round: 1, weapon: .scissors, at: 0))
    return FinishedMatch(room: room, at: at)
  }

  @Test("once enough matches wait, the journal's thread folds them into the standings by itself")
  func foldsStandings() async throws {
    let thread = try await open(quick: 0)
    // Exactly one fold's worth: the fourth commit makes it due and queues it, so a task
    // asked after that commit runs after the fold (a second batch would be queued only
    // when the first ends, racing with the task).
    let batch = Journal.foldBatch / 4
    for commit in 0..<4 {
      let matches = (0..<batch).map { match("Ann", "Bo\($0 % 3)", at: Int64(commit * batch + $0)) }
      _ = try await thread.commit([], matches: matches).get()
    }
    // A task asked now runs after the fold the last commit queued.
    let (unfolded, board) = try await thread.submit {
      $0.listedOpponents = 1
      return ($0.unfoldedMatches, try $0.leaderboard(limit: 10))
    }.get()
    #expect(unfolded == 0)
    #expect(board.first?.name == "Ann" && board.first?.won == 4 * batch)
    #expect(board.map(\.lost).reduce(0, +) == 4 * batch)
    // Pruned past the limit (100) once folded.
    #expect(try await thread.submit { try $0.recentMatches(limit: 10_000).count }.get() == 100)
    try await thread.close()
  }
}

extension Optional {
  /// Whether there is no value (a result type need not be equatable for this).
  fileprivate var isNil: Bool { self == nil }
}

@Suite("Server: the journal's WAL under steady play")
struct JournalWALTests {
  func joins(_ range: Range<Int>) -> [LobbyAction] {
    range.map { .join(room: "r\($0)", name: "p\($0)", token: "t\($0)", at: Int64($0)) }
  }

  @Test(
    "a WAL the other connection's checkpoints never finish copying is copied on the journal's own and starts over"
  )
  func walStartsOver() async throws {
    // No checkpoint on the other connection at all: as under steady play, where commits
    // keep coming while each one runs, so none ever copies the whole log.
    let (thread, _) = try await JournalThread.open(
      directory: temporaryDataDirectory(), keepMatches: 100, quickCommitMicros: 1_000_000,
      checkpointInterval: .max, walFrameLimit: 64
    ) { _ in () }
    var longest = 0
    for index in 0..<1_000 {
      // Each on the caller's thread, as the hub commits; a catch-up queued on the
      // journal's thread runs before the next task asked of it.
      guard case .success = thread.commitNowIfQuick(joins(index..<(index + 1)), matches: [])
      else {
        Issue.record("commit \(index) was not taken at once")
        return
      }
      longest = max(longest, try await thread.submit { $0.walFrames }.get())
    }
    // One frame a commit: without the catch-up the log holds 1,000 frames and more.
    #expect(longest < 64 + 10)
    let loaded = try await thread.submit { try $0.load(defaults: .init()) }.get()
    #expect(loaded.actions == 1_000)
    try await thread.close()
  }
}
