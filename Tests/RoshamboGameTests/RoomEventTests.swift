import GameFixtures
import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

/// Applies `action`, which the rules must accept, and returns its events.
func events(
  _ room: inout RoomState, _ action: RoomAction, sourceLocation: SourceLocation = #_sourceLocation
) -> [RoomEvent] {
  switch room.reduce(action) {
  case .success(let events): return events
  case .failure(let refusal):
    Issue.record("\(action) was refused: \(refusal)", sourceLocation: sourceLocation)
    return []
  }
}

/// What each accepted action did, exactly, as the rules report it: the facts the server's
/// journal, log, clocks and broadcast act on.
@Suite("Room events", .cpuBound)
struct RoomEventTests {
  @Test("joining: seated, then the match starts with its deadline")
  func joining() {
    var room = RoomState(
      name: "den", settings: .init(bestOf: 3, roundMillis: 20_000, graceMillis: 30_000))
    #expect(
      events(&room, .playerJoined(name: "Alice", token: "t1", at: 1_000)) == [
        .seated(.one, name: "Alice")
      ])
    #expect(
      events(&room, .playerJoined(name: "Bob", token: "t2", at: 2_000)) == [
        .seated(.two, name: "Bob"), .matchStarted, .deadlineSet(round: 1, at: 22_000),
      ])
    #expect(events(&room, .spectatorJoined) == [.spectatorJoined])
    #expect(events(&room, .spectatorLeft) == [.spectatorLeft])
  }

  @Test("a pick names only its seat; the second resolves the round and sets the next deadline")
  func picks() {
    var room = playingRoom(roundMillis: 20_000)
    #expect(
      events(&room, .chose(seat: .one, round: 1, weapon: .rock, at: 5_000)) == [.picked(.one)])
    let resolved = RoundResult(
      round: 1, weapons: [.rock, .scissors], winner: .one, reason: "rock crushes scissors",
      at: 6_000)
    #expect(
      events(&room, .chose(seat: .two, round: 1, weapon: .scissors, at: 6_000)) == [
        .picked(.two), .roundResolved(resolved), .deadlineSet(round: 2, at: 26_000),
      ])
  }

  @Test("the pick that wins the match: the round, the deadline cleared, the finished match")
  func matchEnds() {
    var room = playingRoom(bestOf: 1, roundMillis: 20_000)
    _ = events(&room, .chose(seat: .one, round: 1, weapon: .paper, at: 5_000))
    let round = RoundResult(
      round: 1, weapons: [.paper, .rock], winner: .one, reason: "paper covers rock", at: 6_000)
    // The finished match keeps its rounds: only resolved ones, with when they resolved.
    let match = FinishedMatch(
      room: "den", finishedAt: 6_000, ruleset: "classic", bestOf: 1, players: ["Alice", "Bob"],
      scores: [1, 0], winner: "Alice", forfeit: false, fair: false, rated: false,
      rounds: [round])
    #expect(
      events(&room, .chose(seat: .two, round: 1, weapon: .rock, at: 6_000)) == [
        .picked(.two), .roundResolved(round), .deadlineCleared, .matchEnded(match),
      ])
    #expect(events(&room, .rematchRequested(seat: .two, at: 7_000)) == [.rematchAsked(.two)])
    #expect(
      events(&room, .rematchRequested(seat: .one, at: 8_000)) == [
        .rematchAsked(.one), .matchStarted, .deadlineSet(round: 1, at: 28_000),
      ])
  }

  @Test("a round that times out on the same moment it opened still gets the next round's deadline")
  func deadlineOnTheSameMoment() {
    var room = playingRoom(roundMillis: 20_000)
    // Round 1 opened at 2,000 (deadline 22,000); both pick at 2,000: round 2's deadline
    // is the same moment, and still a new one.
    _ = events(&room, .chose(seat: .one, round: 1, weapon: .rock, at: 2_000))
    let after = events(&room, .chose(seat: .two, round: 1, weapon: .rock, at: 2_000))
    #expect(after.last == .deadlineSet(round: 2, at: 22_000))
    #expect(
      events(&room, .deadlinePassed(round: 2, at: 22_000)).contains(
        .deadlineSet(round: 3, at: 42_000)))
  }

  @Test("a dropped connection starts the grace, coming back ends it, running out forfeits")
  func grace() {
    var room = playingRoom()
    #expect(
      events(&room, .disconnected(seat: .one, at: 3_000)) == [.graceStarted(.one, endsAt: 33_000)])
    #expect(events(&room, .reconnected(seat: .one, at: 4_000)) == [.graceEnded(.one)])
    _ = events(&room, .disconnected(seat: .one, at: 5_000))
    let forfeit = FinishedMatch(
      room: "den", finishedAt: 35_000, ruleset: "classic", bestOf: 3, players: ["Alice", "Bob"],
      scores: [0, 0], winner: "Bob", forfeit: true, fair: false, rated: false, rounds: [])
    #expect(
      events(&room, .graceExpired(seat: .one, at: 35_000)) == [.gaveUp(.one), .matchEnded(forfeit)])
    // The winner leaves the finished match too: the room empties and waits.
    #expect(events(&room, .left(seat: .two, at: 36_000)) == [.gaveUp(.two)])
    #expect(room.phase == .waiting && room.seats.isEmpty)
  }

  @Test("a fair room: commitments name the seat, the reveal stage has its own deadline")
  func fair() {
    var room = RoomState(
      name: "den", settings: .init(bestOf: 3, graceMillis: 30_000, fair: true, revealMillis: 9_000))
    _ = events(&room, .playerJoined(name: "Alice", token: "t1", at: 0))
    _ = events(&room, .playerJoined(name: "Bob", token: "t2", at: 0))
    let digest = String(repeating: "a", count: 64)
    #expect(
      events(&room, .committed(seat: .one, round: 1, digest: digest, at: 1_000)) == [
        .committed(.one)
      ])
    #expect(
      events(&room, .committed(seat: .two, round: 1, digest: digest, at: 2_000)) == [
        .committed(.two), .deadlineSet(round: 1, at: 11_000),
      ])
    let nonce = String(repeating: "b", count: 64)
    #expect(
      events(
        &room,
        .revealed(seat: .one, round: 1, weapon: .rock, nonce: nonce, matches: false, at: 3_000))
        == [.revealed(.one, matches: false)])
    let result = events(
      &room, .revealed(seat: .two, round: 1, weapon: .rock, nonce: nonce, matches: true, at: 4_000))
    #expect(result.first == .revealed(.two, matches: true))
    // No round deadline in this room: the reveal stage's deadline goes with the round.
    #expect(result.last == .deadlineCleared)
  }

  @Test("random games: events agree with the state (deadline, rounds, match end) and hide picks")
  func eventsAgreeWithState() async {
    await propertyCheck(
      count: 300, input: Gen.int(in: 0...63), PropertyTests.script
    ) { setup, numbers in
      var room = RoomState(name: "p", settings: settings(from: setup))
      var script = ActionScript()
      for r in numbers {
        let before = room
        let action = script.action(from: r, in: room)
        guard case .success(let events) = room.reduce(action) else { continue }
        #expect(!events.isEmpty, "\(action) said nothing")
        // The last deadline event is the room's deadline now; none means unchanged.
        let deadline = events.reduce(Optional<Int64?>.none) { last, event in
          switch event {
          case .deadlineSet(_, let at): .some(at)
          case .deadlineCleared: .some(nil)
          default: last
          }
        }
        #expect((deadline ?? before.deadline) == room.deadline, "\(action): \(events)")
        if case .deadlineSet(let round, _) = events.last(where: {
          if case .deadlineSet = $0 { true } else { false }
        }) {
          #expect(round == room.round)
        }
        let resolved = events.compactMap { if case .roundResolved(let r) = $0 { r } else { nil } }
        if room.phase == before.phase, room.phase == .choosing {
          #expect(resolved.map(\.round) == Array(before.round..<room.round), "\(action)")
        }
        let ended = events.contains { if case .matchEnded = $0 { true } else { false } }
        #expect(ended == (before.phase == .choosing && room.phase == .over), "\(action)")
        // Only a resolved round or a finished match carries a weapon.
        for event in events {
          switch event {
          case .roundResolved(let result):
            #expect(result.round < room.round || room.phase != .choosing)
          case .matchEnded(let match):
            // Every round it keeps is resolved: the room's history, in order.
            #expect(match.rounds == room.history, "\(event)")
          default: #expect(!"\(event)".contains("weapon"), "\(event)")
          }
        }
      }
    }
  }
}

