import Foundation
import GRDB
import RoshamboGame
import RoshamboServer
import Testing

@Suite("Server: the journal stays bounded", .serialized)
struct JournalTests {
  func journalRows(_ directory: String) throws -> Int {
    let database = try DatabaseQueue(path: directory + "/roshambo.sqlite")
    return try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journal") ?? 0 }
  }

  @Test("the journal is folded into a snapshot every N actions, and restores exactly")
  func compaction() async throws {
    let data = temporaryDataDirectory()
    let server = try await startServer(
      settings: .init(bestOf: 1), dataDirectory: data, compactionInterval: 10)
    let (alice, bob) = try await seatTwo(port: server.port)
    for _ in 0..<8 {
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      alice.send(.rematch(id: nil))
      bob.send(.rematch(id: nil))
      _ = try await alice.state { $0.phase == .choosing && $0.rematch.isEmpty }
    }
    let before = try await server.lobby()
    try await server.stop()
    // 2 joins + 8 × (2 picks + 2 rematches) = 34 actions, folded every 10.
    #expect(try journalRows(data) < 10)
    let again = try await startServer(settings: .init(bestOf: 1), dataDirectory: data)
    let after = try await again.lobby()
    // A restart marks the connected seats as disconnected; everything else is the same.
    var expected = before
    for seat in Seat.allCases {
      expected.rooms["den"]?.seats[seat]?.connected = false
    }
    #expect(after.rooms["den"]?.history == expected.rooms["den"]?.history)
    #expect(
      after.rooms["den"]?.seats.mapValues(\.score)
        == expected.rooms["den"]?.seats.mapValues(\.score))
    #expect(after.rooms["den"]?.phase == .choosing)
    #expect(after.rooms["den"]?.seats.values.allSatisfy { !$0.connected } == true)
    let history = try MatchHistory(dataDirectory: data).report(limit: 20)
    #expect(history.contains("1. Alice  8 won, 0 lost"))
    try await again.stop()
  }
}
