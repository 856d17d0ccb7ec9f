import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The hub as one value: each test hands ``HubCore`` inputs and compares the outputs it
/// returns, exactly, in order. No socket, event loop, disk, thread or sleep.
@Suite("Hub: the core, input by input")
struct HubCoreTests {
  typealias H = HubHarness
  let alice = H.alice
  let bob = H.bob
  let carol = H.carol

  /// Alice and Bob seated in `den` (not fair), everything committed and sent.
  func seated() -> HubHarness {
    var hub = HubHarness()
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: nil))
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: nil))
    _ = hub.settle()
    return hub
  }

  @Test("a hello joins a room: its welcome and the room's state go out only once committed")
  func helloJoins() {
    var hub = HubHarness()
    #expect(
      hub.say(alice, H.hello("Alice", room: "den", fair: nil)) == [
        "count actionAccepted", "schedule flush +0", "log joined",
      ])
    #expect(hub.flush() == ["commit 1"])
    #expect(hub.committed() == ["→1 welcome den seat 1", "→1 state den #1 waiting round 1"])
    // A second hello on the same connection is refused, and changes nothing.
    #expect(
      hub.say(alice, H.hello("Alice", room: "den")) == [
        "count refused(bad_message)", "schedule flush +0",
      ])
    #expect(hub.flush() == ["→1 error bad_message"])
  }

  @Test("a pick is committed, then both seats get the state; the other's weapon is hidden")
  func pickThroughCommit() throws {
    var hub = seated()
    #expect(
      hub.say(alice, .choose(round: 1, weapon: .rock, id: 5)) == [
        "count actionAccepted", "schedule flush +0",
      ])
    #expect(hub.flush() == ["commit 1"])
    let outputs = hub.raw(.committed(.success(()), onJournalThread: false))
    #expect(
      outputs.flatMap(hub.describe) == [
        "→1 state den #3 choosing round 1", "→2 state den #3 choosing round 1",
      ])
    guard case .state(_, let toBob) = try #require(H.messages(to: bob, in: outputs).first),
      case .state(_, let toAlice) = try #require(H.messages(to: alice, in: outputs).first)
    else {
      Issue.record("states expected")
      return
    }
    #expect(toAlice.player(.one)?.weapon == .rock)
    #expect(toBob.player(.one)?.weapon == nil)
    #expect(toBob.player(.one)?.chosen == true)
    // Bob's pick resolves the round: its weapons are logged now, not before.
    #expect(
      hub.say(bob, .choose(round: 1, weapon: .paper, id: 6)) == [
        "count actionAccepted", "count roundResolved", "log round", "schedule flush +0",
      ])
  }

  @Test("resume: a held seat is reconnected; a seat still connected moves to the new one")
  func resume() throws {
    var hub = HubHarness()
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: nil))
    #expect(hub.settle().first == "commit 1")
    let token = try #require(hub.state.sessions[alice.id]?.resumeToken)
    // Connected still: the new connection replaces the old, with no action to commit.
    let again = Peer(id: 4, identity: "key-a")
    #expect(
      hub.say(again, H.hello("Alice", room: nil, resume: token)) == [
        "schedule flush +0", "log resumed",
      ])
    #expect(
      hub.settle() == ["→1 close", "→4 welcome den seat 1", "→4 state den #1 waiting round 1"])
    // Gone: the seat's grace starts; back within it, the seat is reconnected (committed).
    #expect(
      hub.handle(.closed(again)) == [
        "schedule grace den seat 1 +30000", "schedule flush +0", "log disconnected",
      ])
    _ = hub.settle()
    let third = Peer(id: 5, identity: "key-a")
    #expect(
      hub.say(third, H.hello("Alice", room: nil, resume: token)) == [
        "count actionAccepted", "cancel grace den seat 1", "schedule flush +0", "log resumed",
      ])
    #expect(
      hub.settle() == ["commit 1", "→5 welcome den seat 1", "→5 state den #3 waiting round 1"])
  }
}

/// Challenges, tournaments, the drain and a failing journal, through the core alone.
@Suite("Hub: the core's lobby, input by input")
struct HubCoreLobbyTests {
  typealias H = HubHarness
  let alice = H.alice
  let bob = H.bob
  let carol = H.carol