/// What each accepted lobby action did: rooms opened and closed, players moved.
@Suite("Lobby events")
struct LobbyEventTests {
  func reduce(_ lobby: inout LobbyState, _ action: LobbyAction) -> [LobbyEvent] {
    switch lobby.reduce(action) {
    case .success(let events): return events
    case .failure(let refusal):
      Issue.record("\(action) was refused: \(refusal)")
      return []
    }
  }

  @Test("quick match opens a room; the room closes when its last player leaves")
  func openAndClose() {
    var lobby = LobbyState()
    #expect(
      reduce(&lobby, .join(room: nil, name: "A", token: "a", at: 1)) == [
        .opened("quick-1"), .room("quick-1", .seated(.one, name: "A")),
      ])
    #expect(
      reduce(&lobby, .room("quick-1", .left(seat: .one, at: 2))) == [
        .room("quick-1", .gaveUp(.one)), .closed("quick-1"),
      ])
    #expect(lobby.rooms.isEmpty)
    #expect(lobby.reduce(.spectate(room: "quick-1")) == .failure(.noSuchRoom("quick-1")))
  }

  @Test("a stranded player moved to the waiting one: the forfeit, the release, the move")
  func moved() {
    var lobby = LobbyState(defaults: .init(bestOf: 1))
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 3))
    var ended = lobby.rooms["quick-1"]!
    ended.apply(.left(seat: .two, at: 4))
    let forfeit = FinishedMatch(
      room: "quick-1", finishedAt: 4, ruleset: "classic", bestOf: 1, players: ["A", "B"],
      scores: [0, 0], winner: "A", forfeit: true, fair: false, rated: false, rounds: [])
    #expect(
      reduce(&lobby, .room("quick-1", .left(seat: .two, at: 4))) == [
        .room("quick-1", .gaveUp(.two)), .room("quick-1", .matchEnded(forfeit)),
        .room("quick-1", .released(.one)), .room("quick-2", .seated(.two, name: "A")),
        .room("quick-2", .matchStarted),
        .moved(
          .init(
            token: "a", from: "quick-1", fromSeat: .one, lastState: ended, to: "quick-2",
            seat: .two)),
        .closed("quick-1"),
      ])
  }
}
