import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// A client too old for what it asked is refused with the release to upgrade to, in the
/// words the wire has always carried.
@Suite("Hub: the advice to upgrade")
struct HubUpgradeAdviceTests {
  typealias H = HubHarness

  /// The error `peer` was sent for `message`, once the hub flushed.
  static func refusal(
    _ hub: inout HubHarness, _ peer: Peer, _ message: ClientMessage
  ) -> ProtocolError? {
    let outputs = hub.raw(.received(message, from: peer)) + hub.raw(.timerFired(.flush))
    return H.messages(to: peer, in: outputs).compactMap { message -> ProtocolError? in
      guard case .error(let error, _) = message else { return nil }
      return error
    }.first
  }

  @Test("a client that cannot play fair, joining a fair room: upgrade to 1.2, or another room")
  func fairRoom() {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 3, fair: true)))
    let room = hub.state.lobby.roomForJoin(requested: nil)
    let error = Self.refusal(&hub, H.alice, H.hello("Alice", fair: nil))
    #expect(error?.code == .fairRoom)
    #expect(
      error?.message
        == "Room \(room) plays fair (commit–reveal) and this client cannot; "
        + "upgrade to roshambo 1.2 or later, or join another room.")
  }

  @Test("entering the tournament without a player identity: upgrade to 1.3")
  func identity() {
    var hub = HubHarness.roundRobin()
    let old = Peer(id: 9, identity: nil)
    _ = hub.say(old, H.hello("Olga", role: .lobby, challenges: true, fair: nil))
    _ = hub.settle()
    let error = Self.refusal(&hub, old, .enter(id: 2))
    #expect(error?.code == .notPlaying)
    #expect(
      error?.message
        == "Entering the tournament needs a player identity, which this client did not "
        + "present; upgrade to roshambo 1.3 or later.")
  }

  @Test("a client that cannot play fair, entering a fair tournament: upgrade to 1.2")
  func fairTournament() {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1))) { configuration in
      configuration.tournament = TournamentPlan(
        kind: .roundRobin, settings: .init(bestOf: 1, fair: true), players: 0,
        startMillis: 10_000, pauseMillis: 3_000)
    }
    _ = hub.handle(.start(releasing: []))
    _ = hub.settle()
    _ = hub.say(H.alice, H.hello("Alice", role: .lobby, challenges: true, fair: nil))
    _ = hub.settle()
    let error = Self.refusal(&hub, H.alice, .enter(id: 2))
    #expect(error?.code == .fairRoom)
    #expect(
      error?.message
        == "This tournament plays fair (commit–reveal) and this client cannot; "
        + "upgrade to roshambo 1.2 or later.")
  }
}
