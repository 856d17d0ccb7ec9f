import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// Going home in the middle of a tournament (issue 51, item 3): the entrant who withdraws
/// while it runs stays in the pairings, and each later match of theirs is their
/// opponent's at once, not after a grace spent waiting for someone who is not coming.
@Suite("Hub: withdrawing from a running tournament")
struct HubWithdrawalTests {
  typealias H = HubHarness
  let ann = Peer(id: 1, identity: "key-Ann")
  let ben = Peer(id: 2, identity: "key-Ben")
  let cat = Peer(id: 3, identity: "key-Cat")

  /// Round robin of three (best of 1): round 1 Ann has the bye, Ben meets Cat in
  /// cup-1-1-1; round 2 Ann meets Ben in cup-1-2-1; round 3 Ann meets Cat.
  func runningTournament() -> HubHarness {
    var hub = HubHarness.roundRobin()
    for (peer, name) in zip([ann, ben, cat], ["Ann", "Ben", "Cat"]) {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
      _ = hub.say(peer, .enter(id: 2))
    }
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    return hub
  }

  /// The outputs of `input`, then of the flush and commits that follow it.
  static func settled(_ hub: inout HubHarness, _ input: HubInput) -> [HubOutput] {
    var outputs = hub.raw(input) + hub.raw(.timerFired(.flush))
    while hub.pendingCommit != nil {
      hub.pendingCommit = nil
      outputs += hub.raw(.committed(.success(()), onJournalThread: false))
    }
    return outputs
  }

  @Test("a withdrawal while the tournament runs is taken, and the lobby shows it")
  func withdrawalTaken() throws {
    var hub = runningTournament()
    let outputs = Self.settled(&hub, .received(.withdraw(id: 5), from: ann))
    let answers = H.messages(to: ann, in: outputs).map(H.summary)
    #expect(!answers.contains { $0.hasPrefix("error") }, "\(answers)")
    _ = hub.settle()
    let standing = hub.state.lobby.tournament?.standings.first { $0.name == "Ann" }
    #expect(standing?.withdrawn == true)
    // Withdrawn once: a second is refused.
    let again = Self.settled(&hub, .received(.withdraw(id: 6), from: ann))
    #expect(H.messages(to: ann, in: again).map(H.summary) == ["error tournament_closed"])
  }

  @Test("the withdrawn entrant's next match is a walkover: no grace, the opponent wins at once")
  func walkover() throws {
    var hub = runningTournament()
    // Ann, with the bye, goes home: she withdraws and her lobby closes.
    _ = hub.say(ann, .withdraw(id: 5))
    _ = hub.handle(.closed(ann))
    _ = hub.settle()
    // Cat gives round 1 up: Ben wins, round 2 comes after the pause.
    _ = hub.say(cat, .leave(id: 7))
    _ = hub.settle()
    let paired = hub.fire(.tournament)
    #expect(!paired.contains { $0.hasPrefix("schedule grace cup-1-2-1") })
    _ = hub.settle()
    let room = try #require(hub.state.lobby.rooms["cup-1-2-1"])
    #expect(room.phase == .over)
    #expect(room.winner == .two)
    let pairing = hub.state.lobby.tournament?.rounds.last?.first { $0.room == "cup-1-2-1" }
    #expect(pairing?.winner == "Ben")
    // Round 2 is over with it (Cat had the bye): round 3 is on its way.
    #expect(hub.state.timers[.tournament] != nil)
  }

  @Test("a match lost by not coming back in time says so: the seat, the pairing, the standings")
  func graceRanOut() throws {
    var hub = runningTournament()
    // Cat's connection drops in round 1 and she does not come back.
    _ = hub.handle(.closed(cat))
    _ = hub.settle()
    _ = hub.fire(.grace(room: "cup-1-1-1", seat: .two))
    _ = hub.settle()
    let room = try #require(hub.state.lobby.rooms["cup-1-1-1"])
    #expect(room.view(for: .one).players.map(\.leftBy) == [nil, .timedOut])
    let pairing = hub.state.lobby.tournament?.rounds.last?.first { $0.room == "cup-1-1-1" }
    #expect(pairing?.graceRanOut == true)
    let standing = hub.state.lobby.tournament?.standings.first { $0.name == "Cat" }
    #expect(standing?.lostAway == 1)
    // Ben's loss by leaving is not one.
    var left = runningTournament()
    _ = left.say(cat, .leave(id: 7))
    _ = left.settle()
    #expect(left.state.lobby.tournament?.standings.allSatisfy { $0.lostAway == 0 } == true)
  }
}

/// `roshambo challenge NAME` in a second terminal (issue 51, item 6): it follows the lobby
/// under the same identity and name, taking challenges, so it replaces the open lobby, as
/// a lobby opened again after a closed terminal must. The lobby it closes is told what did
/// it and how to get back.
@Suite("Hub: a lobby replaced by another of the same person")
struct HubReplacedLobbyTests {
  typealias H = HubHarness

  @Test("the replaced lobby is told it was another terminal's lobby or challenge, and how back")
  func toldHowToComeBack() {
    var hub = HubHarness()
    let lobby = Peer(id: 1, identity: "key-a")
    let challenge = Peer(id: 2, identity: "key-a")
    _ = hub.say(lobby, H.hello("Alice", role: .lobby, challenges: true))
    _ = hub.settle()
    let outputs = HubWithdrawalTests.settled(
      &hub, .received(H.hello("Alice", role: .lobby, challenges: true), from: challenge))
    let told = H.messages(to: lobby, in: outputs).compactMap { message -> ProtocolError? in
      if case .error(let error, _) = message { return error }
      return nil
    }
    #expect(told.count == 1)
    #expect(told.first?.fatal == true)
    let message = told.first?.message ?? ""
    #expect(message.contains("opened again in another terminal"), "\(message)")
    #expect(message.contains("roshambo challenge"), "\(message)")
    #expect(message.contains("run roshambo lobby"), "\(message)")
  }

  /// A link cut off while Bob accepts: his program takes it for lost and opens the lobby
  /// again, and only then does the server read the accept from the old connection. The
  /// challenge left with the lobby it was made to; the late accept seats nobody, and
  /// Alice is told it was withdrawn instead of waiting for a seat that never comes.
  @Test("a replaced lobby's challenges end with it; its late accept seats nobody")
  func replacedLobbysChallengesEnd() {
    var hub = HubHarness.following()
    _ = hub.say(H.alice, .challenge(name: "Bob", bestOf: 1, ruleset: nil, fair: false, id: 3))
    _ = hub.settle()
    let again = Peer(id: 9, identity: "key-b")
    let outputs = HubWithdrawalTests.settled(
      &hub, .received(H.hello("Bob", role: .lobby, challenges: true), from: again))
    #expect(
      H.messages(to: H.alice, in: outputs).map(H.summary).contains("challenge 1 withdrawn"),
      "\(outputs)")
    #expect(hub.state.challenges.pending.isEmpty)
    let late = HubWithdrawalTests.settled(
      &hub, .received(.accept(challenge: 1, id: 4), from: H.bob))
    #expect(H.messages(to: H.alice, in: late).isEmpty, "\(late)")
    #expect(hub.state.lobby.rooms.keys.allSatisfy { !$0.hasPrefix("duel") })
  }
}
