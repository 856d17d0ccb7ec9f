import RoshamboGame
import Testing

@testable import RoshamboJournalFormat

/// What issue 51 added to the lobby's state survives a snapshot: an entrant withdrawn
/// from a running tournament (their walkovers follow from it), how each seat was given
/// up, and which pairing was lost by not coming back in time.
@Suite("Journal: withdrawals, walkovers and graces that ran out")
struct JournalWithdrawalTests {
  @Test("the snapshot of a tournament with a withdrawal and a lapsed seat reads back as written")
  func snapshotKeepsThem() throws {
    var lobby = LobbyState()
    let actions: [LobbyAction] = [
      .tournament(.open(.roundRobin, settings: .init(bestOf: 1))),
      .tournament(.enter(name: "Ann")), .tournament(.enter(name: "Ben")),
      .tournament(.enter(name: "Cat")),
      .tournament(.startRound(tokens: ["Ann": "t1", "Ben": "t2", "Cat": "t3"], at: 1)),
      // Round 1: Ann has the bye; Cat's grace runs out against Ben. Ann withdraws.
      .room("cup-1-1-1", .disconnected(seat: .two, at: 2)),
      .room("cup-1-1-1", .graceExpired(seat: .two, at: 30_002)),
      .tournament(.withdraw(name: "Ann")),
      // Round 2: Ann against Ben, a walkover.
      .tournament(.startRound(tokens: ["Ann": "t4", "Ben": "t5", "Cat": "t6"], at: 40_000)),
    ]
    for action in actions {
      #expect(try JournalFormat.action(from: JournalFormat.bytes(of: action)) == action)
      #expect(lobby.apply(action) == nil, "\(action)")
    }
    #expect(lobby.tournament?.withdrawn == ["Ann"])
    #expect(lobby.rooms["cup-1-1-1"]?.seats[.two]?.leftBy == .timedOut)
    #expect(lobby.rooms["cup-1-2-1"]?.seats[.one]?.leftBy == .withdrew)
    #expect(lobby.tournament?.rounds.first?.first { $0.room != nil }?.graceRanOut == true)
    #expect(try JournalFormat.lobby(from: JournalFormat.bytes(of: lobby)) == lobby)
  }
}
