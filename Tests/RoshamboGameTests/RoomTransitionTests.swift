import GameFixtures
import ReduxTesting
import RoshamboGame
import Testing

/// Asserts that `action` is refused as `kind` and changes nothing, not even the version.
func expectRefused(
  _ room: RoomState, _ action: RoomAction, _ kind: Refusal.Kind,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var after = room
  let refusal = after.apply(action)
  #expect(refusal?.kind == kind, "\(action)", sourceLocation: sourceLocation)
  #expect(after == room, "a refused action must change nothing", sourceLocation: sourceLocation)
}

@MainActor
@Suite("Room transitions")
struct RoomTransitionTests {
  static let settings = RoomState.Settings(
    ruleset: .classic, bestOf: 3, roundMillis: 20_000, graceMillis: 30_000)

  // MARK: - Joining

  @Test("the first player waits, the second starts the match with a deadline")
  func joinAndStart() {
    let store = TestStore(
      initialState: RoomState(name: "den", settings: Self.settings), reducer: RoomReducer())
    store.send(.playerJoined(name: "Alice", token: "t1", at: 1_000)) {
      $0.seats[.one] = .init(name: "Alice", token: "t1")
      $0.version = 1
    }
    store.send(.playerJoined(name: "Bob", token: "t2", at: 2_000)) {
      $0.seats[.two] = .init(name: "Bob", token: "t2")
      $0.phase = .choosing
      $0.deadline = 22_000
      $0.version = 2
    }
    store.finish()
  }

  @Test("a third player is refused: room_full")
  func roomFull() {
    var room = playingRoom()
    expectRefused(room, .playerJoined(name: "Carol", token: "t3", at: 1), .roomFull)
    play(&room, .rock, .scissors)
    play(&room, .rock, .scissors)
    #expect(room.phase == .over)
    expectRefused(room, .playerJoined(name: "Carol", token: "t3", at: 1), .roomFull)
  }

