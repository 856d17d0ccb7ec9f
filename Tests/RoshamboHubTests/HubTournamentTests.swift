import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The tournament through the core alone: entries, the start, each round seated from
/// the lobby and from last round's room, a no-show, and the next round after the pause.
@Suite("Hub: the tournament, input by input")
struct HubTournamentTests {
  typealias H = HubHarness
  let people = ["Ann", "Ben", "Cat"].enumerated().map { Peer(id: $0 + 1, identity: "key-\($1)") }

  func hub() -> HubHarness { .roundRobin() }

  @Test("entries, the start timer, a round seated from the lobby, a no-show, the next round")
  func tournament() throws {
    var hub = hub()
    let (ann, ben, cat) = (people[0], people[1], people[2])
    for (peer, name) in zip([ann, ben], ["Ann", "Ben"]) {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
    }
    _ = hub.settle()
    #expect(hub.say(ann, .enter(id: 2)) == ["count actionAccepted", "schedule flush +0"])
    // The second entry arms the start: entries close 10 s later.
    #expect(
      hub.say(ben, .enter(id: 2)) == [
        "count actionAccepted", "schedule tournament +10000",
      ])
    #expect(hub.state.tournament.startsAt == hub.now + 10_000)
    // Cat enters, then drops: her entry is held for the grace period, then goes.
    _ = hub.say(cat, H.hello("Cat", role: .lobby, challenges: true, fair: nil))
    _ = hub.say(cat, .enter(id: 2))
    _ = hub.settle()
    #expect(hub.handle(.closed(cat)).contains("schedule entry-grace Cat +30000"))
    _ = hub.settle()
    // Entries close: round 1 is paired at once. Ann has the bye; Ben is seated from the
    // lobby; Cat, away, has her seat held for what is left of her grace.
    #expect(
      hub.fire(.tournament) == [
        "schedule flush +0", "schedule grace cup-1-1-1 seat 2 +30000",
        "log tournament round paired",
      ])
    #expect(
      hub.settle() == [
        "commit 2", "→2 welcome cup-1-1-1 seat 1", "→2 state cup-1-1-1 #3 choosing round 1",
        "→1 lobby #2",
      ])
    // Cat does not come back: she forfeits, the round is over, the next comes after the
    // pause.
    #expect(
      hub.fire(.grace(room: "cup-1-1-1", seat: .two)) == [
        "log grace expired", "count matchFinished(forfeit: true, fair: false)", "log match over",
        "schedule flush +0", "schedule tournament +3000",
      ])
    #expect(
      hub.settle() == ["commit 1 +1 match", "→2 state cup-1-1-1 #4 over round 1", "→1 lobby #3"])
    // Round 2 after the pause: Ben moved from last round's room, Ann seated from the lobby,
    // both welcomed before the room's first state, all in one commit.
    #expect(hub.fire(.tournament) == ["schedule flush +0", "log tournament round paired"])
    #expect(
      hub.settle() == [
        "commit 2", "→1 welcome cup-1-2-1 seat 1", "→2 welcome cup-1-2-1 seat 2",
        "→1 state cup-1-2-1 #2 choosing round 1", "→2 state cup-1-2-1 #2 choosing round 1",
      ])
    #expect(hub.state.sessions[ben.id]?.room == "cup-1-2-1")
    #expect(hub.state.sessions.followers.isEmpty)
  }
}
