import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// A fair room's reveals: the first of a round waits briefly for the other, so both are
/// made durable in one commit and the result goes out in one state.
@Suite("Hub: a fair round's reveals")
struct HubFairRoundTests {
  typealias H = HubHarness

  /// Alice and Bob seated in fair room "den", both committed to round 1 and told so;
  /// with each one's reveal.
  static func committed() -> (HubHarness, alice: ClientMessage, bob: ClientMessage) {
    var hub = HubHarness()
    _ = hub.say(H.alice, H.hello("Alice", room: "den", fair: true))
    _ = hub.say(H.bob, H.hello("Bob", room: "den", fair: true))
    _ = hub.settle()
    var reveals: [ClientMessage] = []
    for (peer, seat, weapon) in [(H.alice, Seat.one, Weapon.rock), (H.bob, .two, .scissors)] {
      let nonce = Commitment.makeNonce()
      let digest = Commitment.digest(
        room: "den", round: 1, seat: seat, weapon: weapon, nonce: nonce)
      _ = hub.say(peer, .commit(round: 1, digest: digest, id: nil))
      reveals.append(.reveal(round: 1, weapon: weapon, nonce: Commitment.hex(nonce), id: nil))
    }
    _ = hub.settle()
    return (hub, reveals[0], reveals[1])
  }

  @Test("the second reveal within the hold: one commit of both, one state, the result")
  func bothInOneCommit() {
    var (hub, alice, bob) = Self.committed()
    #expect(hub.state.lobby.rooms["den"]?.round == 1)
    // The first reveal neither commits nor sends: it waits for the other.
    #expect(hub.say(H.alice, alice) == ["count actionAccepted", "schedule held-reveal +20"])
    hub.now += 3
    let lines = hub.say(H.bob, bob) + hub.settle()
    #expect(lines.filter { $0.hasPrefix("commit") } == ["commit 2"])
    #expect(lines.contains("cancel held-reveal"))
    let states = lines.filter { $0.contains("state den") }
    #expect(states == ["→1 state den #6 choosing round 2", "→2 state den #6 choosing round 2"])
    #expect(hub.state.timers[.heldReveal] == nil)
  }

  @Test("no second reveal within the hold: the first goes out alone")
  func firstAloneAfterTheHold() {
    var (hub, alice, _) = Self.committed()
    _ = hub.say(H.alice, alice)
    let lines = hub.fire(.heldReveal) + hub.settle()
    #expect(lines.filter { $0.hasPrefix("commit") } == ["commit 1"])
    let states = lines.filter { $0.contains("state den") }
    #expect(states == ["→1 state den #5 choosing round 1", "→2 state den #5 choosing round 1"])
  }

  @Test("a second reveal after the first went out alone resolves the round as before")
  func secondAfterTheHold() {
    var (hub, alice, bob) = Self.committed()
    _ = hub.say(H.alice, alice)
    _ = hub.fire(.heldReveal) + hub.settle()
    let lines = hub.say(H.bob, bob) + hub.settle()
    #expect(!lines.contains { $0.contains("held-reveal") })
    #expect(lines.filter { $0.hasPrefix("commit") } == ["commit 1"])
    #expect(lines.filter { $0.contains("state den") }.allSatisfy { $0.hasSuffix("round 2") })
  }
}
