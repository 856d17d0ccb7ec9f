import Foundation
import GRDB
import RoshamboGame
import RoshamboServer
import Testing

@testable import RoshamboJournal

@Suite("Server: the journal stays bounded", .serialized)
struct JournalTests {
  func journalRows(_ directory: String) throws -> Int {
    let database = try DatabaseQueue(path: directory + "/roshambo.sqlite")
    return try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journal") ?? 0 }
  }

  @Test("the journal is folded into a snapshot every N actions, and restores exactly")
  func compaction() async throws {
    let data = temporaryDataDirectory()
    let before = try await withServer(
      settings: .init(bestOf: 1), dataDirectory: data, compactionInterval: 10
    ) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      for _ in 0..<8 {
        _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
        alice.send(.rematch(id: nil))
        bob.send(.rematch(id: nil))
        _ = try await alice.state { $0.phase == .choosing && $0.rematch.isEmpty }
      }
      return try await server.lobby()
    }
    // 2 joins + 8 × (2 picks + 2 rematches) = 34 actions, folded every 10.
    #expect(try journalRows(data) < 10)
    let after = try await withServer(settings: .init(bestOf: 1), dataDirectory: data) {
      try await $0.lobby()
    }
    // The whole lobby is as it was, but that no connection outlived the stop: each seat
    // was disconnected when its connection closed, and started its grace then.
    var expected = before
    for seat in Seat.allCases {
      let graceEnds = try #require(after.rooms["den"]?.seats[seat]?.graceEndsAt)
      let at = graceEnds - RoomState.Settings(bestOf: 1).graceMillis
      expected.apply(.room("den", .disconnected(seat: seat, at: at)))
    }
    #expect(after == expected)
    let history = try MatchHistory(dataDirectory: data).report(limit: 20)
    // Two players without identities: their matches are kept and counted, not rated.
    #expect(history.contains("1. 1500?  \"Alice\"  8 won, 0 lost"), "\(history)")
    #expect(history.contains("winner: \"Alice\"  not rated"), "\(history)")
  }
}