  func following() -> HubHarness { H.following() }

  func challenge(_ hub: inout HubHarness) {
    #expect(
      hub.say(alice, .challenge(name: "Bob", bestOf: 1, ruleset: nil, fair: false, id: 3)) == [
        "schedule challenge 1 +30000", "schedule flush +0",
      ])
    #expect(hub.settle() == ["→1 challenge 1 pending", "→2 challenge 1 pending"])
  }

  @Test("a challenge offered and accepted seats both in a new room, after the commit")
  func challengeAccepted() {
    var hub = following()
    challenge(&hub)
    // The board's change is settled first (its flush asked for), then the seating, a
    // follow-up of the same input: the room opened (the action counted), then the log.
    #expect(
      hub.say(bob, .accept(challenge: 1, id: 4)) == [
        "cancel challenge 1", "schedule flush +0", "count actionAccepted", "log challenge accepted",
      ])
    #expect(hub.flush() == ["commit 1"])
    #expect(
      hub.committed() == [
        "→1 challenge 1 accepted", "→2 challenge 1 accepted", "→1 welcome duel-1 seat 1",
        "→2 welcome duel-1 seat 2", "→1 state duel-1 #2 choosing round 1",
        "→2 state duel-1 #2 choosing round 1",
      ])
    #expect(hub.state.sessions.followers.isEmpty)
    #expect(hub.state.sessions[alice.id]?.seat == .one)
    #expect(hub.state.sessions[bob.id]?.seat == .two)
  }

  /// Carol follows the lobby taking patches; her arrival, news to the others, has gone
  /// out with the next view to all.
  func carolFollowsWithPatches(_ hub: inout HubHarness) {
    _ = hub.say(
      carol,
      .hello(
        protocol: WireProtocol.version, name: "Carol", role: .lobby, room: nil, resume: nil,
        challenges: true, patches: true, id: 1))
    _ = hub.settle()
    _ = hub.fire(.lobbyView)
    _ = hub.settle()
  }

  @Test("a lone pick sends the lobby's followers nothing; a resolved round, its score")
  func lonePickIsNoNews() {
    var hub = following()
    challenge(&hub)
    _ = hub.say(bob, .accept(challenge: 1, id: 4))
    _ = hub.settle()
    carolFollowsWithPatches(&hub)
    func lobbyFrames(_ lines: [String]) -> [String] { lines.filter { $0.contains("lobby") } }
    // Alice picks alone: the lobby shows nothing new, so Carol hears nothing (an empty
    // patch would tell her that someone picked).
    hub.now += 1_000
    _ = hub.say(alice, .choose(round: 1, weapon: .rock, id: 5))
    #expect(lobbyFrames(hub.settle()).isEmpty)
    #expect(hub.state.timers[.lobbyView] == nil)
    // Bob's pick resolves the round: the score changed, and Carol is told.
    hub.now += 1_000
    _ = hub.say(bob, .choose(round: 1, weapon: .scissors, id: 6))
    let told = lobbyFrames(hub.settle())
    #expect(told.count == 1, "\(told)")
  }

  @Test("a player left alone after a quick match is listed waiting, as their screen says")
  func aloneAfterAMatchWaits() throws {
    var hub = HubHarness()
    _ = hub.say(alice, H.hello("Alice", fair: nil))
    _ = hub.say(bob, H.hello("Bob", fair: nil))
    _ = hub.settle()
    func status(_ name: String) -> LobbyView.Status? {
      hub.core.lobbyView().people.first { $0.name == name }?.status
    }
    #expect(status("Alice") == .playing)
    _ = hub.say(alice, .choose(round: 1, weapon: .rock, id: 5))
    _ = hub.say(bob, .choose(round: 1, weapon: .scissors, id: 6))
    _ = hub.settle()
    _ = hub.say(bob, .leave(id: 7))
    _ = hub.settle()
    let room = try #require(hub.core.state.lobby.rooms["quick-1"])
    #expect(room.phase == .over)
    #expect(status("Alice") == .waiting)
  }

  @Test("looks and spectators never crowd out, nor double, the people who play")
  func peopleWhoPlayFirst() throws {
    var hub = following()
    challenge(&hub)
    _ = hub.say(bob, .accept(challenge: 1, id: 4))
    _ = hub.settle()
    // A spectator without a key calls itself Alice, who plays in duel-1.
    _ = hub.say(Peer(id: 50, identity: nil), H.hello("Alice", role: .spectator, room: "duel-1"))
    _ = hub.say(carol, H.hello("Carol", role: .lobby, challenges: true))
    // 130 looks at the lobby, each named to sort before Carol.
    for index in 0..<130 {
      let name = "A" + String(1_000 + index)
      _ = hub.say(Peer(id: 100 + index, identity: nil), H.hello(name, role: .lobby))
    }
    _ = hub.settle()
    hub.now += 1_000
    let outputs = hub.raw(.timerFired(.lobbyView)) + hub.raw(.timerFired(.flush))
    let views = H.messages(to: carol, in: outputs).compactMap { message -> LobbyView? in
      if case .lobby(_, let view) = message { view } else { nil }
    }
    let people = try #require(views.last).people
    #expect(people.filter { $0.name == "Alice" }.map(\.status) == [.playing])
    #expect(people.contains { $0.name == "Carol" && $0.takesChallenges })
    #expect(people.count == LobbyView.maxPeople)
  }

  @Test("a follower asking for the whole view in a loop gets one every 2 s, the newest")
  func resyncsCoalesced() {
    var hub = following()
    carolFollowsWithPatches(&hub)
    func views(_ lines: [String]) -> Int { lines.count { $0.hasPrefix("→3 lobby #") } }
    // Ten asks within a second: the first is answered, the rest wait.
    var answered = 0
    for index in 0..<10 {
      hub.now += 100
      _ = hub.say(carol, .lobbyResync(id: 10 + index))
      answered += views(hub.settle())
    }
    #expect(answered == 1)
    // 2 s after the first answer, one more: the lobby as it is then.
    #expect(hub.state.timers[.lobbyView]?.at == hub.now - 900 + LobbyFeed.resyncInterval)
    #expect(views(hub.fire(.lobbyView) + hub.settle()) == 1)
    #expect(hub.state.timers[.lobbyView] == nil)
  }

  @Test("a challenge declined, or left unanswered, ends once; both are told")
  func challengeDeclinedOrExpired() {
    var declined = following()
    challenge(&declined)
    #expect(
      declined.say(bob, .decline(challenge: 1, id: 4)) == [
        "cancel challenge 1", "schedule flush +0",
      ])
    #expect(declined.settle() == ["→1 challenge 1 declined", "→2 challenge 1 declined"])
    #expect(declined.state.timers.isEmpty)
    var expired = following()
    challenge(&expired)
    #expect(expired.fire(.challengeExpiry(id: 1)) == ["schedule flush +0"])
    #expect(expired.settle() == ["→1 challenge 1 expired", "→2 challenge 1 expired"])
    // Answered after it ended: refused, nothing seated.
    #expect(
      expired.say(bob, .accept(challenge: 1, id: 5)) == [
        "count refused(no_such_challenge)", "schedule flush +0",
      ])
    #expect(expired.state.sessions.members.isEmpty)
  }

  @Test("accepted while the challenger's connection is gone: withdrawn, and the accept refused")
  func acceptAfterChallengerLeft() {
    var hub = following()
    challenge(&hub)
    #expect(hub.handle(.closed(alice)) == ["cancel challenge 1", "schedule flush +0"])
    #expect(hub.say(bob, .accept(challenge: 1, id: 4)) == ["count refused(no_such_challenge)"])
    #expect(
      hub.settle() == [
        "schedule lobby-view +250", "→2 challenge 1 withdrawn", "→2 error no_such_challenge",
      ])
    #expect(hub.state.sessions.members.isEmpty)
  }

  @Test("a failed commit sends nothing of it, restores the sessions kept at sealing, then probes")
  func failedCommit() {
    var hub = following()
    let lobbyBefore = hub.state.lobby
    challenge(&hub)
    let sessionsBefore = hub.state.sessions
    _ = hub.say(bob, .accept(challenge: 1, id: 4))
    #expect(hub.flush() == ["commit 1"])
    // Carol arrives while the commit is under way: she is not undone with it.
    #expect(
      hub.say(carol, H.hello("Carol", role: .lobby, challenges: true)) == [
        "schedule flush +0", "log following the lobby",
      ])
    #expect(
      hub.handle(.committed(.failure(JournalFailure("disk full")), onJournalThread: false)) == [
        "log journal write failed: nothing of it was sent and play is paused; it resumes by "
          + "itself once the journal can be written (check free space on the data directory's disk)",
        "reload",
      ])
    var expected = sessionsBefore
    expected.follow(hub.state.sessions.followers[carol.id]!)
    #expect(hub.state.sessions == expected)
    // Played while paused: refused as unavailable.
    #expect(
      hub.handle(.reloaded(.success((lobbyBefore, 0)))) == [
        "schedule probe +1000", "schedule lobby-view +250", "→2 error unavailable",
        "→1 error unavailable", "→1,2,3 lobby #1",
      ])
    #expect(hub.state.lobby == lobbyBefore)
    #expect(hub.fire(.probe) == ["probe"])
    #expect(hub.handle(.probed(succeeded: false)) == ["schedule probe +1000"])
    #expect(hub.fire(.probe) == ["probe"])
    #expect(
      hub.handle(.probed(succeeded: true)) == [
        "log journal writes succeed again; play resumes", "→1,2,3 lobby #2",
      ])
    #expect(hub.state.sessions == expected)
  }

  @Test("a lobby view lost with a failed commit: the next goes whole to every follower")
  func lobbyViewLost() {
    var hub = following()
    hub.now += 1_000
    // Dana's arrival changes the lobby, and her name's claim is journaled: the view to all
    // goes with the commit that fails.
    let dana = HubNameLimitTests.key(3, at: "10.0.0.3")
    _ = hub.say(dana, H.hello("Dana", role: .lobby, challenges: true))
    let sealed = hub.flush()
    #expect(sealed.first == "commit 2", "\(sealed)")
    let failed = hub.handle(
      .committed(.failure(JournalFailure("disk full")), onJournalThread: false))
    #expect(!failed.contains { $0.contains("lobby") }, "nothing of the view went: \(failed)")
    let reloaded = hub.handle(.reloaded(.success((hub.state.lobby, 0))))
    _ = hub.fire(.probe)
    let resumed = reloaded + hub.handle(.probed(succeeded: true))
    hub.now += 1_000
    let next = resumed + hub.fire(.lobbyView) + hub.settle()
    // Alice and Bob never had view 2: a patch from it would not apply.
    #expect(!next.contains { $0.hasPrefix("→1,2 lobbyPatch") }, "\(next)")
    #expect(next.contains { $0.hasPrefix("→1,2,3 lobby #") }, "\(next)")
  }

  @Test("the drain: everyone told, nothing new started, over when the last match ends")
  func drain() {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1)))
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: nil))
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: nil))
    _ = hub.say(carol, H.hello("Carol", role: .lobby, challenges: true))
    _ = hub.settle()
    #expect(
      hub.handle(.drainRequested(withinMillis: 60_000)) == [
        "schedule flush +0", "schedule drain +60000",
      ])
    #expect(
      hub.settle() == ["→1 error closing", "→2 error closing", "→3 error closing"])
    // Nothing new: a new player is refused (fatally), a challenge too.
    let dave = Peer(id: 4, identity: "key-d")
    _ = hub.say(dave, H.hello("Dave", room: "attic", fair: nil))
    #expect(hub.settle() == ["→4 error closing", "→4 close"])
    // The match under way ends: the drain is over.
    _ = hub.say(alice, .choose(round: 1, weapon: .rock, id: 7))
    _ = hub.say(bob, .choose(round: 1, weapon: .scissors, id: 8))
    let ended = hub.settle()
    #expect(ended.contains("drained"))
    #expect(ended.contains("cancel drain"))
    #expect(hub.state.timers[.drain] == nil)
  }
}
