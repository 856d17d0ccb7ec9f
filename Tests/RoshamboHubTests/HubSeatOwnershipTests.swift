import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// A seat is taken back with its token or its identity, never by its name alone: the
/// hostile review's second vulnerability (a keyless player's waiting seat seated whoever
/// said hello under its name, with a new token, and gave them the name for good).
@Suite("Hub: a waiting seat is its own player's")
struct HubSeatOwnershipTests {
  typealias H = HubHarness

  let bob = Peer(id: 1, identity: nil)
  let alice = Peer(id: 2, identity: nil)
  let mallory = HubReturnTests.person(7)

  /// Keyless Bob and Alice playing in `den`; Bob's connection dropped: his seat waits.
  func bobAway() -> (hub: HubHarness, token: String) {
    var hub = HubHarness()
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: nil))
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: nil))
    _ = hub.settle()
    let token = hub.state.sessions[bob.id]?.resumeToken ?? ""
    _ = hub.handle(.closed(bob))
    _ = hub.settle()
    return (hub, token)
  }

  /// Everything `peer` was sent by the next flush and commit.
  func sent(to peer: Peer, _ hub: inout HubHarness) -> [ServerMessage] {
    var outputs = hub.raw(.timerFired(.flush))
    while hub.pendingCommit != nil {
      hub.pendingCommit = nil
      outputs += hub.raw(.committed(.success(()), onJournalThread: false))
    }
    return H.messages(to: peer, in: outputs)
  }

  @Test("a key saying hello under a keyless player's name is not seated in their waiting seat")
  func keylessSeatWaitsForItsToken() {
    var (hub, token) = bobAway()
    #expect(hub.state.lobby.rooms["den"]?.seats[.one]?.connected == false)
    // Mallory, with a key, follows the lobby as "Bob", then as "BOB", and asks for quick
    // match as "Bob": none of it seats her in den, and the name does not become hers.
    for (index, name) in ["Bob", "BOB"].enumerated() {
      let link = Peer(id: 10 + index, identity: mallory.identity)
      _ = hub.say(link, H.hello(name, role: .lobby, challenges: true))
      let messages = sent(to: link, &hub)
      #expect(!messages.contains { if case .welcome = $0 { true } else { false } })
    }
    let quick = Peer(id: 12, identity: mallory.identity)
    _ = hub.say(quick, H.hello("Bob", fair: nil))
    let answer = sent(to: quick, &hub)
    #expect(!answer.contains { if case .welcome("den", _, _, _) = $0 { true } else { false } })
    #expect(hub.state.lobby.names.holder(of: "Bob") == nil)
    #expect(hub.state.lobby.rooms["den"]?.seats[.one]?.connected == false)
    // Bob comes back with his token: the seat is his.
    let back = Peer(id: 20, identity: nil)
    _ = hub.say(back, H.hello("Bob", resume: token, fair: nil))
    let welcome = sent(to: back, &hub).first
    guard case .welcome(let room, let seat, _, _)? = welcome else {
      Issue.record("Bob's token no longer seats him: \(welcome.map(H.summary) ?? "nothing")")
      return
    }
    #expect(room == "den" && seat == .one)
  }

  @Test("--release-name frees the name, not its holder's seat: nobody else is seated in it")
  func releaseLeavesTheSeat() {
    let ann = HubReturnTests.person(1)
    var before = HubHarness()
    _ = before.say(ann, H.hello("Ann", room: "den", fair: nil))
    _ = before.say(bob, H.hello("Bob", room: "den", fair: nil))
    _ = before.settle()
    #expect(before.state.lobby.names.holder(of: "Ann") == ann.identity)
    // The server restarts with `--release-name Ann`: her seat waits, the name is free.
    var hub = HubHarness(lobby: before.state.lobby)
    _ = hub.handle(.start(releasing: ["Ann"]))
    _ = hub.settle()
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
    // Mallory follows the lobby as Ann: not seated in den, and the name not hers while
    // Ann's match waits for Ann's token.
    let link = Peer(id: 30, identity: mallory.identity)
    _ = hub.say(link, H.hello("Ann", role: .lobby, challenges: true))
    #expect(!sent(to: link, &hub).contains { if case .welcome = $0 { true } else { false } })
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
    #expect(hub.state.lobby.rooms["den"]?.seats[.one]?.connected == false)
  }

  @Test("--release-name acts once: the next holder keeps the name while the flag stays")
  func releaseActsOnce() {
    let ann = HubReturnTests.person(1)
    var first = HubHarness()
    _ = first.say(ann, H.hello("Ann", role: .lobby, challenges: true))
    _ = first.settle()
    #expect(first.state.lobby.names.holder(of: "Ann") == ann.identity)
    /// The hub restarted on `lobby` with `releasing`, settled.
    func restart(_ lobby: LobbyState, releasing: [String]) -> HubHarness {
      var hub = HubHarness(lobby: lobby)
      _ = hub.handle(.start(releasing: releasing))
      _ = hub.settle()
      return hub
    }
    // The first start with the flag frees the name; Mallory takes it.
    var second = restart(first.state.lobby, releasing: ["Ann"])
    #expect(second.state.lobby.names.holder(of: "Ann") == nil)
    _ = second.say(mallory, H.hello("Ann", role: .lobby, challenges: true))
    _ = second.settle()
    #expect(second.state.lobby.names.holder(of: "Ann") == mallory.identity)
    // Started again with the flag still there: the name stays hers.
    let third = restart(second.state.lobby, releasing: ["ann"])
    #expect(third.state.lobby.names.holder(of: "Ann") == mallory.identity)
    // A start without it forgets the release; a later one with it frees the name again.
    let fourth = restart(third.state.lobby, releasing: [])
    #expect(fourth.state.lobby.names.released.isEmpty)
    #expect(fourth.state.lobby.names.holder(of: "Ann") == mallory.identity)
    let fifth = restart(fourth.state.lobby, releasing: ["Ann"])
    #expect(fifth.state.lobby.names.holder(of: "Ann") == nil)
  }

  @Test("nobody claims a name while a seat under it is in play")
  func noClaimOverAPlayingSeat() {
    var hub = HubHarness()
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: nil))
    _ = hub.settle()
    // Bob (keyless) is seated and connected: a key playing elsewhere as "bob" plays, but
    // does not take the name from under him.
    _ = hub.say(mallory, H.hello("bob", room: "elsewhere", fair: nil))
    _ = hub.settle()
    #expect(hub.state.lobby.names.holder(of: "Bob") == nil)
    #expect(hub.state.lobby.rooms["elsewhere"]?.seats[.one]?.name == "bob")
  }
}