  @Test("after an opponent leaves a finished match, a new player starts a fresh match")
  func joinAfterLeave() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    play(&room, .rock, .scissors)
    room.apply(.left(seat: .two, at: 50_000))
    let before = room.version
    #expect(room.apply(.playerJoined(name: "Carol", token: "t3", at: 60_000)) == nil)
    #expect(room.seats[.two]?.name == "Carol")
    #expect(room.phase == .choosing)
    #expect(room.history.isEmpty)
    #expect(room.seats[.one]?.score == 0)
    #expect(room.version == before + 1)
  }

  // MARK: - Spectators

  @Test("spectators come and go in every phase; removing one that is not there is refused")
  func spectators() {
    for var room in [RoomState(name: "den"), playingRoom()] {
      expectRefused(room, .spectatorLeft, .stale)
      #expect(room.apply(.spectatorJoined) == nil)
      #expect(room.spectators == 1)
      #expect(room.apply(.spectatorLeft) == nil)
      #expect(room.spectators == 0)
    }
  }

  // MARK: - Choosing

  @Test("the first pick is hidden in the room; the second resolves the round")
  func chooseAndResolve() {
    let store = TestStore(initialState: playingRoom(roundMillis: 20_000), reducer: RoomReducer())
    store.send(.chose(seat: .two, round: 1, weapon: .scissors, at: 5_000)) {
      $0.seats[.two]!.pick = .scissors
      $0.version = 3
    }
    store.send(.chose(seat: .one, round: 1, weapon: .rock, at: 6_000)) {
      $0.seats[.two]!.pick = nil
      $0.seats[.one]!.score = 1
      $0.history = [
        .init(
          round: 1, weapons: [.rock, .scissors], winner: .one, reason: "rock crushes scissors",
          at: 6_000)
      ]
      $0.round = 2
      $0.deadline = 26_000
      $0.version = 4
    }
    store.finish()
  }

  @Test("a draw is kept in history and counts for nobody")
  func draw() {
    var room = playingRoom()
    play(&room, .paper, .paper)
    #expect(room.history.last?.weapons == [.paper, .paper])
    #expect(room.history.last?.winner == nil && room.history.last?.reason == nil)
    #expect(room.seats[.one]?.score == 0 && room.seats[.two]?.score == 0)
    #expect(room.round == 2)
    #expect(room.phase == .choosing)
  }

  @Test("the match ends when a seat reaches bestOf / 2 + 1 wins")
  func matchEnds() {
    var room = playingRoom(bestOf: 5)
    play(&room, .rock, .scissors)
    play(&room, .rock, .paper)
    play(&room, .rock, .rock)
    play(&room, .paper, .rock)
    #expect(room.phase == .choosing)
    play(&room, .scissors, .paper)
    #expect(room.phase == .over)
    #expect(room.winner == .one)
    #expect(room.seats[.one]?.score == 3)
    #expect(room.seats[.two]?.score == 1)
    #expect(room.deadline == nil)
  }

  @Test("picks are refused with the contract's codes")
  func chooseRefusals() {
    var room = playingRoom(ruleset: .classic)
    expectRefused(room, .chose(seat: .one, round: 2, weapon: .rock, at: 1), .wrongRound)
    expectRefused(room, .chose(seat: .one, round: 0, weapon: .rock, at: 1), .wrongRound)
    expectRefused(room, .chose(seat: .one, round: 1, weapon: .lizard, at: 1), .invalidWeapon)
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 1))
    expectRefused(room, .chose(seat: .one, round: 1, weapon: .paper, at: 1), .alreadyChosen)

    let waiting = RoomState(name: "w")
    expectRefused(waiting, .chose(seat: .one, round: 1, weapon: .rock, at: 1), .notPlaying)
    var oneSeat = waiting
    oneSeat.apply(.playerJoined(name: "A", token: "t", at: 1))
    expectRefused(oneSeat, .chose(seat: .one, round: 1, weapon: .rock, at: 1), .notPlaying)

    var over = playingRoom()
    play(&over, .rock, .scissors)
    play(&over, .rock, .scissors)
    expectRefused(over, .chose(seat: .one, round: 3, weapon: .rock, at: 1), .notPlaying)
  }

  @Test("lizard and spock are weapons in the lizardSpock ruleset")
  func lizardSpock() {
    var room = playingRoom(ruleset: .lizardSpock)
    play(&room, .spock, .rock)
    #expect(room.history.last?.reason == "spock vaporizes rock")
    #expect(room.history.last?.winner == .one)
  }

  // MARK: - Connections

  @Test("a dropped seat is held with a grace deadline and taken back with reconnected")
  func disconnectAndReconnect() {
    let store = TestStore(initialState: playingRoom(), reducer: RoomReducer())
    store.send(.disconnected(seat: .two, at: 10_000)) {
      $0.seats[.two]!.connected = false
      $0.seats[.two]!.graceEndsAt = 40_000
      $0.version = 3
    }
    store.send(.reconnected(seat: .two, at: 12_000)) {
      $0.seats[.two]!.connected = true
      $0.seats[.two]!.graceEndsAt = nil
      $0.version = 4
    }
    store.finish()
  }

  @Test("connection events that do not apply are refused as stale")
  func staleConnectionEvents() {
    var room = playingRoom()
    expectRefused(room, .reconnected(seat: .one, at: 1), .stale)
    room.apply(.disconnected(seat: .one, at: 1_000))
    expectRefused(room, .disconnected(seat: .one, at: 2_000), .stale)
    expectRefused(RoomState(name: "x"), .disconnected(seat: .two, at: 1), .stale)
  }

  @Test("grace running out forfeits a running match")
  func graceForfeits() {
    var room = playingRoom()
    room.apply(.disconnected(seat: .one, at: 10_000))
    expectRefused(room, .graceExpired(seat: .one, at: 39_999), .stale)
    expectRefused(room, .graceExpired(seat: .two, at: 99_999), .stale)
    #expect(room.apply(.graceExpired(seat: .one, at: 40_000)) == nil)
    #expect(room.phase == .over)
    #expect(room.winner == .two)
    #expect(room.seats[.one]?.hasLeft == true)
    #expect(room.seat(holding: "t1") == nil)
  }

  @Test("a reconnected seat's old grace timer is stale")
  func graceAfterReconnectIsStale() {
    var room = playingRoom()
    room.apply(.disconnected(seat: .one, at: 10_000))
    room.apply(.reconnected(seat: .one, at: 11_000))
    expectRefused(room, .graceExpired(seat: .one, at: 40_000), .stale)
  }

  @Test("grace running out while waiting empties the seat")
  func graceWhileWaiting() {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "A", token: "t", at: 0))
    room.apply(.disconnected(seat: .one, at: 1_000))
    room.apply(.graceExpired(seat: .one, at: 31_000))
    #expect(room.seats.isEmpty)
    #expect(room.isEmpty)
  }

  // MARK: - Leaving

  @Test("leaving a running match forfeits it to the other seat")
  func leaveForfeits() {
    var room = playingRoom()
    play(&room, .paper, .rock)
    room.apply(.left(seat: .one, at: 20_000))
    #expect(room.phase == .over)
    #expect(room.winner == .two)
    #expect(room.seats[.one]?.hasLeft == true)
    expectRefused(room, .left(seat: .one, at: 21_000), .notPlaying)
  }

  @Test("leaving while waiting frees the seat; leaving after the match keeps the result")
  func leaveOtherPhases() {
    var waiting = RoomState(name: "den")
    waiting.apply(.playerJoined(name: "A", token: "t", at: 0))
    waiting.apply(.left(seat: .one, at: 1))
    #expect(waiting.seats.isEmpty)

    var over = playingRoom()
    play(&over, .rock, .scissors)
    play(&over, .rock, .scissors)
    over.apply(.left(seat: .two, at: 1))
    #expect(over.phase == .over)
    #expect(over.winner == .one)
    #expect(over.seats[.two]?.hasLeft == true)
    over.apply(.left(seat: .one, at: 2))
    #expect(over.isEmpty)
  }

  // MARK: - Deadlines

  @Test("a deadline passing: the seat that chose wins the round")
  func deadlineOnePick() {
    var room = playingRoom(roundMillis: 20_000)
    room.apply(.chose(seat: .two, round: 1, weapon: .paper, at: 5_000))
    expectRefused(room, .deadlinePassed(round: 1, at: 21_999), .stale)
    expectRefused(room, .deadlinePassed(round: 2, at: 30_000), .stale)
    #expect(room.apply(.deadlinePassed(round: 1, at: 22_000)) == nil)
    #expect(
      room.history.last
        == .init(round: 1, weapons: [nil, .paper], winner: .two, reason: nil, at: 22_000))
    #expect(room.seats[.two]?.score == 1)
    #expect(room.round == 2)
    #expect(room.deadline == 42_000)
  }

  @Test("a deadline passing with no picks is a draw")
  func deadlineNoPicks() {
    var room = playingRoom(roundMillis: 20_000)
    room.apply(.deadlinePassed(round: 1, at: 22_000))
    #expect(
      room.history.last
        == .init(round: 1, weapons: [nil, nil], winner: nil, reason: nil, at: 22_000))
  }

  @Test("rooms without a deadline refuse deadline events")
  func noDeadline() {
    expectRefused(playingRoom(roundMillis: 0), .deadlinePassed(round: 1, at: .max), .stale)
  }

  // MARK: - Rematch

  @Test("a rematch starts when both seats ask, with scores at zero")
  func rematch() {
    var room = playingRoom()
    expectRefused(room, .rematchRequested(seat: .one, at: 1), .notPlaying)
    play(&room, .rock, .scissors)
    play(&room, .rock, .scissors)
    let store = TestStore(initialState: room, reducer: RoomReducer())
    store.send(.rematchRequested(seat: .two, at: 30_000)) {
      $0.seats[.two]!.wantsRematch = true
      $0.version += 1
    }
    store.send(.rematchRequested(seat: .two, at: 30_001))
    store.send(.rematchRequested(seat: .one, at: 31_000)) {
      $0.seats[.one]!.score = 0
      $0.seats[.two]!.wantsRematch = false
      $0.history = []
      $0.round = 1
      $0.winner = nil
      $0.phase = .choosing
      $0.version += 1
    }
    store.finish()
  }

  @Test("a rematch with an opponent who left is refused")
  func rematchAfterLeave() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    play(&room, .rock, .scissors)
    room.apply(.left(seat: .two, at: 1))
    expectRefused(room, .rematchRequested(seat: .one, at: 2), .notPlaying)
    expectRefused(room, .rematchRequested(seat: .two, at: 2), .notPlaying)
  }
}
