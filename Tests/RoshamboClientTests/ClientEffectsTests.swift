import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// What the client's reducer returns beyond the state: the effects ``ClientSession``
/// carries out. Values only: no socket, loop, disk or sleep.
@Suite("Client: the reducer's effects")
struct ClientEffectsTests {
  /// Alice (seat one) and Bob in round 1 of `den`, as Alice sees it.
  static func playing(fair: Bool = false) -> RoomView {
    var settings = RoomState.Settings()
    settings.fair = fair
    var room = RoomState(name: "den", settings: settings)
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    return room.view(for: .one)
  }

  /// Alice seated in `view`, as a client that has had its welcome and this state.
  static func seated(in view: RoomView, seq: Int = 1) -> ClientState {
    var state = ClientState()
    _ = ClientReducer().reduce(
      into: &state, effectsOf: .welcome(room: view.room, seat: .one, token: "t"))
    _ = ClientReducer().reduce(into: &state, effectsOf: .synced(view: view, seq: seq))
    return state
  }

  static let nonce = String(repeating: "ab", count: 32)

  @Test("a pick the reducer takes is sent once; a second key for the same round sends nothing")
  func pickSentOnce() {
    var state = Self.seated(in: Self.playing())
    let first = ClientReducer().reduce(into: &state, effectsOf: .choose(.rock))
    #expect(first == [.send(.choose(round: 1, weapon: .rock))])
    let again = ClientReducer().reduce(into: &state, effectsOf: .choose(.rock))
    #expect(again == [])
    var spectator = ClientState()
    let none = ClientReducer().reduce(into: &spectator, effectsOf: .choose(.rock))
    #expect(none == [])
  }

  @Test("in a fair room a pick asks for a commitment, and the commitment is what is sent")
  func fairPick() throws {
    var state = Self.seated(in: Self.playing(fair: true))
    let asked = ClientReducer().reduce(into: &state, effectsOf: .choose(.paper))
    #expect(asked == [.makeCommitment(.paper)])
    let committed = ClientReducer().reduce(
      into: &state, effectsOf: .commit(.paper, nonce: Self.nonce))
    let secret = try #require(state.fair.secret(for: 1))
    #expect(committed == [.send(.commit(round: 1, digest: secret.digest))])
    let twice = ClientReducer().reduce(
      into: &state, effectsOf: .commit(.paper, nonce: Self.nonce))
    #expect(twice == [])
  }

  @Test("the seat: kept on a welcome and while the match runs, forgotten on a bad token")
  func seatKeeping() {
    var state = ClientState()
    let welcomed = ClientReducer().reduce(
      into: &state, effectsOf: .welcome(room: "den", seat: .one, token: "t"))
    #expect(welcomed == [.keepSeat(room: "den", token: "t")])
    let synced = ClientReducer().reduce(
      into: &state, effectsOf: .synced(view: Self.playing(), seq: 1))
    #expect(synced == [.keepSeat(room: "den", token: "t")])
    let bad = ClientReducer().reduce(
      into: &state, effectsOf: .serverError(ProtocolError(code: .badToken, message: "no")))
    #expect(bad == [.forgetSeat])
    let called = ClientReducer().reduce(
      into: &state, effectsOf: .serverError(ProtocolError(code: .matchReady, message: "go")))
    #expect(called == [.matchReady])
  }

  @Test("a match seen to end: the seat forgotten and the record saved, once")
  func matchEnds() {
    var state = Self.seated(in: Self.playing())
    let over = ScreenTests.over()
    let ended = ClientReducer().reduce(into: &state, effectsOf: .synced(view: over, seq: 2))
    #expect(ended == [.forgetSeat, .saveRecord])
    let later = ClientReducer().reduce(into: &state, effectsOf: .synced(view: over, seq: 3))
    #expect(later == [.forgetSeat])
  }

