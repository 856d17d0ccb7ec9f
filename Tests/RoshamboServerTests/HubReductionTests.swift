import NIOCore
import NIOEmbedded
import RoshamboGame
import Testing

@testable import RoshamboHub
@testable import RoshamboServer

/// The hub's reduction alone: each action's effects, exactly, with no loop, socket or
/// disk: what is journaled, which rooms' states go out, which clocks start and stop,
/// what is logged.
@Suite("Server: the hub's reduction")
struct HubReductionTests {
  func playing(roundMillis: Int64 = 0) -> LobbyState {
    var lobby = LobbyState(defaults: .init(bestOf: 1, roundMillis: roundMillis))
    lobby.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
    lobby.apply(.join(room: "den", name: "Bob", token: "b", at: 0))
    return lobby
  }

  func effects(_ lobby: inout LobbyState, _ action: LobbyAction) -> [HubEffect] {
    switch HubReduction.reduce(&lobby, action) {
    case .success(let effects): return effects
    case .failure(let refusal):
      Issue.record("\(action) was refused: \(refusal)")
      return []
    }
  }

  @Test("a refused action changes nothing and has no effect")
  func refused() {
    var lobby = playing()
    let before = lobby
    let stale = LobbyAction.room("den", .deadlinePassed(round: 9, at: 1))
    #expect(HubReduction.reduce(&lobby, stale).failure?.kind == .stale)
    let early = LobbyAction.room("den", .chose(seat: .one, round: 2, weapon: .rock, at: 1))
    #expect(HubReduction.reduce(&lobby, early).failure == .wrongRound(current: 1))
    #expect(lobby == before)
  }

  @Test("a pick mid-round: journaled, its room's state sent, nothing logged")
  func pick() {
    var lobby = playing()
    let pick = LobbyAction.room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 1))
    #expect(effects(&lobby, pick) == [.journal(pick), .sendState(room: "den")])
  }

  @Test("the pick that ends a match: journaled with the finished match, logged, clock stopped")
  func matchEnds() {
    var lobby = playing(roundMillis: 20_000)
    let first = LobbyAction.room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 1))
    let second = LobbyAction.room("den", .chose(seat: .two, round: 1, weapon: .paper, at: 2))
    lobby.apply(first)
    let round = RoundResult(
      round: 1, weapons: [.rock, .paper], winner: .two, reason: "paper covers rock", at: 2)
    let match = FinishedMatch(
      room: "den", finishedAt: 2, ruleset: "classic", bestOf: 1, players: ["Alice", "Bob"],
      scores: [0, 1], winner: "Bob", forfeit: false, fair: false, rated: false,
      rounds: [round])
    #expect(
      effects(&lobby, second) == [
        .journal(second), .log(.round(room: "den", round)), .cancelTimer(.deadline(room: "den")),
        .recordMatch(match), .log(.matchOver(match)), .sendState(room: "den"),
      ])
  }

  @Test("connections: a drop starts the grace timer, a return stops it, expiry forfeits and logs")
  func grace() {
    var lobby = playing()
    let drop = LobbyAction.room("den", .disconnected(seat: .one, at: 10))
    #expect(
      effects(&lobby, drop) == [
        .journal(drop), .startGrace(room: "den", seat: .one, at: 30_010), .sendState(room: "den"),
      ])
    let back = LobbyAction.room("den", .reconnected(seat: .one, at: 20))
    #expect(
      effects(&lobby, back) == [
        .journal(back), .cancelTimer(.grace(room: "den", seat: .one)), .sendState(room: "den"),
      ])
    lobby.apply(drop)
    let expired = LobbyAction.room("den", .graceExpired(seat: .one, at: 30_010))
    let forfeit = FinishedMatch(
      room: "den", finishedAt: 30_010, ruleset: "classic", bestOf: 1, players: ["Alice", "Bob"],
      scores: [0, 0], winner: "Bob", forfeit: true, fair: false, rated: false, rounds: [])
    #expect(
      effects(&lobby, expired) == [
        .journal(expired), .cancelTimer(.grace(room: "den", seat: .one)),
        .log(.graceExpired(room: "den", seat: .one)), .recordMatch(forfeit),
        .log(.matchOver(forfeit)), .sendState(room: "den"),
      ])
  }

  @Test("a room that closes stops every clock it could hold")
  func closes() {
    var lobby = LobbyState()
    lobby.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
    let leave = LobbyAction.room("den", .left(seat: .one, at: 1))
    #expect(
      effects(&lobby, leave) == [
        .journal(leave), .cancelTimer(.grace(room: "den", seat: .one)),
        .cancelTimer(.deadline(room: "den")), .cancelTimer(.grace(room: "den", seat: .one)),
        .cancelTimer(.grace(room: "den", seat: .two)), .forgetRoom("den"),
        .sendState(room: "den"),
      ])
  }

  @Test(
    "quick match moves a stranded player: both rooms' states, and the player's connection follows")
  func moved() {
    var lobby = LobbyState(defaults: .init(bestOf: 1))
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 3))
    let leave = LobbyAction.room("quick-1", .left(seat: .two, at: 4))
    let result = effects(&lobby, leave)
    let follows = result.compactMap { if case .follow(let move) = $0 { move } else { nil } }
    #expect(follows.map(\.to) == ["quick-2"])
    #expect(follows.map(\.token) == ["a"])
    #expect(follows.first?.lastState.phase == .over)
    #expect(result.filter { if case .sendState = $0 { true } else { false } }.count == 2)
    #expect(result.contains(.sendState(room: "quick-1")))
    #expect(result.contains(.sendState(room: "quick-2")))
  }
}

extension Result {
  var failure: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
