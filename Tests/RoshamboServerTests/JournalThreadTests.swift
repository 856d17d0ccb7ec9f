import Foundation
import NIOCore
import RoshamboGame
import Testing

@testable import RoshamboServer

@Suite("Server: the journal's own thread")
struct JournalThreadTests {
  func open(quick: Int) async throws -> JournalThread {
    try await JournalThread.open(
      directory: temporaryDataDirectory(), keepMatches: 100, quickCommitMicros: quick
    ) { _ in () }.0
  }

  func joins(_ range: Range<Int>) -> [LobbyAction] {
    range.map { .join(room: "r\($0)", name: "p\($0)", token: "t\($0)", at: Int64($0)) }
  }

  @Test("a busy journal sends the commit to its thread, where it lands after the work before it")
  func busy() async throws {
    let thread = try await open(quick: 1_000_000)
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
    try await queued.get()
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
    let thread = try await open(quick: 300)
    // 20,000 rows in one commit take far longer than 300 µs on any disk.
    guard case .success = thread.commitNowIfQuick(joins(0..<20_000), matches: []) else {
      Issue.record("the first commit was not taken at once")
      return
    }
    #expect(thread.commitNowIfQuick(joins(20_000..<20_001), matches: []).isNil)
    try await thread.commit(joins(20_000..<20_001), matches: []).get()
    let never = try await open(quick: 0)
    #expect(never.commitNowIfQuick(joins(0..<1), matches: []).isNil)
    try await thread.close()
    try await never.close()
  }
}

extension Optional {
  /// Whether there is no value (a result type need not be equatable for this).
  fileprivate var isNil: Bool { self == nil }
}
