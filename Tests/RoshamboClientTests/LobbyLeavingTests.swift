import Foundation
import RoshamboClient
import RoshamboGame
import Testing

/// Leaving the lobby while entered in a tournament (issue 51, item 3): the first q asks,
/// the second withdraws and leaves, any other key stays; nobody else is asked.
@Suite("The lobby screen: leaving a tournament")
struct LobbyLeavingTests {
  static func view(_ phase: Tournament.Phase, entrants: [String], withdrawn: [String] = [])
    -> LobbyView
  {
    var view = LobbyView(
      people: [.init(name: "Alice", status: .idle, room: nil, takesChallenges: true)],
      peopleCount: 1, rooms: [], roomCount: 0, leaders: [])
    view.tournament = .init(
      kind: .roundRobin, phase: phase, round: phase == .entry ? 0 : 1, rounds: 2,
      standings: entrants.map {
        .init(
          name: $0, wins: 0, losses: 0, roundDifference: 0, alive: true,
          withdrawn: withdrawn.contains($0))
      }, pairings: [], champion: phase == .finished ? entrants.first : nil)
    return view
  }

  func state(_ view: LobbyView?) -> LobbyScreenState {
    var state = LobbyScreenState(me: "Alice")
    if let view { LobbyScreenReducer().reduce(into: &state, action: .viewed(view)) }
    return state
  }

  @Test("entered in a tournament not finished: q asks, a second q withdraws and leaves")
  func asksFirst() {
    var state = state(Self.view(.running, entrants: ["Alice", "Bob"]))
    #expect(state.quitStep == .ask)
    LobbyScreenReducer().reduce(into: &state, action: .askToLeave)
    #expect(
      state.notice
        == "Leaving withdraws you from the tournament: press q again to leave, any other key "
        + "stays.")
    #expect(state.quitStep == .withdrawAndLeave)
    // Entries still open: the same.
    #expect(self.state(Self.view(.entry, entrants: ["Alice"])).quitStep == .ask)
  }

  @Test(
    "Ctrl-C in a tournament withdraws before the program ends; a closed terminal or SIGTERM keeps the entry for the grace"
  )
  func signals() {
    let entered = state(Self.view(.entry, entrants: ["Alice", "Bob"]))
    #expect(entered.withdrawsWhenSignalled(SIGINT))
    #expect(!entered.withdrawsWhenSignalled(SIGHUP))
    #expect(!entered.withdrawsWhenSignalled(SIGTERM))
    let running = state(Self.view(.running, entrants: ["Alice", "Bob"]))
    #expect(running.withdrawsWhenSignalled(SIGINT))
    #expect(!running.withdrawsWhenSignalled(SIGHUP))
    // Not entered: nothing to withdraw from.
    #expect(!state(Self.view(.entry, entrants: ["Bob"])).withdrawsWhenSignalled(SIGINT))
  }

  @Test("any other key than q stays, and the next q asks again")
  func otherKeyStays() {
    var state = state(Self.view(.running, entrants: ["Alice", "Bob"]))
    LobbyScreenReducer().reduce(into: &state, action: .askToLeave)
    LobbyScreenReducer().reduce(into: &state, action: .stay)
    #expect(state.quitStep == .ask)
    #expect(state.notice == "You stay in the lobby and in the tournament.")
  }

  @Test("not entered, withdrawn, or the tournament finished: q leaves at once")
  func leavesAtOnce() {
    #expect(state(nil).quitStep == .leave)
    #expect(state(Self.view(.running, entrants: ["Bob", "Carol"])).quitStep == .leave)
    #expect(
      state(Self.view(.running, entrants: ["Alice", "Bob"], withdrawn: ["Alice"])).quitStep
        == .leave)
    #expect(state(Self.view(.finished, entrants: ["Alice", "Bob"])).quitStep == .leave)
  }

  @Test("the lobby says who withdrew, and tells the one who did what it means")
  func withdrawnShown() {
    let view = Self.view(.running, entrants: ["Alice", "Bob"], withdrawn: ["Alice"])
    #expect(LobbyText.lines(view.tournament!).contains { $0.hasSuffix(", withdrew") })
    let lines = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(
      for: state(view))
    #expect(lines.contains { $0.contains("You withdrew: your matches go to your opponents") })
  }
}

/// Coming back to the lobby after an absence that cost tournament matches (issue 51,
/// item 2): the lobby says so, from the view.
@Suite("The lobby screen: back after an absence")
struct LobbyAbsenceTests {
  static func view(lostAway: Int) -> LobbyView {
    var view = LobbyView(
      people: [.init(name: "Dave", status: .idle, room: nil, takesChallenges: true)],
      peopleCount: 1, rooms: [], roomCount: 0, leaders: [])
    view.tournament = .init(
      kind: .swiss, phase: .finished, round: 3, rounds: 3,
      standings: [
        .init(name: "Erin", wins: 3, losses: 0, roundDifference: 5, alive: true),
        .init(
          name: "Dave", wins: 1, losses: 2, roundDifference: -2, alive: true,
          lostAway: lostAway),
      ], pairings: [], champion: "Erin")
    return view
  }

  @Test("the first view says how many tournament matches were lost by not coming back")
  func toldOnReturn() {
    var state = LobbyScreenState(me: "Dave")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(lostAway: 2)))
    #expect(
      state.notice
        == "While you were away, you lost 2 tournament matches by not coming back in time.")
    // The next view with the same count says nothing new.
    state.notice = nil
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(lostAway: 2)))
    #expect(state.notice == nil)
    // One more lost while this lobby was away (reconnecting): said of that one.
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(lostAway: 3)))
    #expect(
      state.notice == "While you were away, you lost a tournament match by not coming back in time."
    )
  }

  @Test("nothing lost, nothing said")
  func nothingLost() {
    var state = LobbyScreenState(me: "Dave")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(lostAway: 0)))
    #expect(state.notice == nil)
  }
}

/// The lobby's pairings say how a match was decided when nobody played it out (issue 51,
/// items 2 and 3): a walkover, or a grace that ran out.
@Suite("The lobby's pairings: walkovers and no-shows")
struct LobbyPairingWordsTests {
  @Test("a walkover and a grace run out are said on the pairing's line")
  func pairingLines() {
    var walkover = Tournament.Pairing(
      players: ["Ann", "Bob"], room: "cup-1-2-1", winner: "Bob", scores: [0, 0])
    var lapsed = Tournament.Pairing(
      players: ["Cat", "Dan"], room: "cup-1-2-2", winner: "Cat", scores: [1, 0])
    lapsed.graceRanOut = true
    walkover.graceRanOut = false
    let view = LobbyView.TournamentView(
      kind: .roundRobin, phase: .running, round: 2, rounds: 3,
      standings: [
        .init(name: "Ann", wins: 1, losses: 1, roundDifference: 0, alive: true, withdrawn: true),
        .init(name: "Bob", wins: 1, losses: 0, roundDifference: 0, alive: true),
        .init(name: "Cat", wins: 1, losses: 0, roundDifference: 1, alive: true),
        .init(name: "Dan", wins: 0, losses: 1, roundDifference: -1, alive: true, lostAway: 1),
      ], pairings: [walkover, lapsed], champion: nil)
    let lines = LobbyText.lines(view)
    #expect(lines.contains("  cup-1-2-1: Ann vs Bob → Bob (walkover: Ann withdrew)"), "\(lines)")
    #expect(lines.contains("  cup-1-2-2: Cat vs Dan → Cat (Dan did not come back)"), "\(lines)")
  }
}