  @Test("after a new connection, a pending pick the server does not show is sent again, once")
  func lostPickSentAgain() {
    var state = Self.seated(in: Self.playing())
    _ = ClientReducer().reduce(into: &state, effectsOf: .choose(.scissors))
    _ = ClientReducer().reduce(into: &state, effectsOf: .connection(.reconnecting(attempt: 1)))
    _ = ClientReducer().reduce(into: &state, effectsOf: .connection(.connected))
    // The same view again, as a resumed connection's first state.
    let resumed = ClientReducer().reduce(
      into: &state, effectsOf: .synced(view: Self.playing(), seq: 1))
    #expect(
      resumed == [.keepSeat(room: "den", token: "t"), .send(.choose(round: 1, weapon: .scissors))])
    let next = ClientReducer().reduce(
      into: &state, effectsOf: .synced(view: Self.playing(), seq: 2))
    #expect(next == [.keepSeat(room: "den", token: "t")])
  }

  @Test("rematch and quit: each its message")
  func rematchAndQuit() {
    var state = ClientState()
    #expect(ClientReducer().reduce(into: &state, effectsOf: .rematch) == [.send(.rematch)])
    #expect(ClientReducer().reduce(into: &state, effectsOf: .quit) == [.leave])
  }

  @Test("a pick the server refused as unable to save is sent again once a view shows it missing")
  func pickRefusedUnsavedSentAgain() {
    var state = Self.seated(in: Self.playing())
    #expect(
      ClientReducer().reduce(into: &state, effectsOf: .choose(.paper))
        == [.send(.choose(round: 1, weapon: .paper))])
    let unavailable = ProtocolError(code: .unavailable, message: "The server cannot save.")
    #expect(
      ClientReducer().reduce(into: &state, effectsOf: .serverError(unavailable)) == [.retryLater])
    // Play resumes: the room as the server's journal held it, the pick not there.
    let next = ClientReducer().reduce(
      into: &state, effectsOf: .synced(view: Self.playing(), seq: 2))
    #expect(next.contains(.send(.choose(round: 1, weapon: .paper))), "\(next)")
    // Sent once: the retry that comes due after that view sends nothing.
    #expect(ClientReducer().reduce(into: &state, effectsOf: .retryUnsaved) == [])
  }

  @Test("a pick refused as unsaved is sent again when the retry comes due, with no view")
  func pickRefusedUnsavedRetried() {
    var state = Self.seated(in: Self.playing())
    _ = ClientReducer().reduce(into: &state, effectsOf: .choose(.paper))
    let unavailable = ProtocolError(code: .unavailable, message: "The server cannot save.")
    _ = ClientReducer().reduce(into: &state, effectsOf: .serverError(unavailable))
    #expect(
      ClientReducer().reduce(into: &state, effectsOf: .retryUnsaved)
        == [.send(.choose(round: 1, weapon: .paper))])
    // Nothing refused since: nothing to send.
    #expect(ClientReducer().reduce(into: &state, effectsOf: .retryUnsaved) == [])
  }

  @Test("a rematch asked once, as the view shows, is not asked again")
  func rematchAskedOnce() {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    for (a, b) in [(Weapon.rock, Weapon.scissors), (.paper, .rock)] {
      room.apply(.chose(seat: .one, round: room.round, weapon: a, at: 1))
      room.apply(.chose(seat: .two, round: room.round, weapon: b, at: 1))
    }
    var state = Self.seated(in: room.view(for: .one))
    #expect(ClientReducer().reduce(into: &state, effectsOf: .rematch) == [.send(.rematch)])
    room.apply(.rematchRequested(seat: .one, at: 2))
    _ = ClientReducer().reduce(into: &state, effectsOf: .synced(view: room.view(for: .one), seq: 2))
    #expect(ClientReducer().reduce(into: &state, effectsOf: .rematch) == [])
  }

  @Test("a fair round broken off by the server: the evidence is kept, once")
  func brokenOffRound() {
    var state = Self.seated(in: Self.playing(fair: true))
    _ = ClientReducer().reduce(into: &state, effectsOf: .commit(.rock, nonce: Self.nonce))
    let broke = ClientReducer().reduce(into: &state, effectsOf: .brokeProtocol("a bad frame"))
    guard case .keepEvidence(let evidence)? = broke.first, broke.count == 1 else {
      Issue.record("no evidence kept: \(broke)")
      return
    }
    #expect(evidence == state.fair.evidence)
    let again = ClientReducer().reduce(into: &state, effectsOf: .brokeProtocol("another"))
    #expect(again == [])
  }
}
