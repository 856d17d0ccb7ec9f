import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// Coming back within the grace, as the simulator found it could go wrong: a seat that
/// waits for someone whose `welcome` never reached them, or whose token the hub forgot in
/// a restart, and an entrant busy elsewhere when their round is paired. Each from a
/// replayed simulation, reduced to the inputs that matter.
@Suite("Hub: back within the grace")
struct HubReturnTests {
  typealias H = HubHarness

  /// Player identities as the TLS layer gives them (64 hex digits), so names are held.
  static func person(_ id: Int) -> Peer {
    let hex = String(id, radix: 16)
    return Peer(id: id, identity: String(repeating: "0", count: 64 - hex.count) + hex)
  }
  let ann = person(1)
  let ben = person(2)
  let cat = person(3)

  func tournamentHub() -> HubHarness { .roundRobin() }

  /// Ann and Ben following the lobby; Ann challenged Ben, who accepted: both seated in
  /// duel-1, everything sent.
  func challengeAccepted() -> HubHarness {
    var hub = HubHarness()
    _ = hub.say(ann, H.hello("Ann", role: .lobby, challenges: true))
    _ = hub.say(ben, H.hello("Ben", role: .lobby, challenges: true))
    _ = hub.settle()
    _ = hub.say(ann, .challenge(name: "Ben", bestOf: nil, ruleset: nil, fair: false, id: 2))
    _ = hub.settle()
    _ = hub.say(ben, .accept(challenge: 1, id: 2))
    _ = hub.settle()
    return hub
  }

  /// The seat `name` holds in `room`.
  func seat(of name: String, in room: String, _ hub: HubHarness) -> RoomState.SeatState? {
    hub.state.lobby.rooms[room]?.seats.values.first { $0.name == name }
  }

  @Test("a challenger whose welcome never came, back in the lobby, is seated in the match")
  func challengerBackInTheLobby() throws {
    var hub = challengeAccepted()
    // Ben's connection drops (before the welcome reached him): his seat waits.
    _ = hub.handle(.closed(ben))
    _ = hub.settle()
    #expect(seat(of: "Ben", in: "duel-1", hub)?.connected == false)
    // He follows the lobby again, with no token: he is seated in his match.
    let back = Peer(id: 9, identity: ben.identity)
    _ = hub.say(back, H.hello("Ben", role: .lobby, challenges: true))
    let sent =
      hub.raw(.timerFired(.flush)) + hub.raw(.committed(.success(()), onJournalThread: false))
    let messages = H.messages(to: back, in: sent)
    guard case .welcome(let room, let seatTaken, let token, _)? = messages.first else {
      Issue.record("no welcome first: \(messages.map(H.summary))")
      return
    }
    #expect(room == "duel-1" && seatTaken == .two)
    #expect(messages.dropFirst().first.map(H.summary) == "state duel-1 #4 choosing round 1")
    // The seat holds the new token (its hash), connected; the follower became a player.
    let held = try #require(seat(of: "Ben", in: "duel-1", hub))
    #expect(held.connected)
    #expect(held.token == ResumeToken.stored(try #require(token)))
    #expect(hub.state.sessions[back.id]?.seat == .two)
    #expect(hub.state.sessions.followers[back.id] == nil)
  }

  @Test("someone else under the name gets no seat: only the identity that holds it")
  func otherIdentityGetsNothing() {
    var hub = challengeAccepted()
    _ = hub.handle(.closed(ben))
    _ = hub.settle()
    let impostor = Peer(id: 9, identity: String(repeating: "e", count: 64))
    let lines = hub.say(impostor, H.hello("Ben", role: .lobby, challenges: true))
    #expect(lines.contains("count refused(name_taken)"))
    #expect(seat(of: "Ben", in: "duel-1", hub)?.connected == false)
  }

  @Test("after a restart, an entrant back in the lobby is seated with a new token")
  func entrantAfterRestart() throws {
    var hub = tournamentHub()
    for (peer, name) in zip([ann, ben, cat], ["Ann", "Ben", "Cat"]) {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
      _ = hub.say(peer, .enter(id: 2))
    }
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    let room = try #require(
      hub.state.lobby.tournament?.rounds.last?.first { !$0.isBye }?.room)
    let players = try #require(hub.state.lobby.rooms[room]).seats.values.map(\.name).sorted()
    // The server restarts from what was committed: nobody is connected, no token is known.
    var restarted = HubHarness(lobby: hub.state.lobby) { configuration in
      configuration.tournament = hub.state.tournament.plan
    }
    _ = restarted.handle(.start(releasing: []))
    _ = restarted.settle()
    #expect(restarted.state.tournament.tokens.isEmpty)
    let name = players[0]
    let peer = Peer(
      id: 20, identity: [ann, ben, cat][["Ann", "Ben", "Cat"].firstIndex(of: name)!].identity)
    _ = restarted.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
    let sent =
      restarted.raw(.timerFired(.flush))
      + restarted.raw(.committed(.success(()), onJournalThread: false))
    guard case .welcome(let seated, _, let token, _)? = H.messages(to: peer, in: sent).first else {
      Issue.record("no welcome: \(H.messages(to: peer, in: sent).map(H.summary))")
      return
    }
    #expect(seated == room)
    let held = try #require(seat(of: name, in: room, restarted))
    #expect(held.connected)
    #expect(held.token == ResumeToken.stored(try #require(token)))
    #expect(restarted.state.tournament.tokens[name] == token)
  }

  /// `people` (Ann and Ben first) following the lobby and entered in the tournament; Ann
  /// and Ben play a challenge of their own while entries are open (duel-1); then the
  /// round is paired.
  func entrantsInAChallenge(_ people: [(Peer, String)]) -> HubHarness {
    var hub = tournamentHub()
    for (peer, name) in people {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
      _ = hub.say(peer, .enter(id: 2))
    }
    _ = hub.settle()
    _ = hub.say(ann, .challenge(name: "Ben", bestOf: nil, ruleset: nil, fair: false, id: 3))
    _ = hub.settle()
    _ = hub.say(ben, .accept(challenge: 1, id: 3))
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    return hub
  }

  @Test("an entrant in a challenge when their round is paired is told after its last state")
  func entrantToldAfterTheirMatch() throws {
    var hub = entrantsInAChallenge([(ann, "Ann"), (ben, "Ben"), (cat, "Cat")])
    let duel = "duel-1"
    // Whoever of Ann and Ben plays in the round has a seat waiting.
    let waiting = try #require(
      hub.state.lobby.rooms.first {
        $0.key != duel && $0.value.seats.values.contains { !$0.connected }
      })
    let name = try #require(waiting.value.seats.values.first { !$0.connected }).name
    let peer = name == "Ann" ? ann : ben
    // Their challenge ends: its last state, then "your tournament match is ready".
    _ = hub.say(ann, .choose(round: 1, weapon: .rock, id: 4))
    _ = hub.say(ben, .choose(round: 1, weapon: .scissors, id: 4))
    let sent =
      hub.raw(.timerFired(.flush))
      + hub.raw(.committed(.success(()), onJournalThread: false))
    let told = H.messages(to: peer, in: sent).map(H.summary)
    let over = try #require(
      told.firstIndex { $0.hasPrefix("state \(duel)") && $0.contains("over") })
    let ready = try #require(told.firstIndex(of: "error match_ready"))
    #expect(over < ready)
  }

  /// Seed 10713: Ann is in a challenge when her round is paired, and her connection drops
  /// before she reads either welcome. Back, she cannot sit in both: the tournament's match
  /// first, then, after its last state, she is called to the challenge, whose seat waits.
  @Test("two seats waiting: the tournament's first, then called to the other, and seated")
  func twoSeatsWaiting() throws {
    let dan = Self.person(4)
    let people = [ann, ben, cat, dan]
    var hub = entrantsInAChallenge(Array(zip(people, ["Ann", "Ben", "Cat", "Dan"])))
    let pairing = try #require(
      hub.state.lobby.tournament?.rounds.last?.first { $0.players.contains("Ann") })
    let cup = try #require(pairing.room)
    let opponentName = try #require(pairing.players.first { $0 != "Ann" })
    try #require(opponentName != "Ben", "Ann's round is against someone in the lobby")
    let opponent = people[["Ann", "Ben", "Cat", "Dan"].firstIndex(of: opponentName)!]
    #expect(seat(of: "Ann", in: cup, hub)?.connected == false)
    // Ann's connection drops: both her seats wait.
    _ = hub.handle(.closed(ann))
    _ = hub.settle()
    #expect(seat(of: "Ann", in: "duel-1", hub)?.connected == false)
    // Back in the lobby: the tournament's match first.
    let back = Peer(id: 9, identity: ann.identity)
    _ = hub.say(back, H.hello("Ann", role: .lobby, challenges: true, fair: nil))
    _ = hub.settle()
    #expect(hub.state.sessions[back.id]?.room == cup)
    #expect(seat(of: "Ann", in: "duel-1", hub)?.connected == false)
    // That match ends: after its last state she is told the challenge is ready.
    _ = hub.say(back, .choose(round: 1, weapon: .rock, id: 4))
    _ = hub.say(opponent, .choose(round: 1, weapon: .scissors, id: 4))
    let sent =
      hub.raw(.timerFired(.flush)) + hub.raw(.committed(.success(()), onJournalThread: false))
    let told = H.messages(to: back, in: sent).map(H.summary)
    let over = try #require(told.firstIndex { $0.hasPrefix("state \(cup)") && $0.contains("over") })
    let ready = try #require(told.firstIndex(of: "error match_ready"), "\(told)")
    #expect(over < ready)
    // She goes back to the lobby, which seats her in the challenge.
    let again = Peer(id: 10, identity: ann.identity)
    _ = hub.handle(.closed(back))
    _ = hub.say(again, H.hello("Ann", role: .lobby, challenges: true, fair: nil))
    _ = hub.settle()
    #expect(hub.state.sessions[again.id]?.room == "duel-1")
    #expect(seat(of: "Ann", in: "duel-1", hub)?.connected == true)
  }

  /// Seeds 10505 and 10739: Ann's name was released on another server of the fleet while
  /// she followed the lobby here; she entered the tournament, and her round was paired
  /// while she was away. Entering holds the name again, so she is seated when back.
  @Test("an entrant whose name was released before entering holds it again, and is seated")
  func releasedNameEntrantSeated() throws {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1))) { configuration in
      configuration.sharesNames = true
      configuration.tournament = TournamentPlan(
        kind: .roundRobin, settings: .init(bestOf: 1), players: 0, startMillis: 10_000,
        pauseMillis: 3_000)
    }
    _ = hub.handle(.start(releasing: []))
    _ = hub.settle()
    let dan = Self.person(4)
    let people = [(ann, "Ann"), (ben, "Ben"), (cat, "Cat"), (dan, "Dan")]
    for (peer, name) in people {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
    }
    _ = hub.settle()
    _ = hub.handle(
      .fleetNamesRead([
        FleetName(
          folded: NameBook.folded("Ann"), identity: ann.identity!, usedAt: hub.now,
          released: true)
      ]))
    _ = hub.settle()
    #expect(hub.state.lobby.names.holder(of: "Ann") == nil)
    for (peer, _) in people { _ = hub.say(peer, .enter(id: 2)) }
    _ = hub.settle()
    #expect(hub.state.lobby.names.holder(of: "Ann") == ann.identity)
    // Away as the round is paired; back in the lobby within the grace: seated.
    _ = hub.handle(.closed(ann))
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    let cup = try #require(
      hub.state.lobby.tournament?.rounds.last?.first { $0.players.contains("Ann") }?.room)
    #expect(seat(of: "Ann", in: cup, hub)?.connected == false)
    let back = Peer(id: 9, identity: ann.identity)
    _ = hub.say(back, H.hello("Ann", role: .lobby, challenges: true, fair: nil))
    _ = hub.settle()
    #expect(hub.state.sessions[back.id]?.room == cup)
    #expect(seat(of: "Ann", in: cup, hub)?.connected == true)
  }

  /// Seed 10877: Ann's link went silent as her round-1 match ended; round 2 was paired and
  /// its welcome sent to that dead connection. Her client resumes with round 1's token.
  @Test("last round's token, its match over, resumes in this round's seat")
  func formerRoundTokenResumes() throws {
    var hub = tournamentHub()
    let dan = Self.person(4)
    let people = [(ann, "Ann"), (ben, "Ben"), (cat, "Cat"), (dan, "Dan")]
    for (peer, name) in people {
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
      _ = hub.say(peer, .enter(id: 2))
    }
    _ = hub.settle()
    _ = hub.fire(.tournament)
    let sent =
      hub.raw(.timerFired(.flush)) + hub.raw(.committed(.success(()), onJournalThread: false))
    guard case .welcome(_, _, let first?, _)? = H.messages(to: ann, in: sent).first else {
      Issue.record("Ann was not seated in round 1: \(H.messages(to: ann, in: sent).map(H.summary))")
      return
    }
    // Round 1 is played out: every match of it, one pick each (best of 1).
    for pairing in try #require(hub.state.lobby.tournament?.rounds.last) {
      for (index, name) in pairing.players.enumerated() {
        let peer = people.first { $0.1 == name }!.0
        _ = hub.say(peer, .choose(round: 1, weapon: index == 0 ? .rock : .scissors, id: 5))
      }
    }
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    #expect(hub.state.lobby.tournament?.rounds.count == 2)
    let cup = try #require(
      hub.state.lobby.tournament?.rounds.last?.first { $0.players.contains("Ann") }?.room)
    // A new connection with round 1's token: round 2's seat, with its token.
    let back = Peer(id: 9, identity: ann.identity)
    let resumed = hub.say(back, H.hello("Ann", resume: first, fair: nil))
    #expect(!resumed.contains { $0.contains("bad_token") }, "\(resumed)")
    _ = hub.settle()
    #expect(hub.state.sessions[back.id]?.room == cup)
    #expect(seat(of: "Ann", in: cup, hub)?.connected == true)
    #expect(hub.state.sessions[ann.id] == nil)
  }

  @Test("quick match gives someone back their own waiting seat, not a match against it")
  func quickMatchNotAgainstYourself() throws {
    var hub = HubHarness()
    _ = hub.say(ann, H.hello("Ann"))
    _ = hub.settle()
    let room = try #require(hub.state.sessions[ann.id]?.room)
    // Her connection drops (the welcome lost with it); she asks for quick match again.
    _ = hub.handle(.closed(ann))
    _ = hub.settle()
    let back = Peer(id: 9, identity: ann.identity)
    _ = hub.say(back, H.hello("Ann"))
    _ = hub.settle()
    let seats = try #require(hub.state.lobby.rooms[room]).seats
    #expect(seats.count == 1, "\(seats.values.map(\.name))")
    #expect(seats[.one]?.connected == true)
    #expect(hub.state.sessions[back.id]?.room == room)
    #expect(hub.state.sessions[back.id]?.seat == .one)
  }

  /// Seated in a challenge, then dropped; back in the lobby while the journal cannot be
  /// written: nothing can be taken back then, so the seat is theirs once writes succeed.
  @Test("back in the lobby while nothing can be written: seated once writes succeed")
  func backWhileTheJournalFails() throws {
    var hub = challengeAccepted()
    _ = hub.handle(.closed(ben))
    _ = hub.settle()
    let durable = hub.state.lobby
    // Ann picks; the commit fails (the disk is full): play pauses.
    _ = hub.say(ann, .choose(round: 1, weapon: .rock, id: 3))
    _ = hub.flush()
    _ = hub.handle(.committed(.failure(JournalFailure("disk full")), onJournalThread: false))
    _ = hub.handle(.reloaded(.success((durable, 0))))
    // Ben is back in the lobby meanwhile: the seat cannot be his yet.
    let back = Peer(id: 9, identity: ben.identity)
    _ = hub.say(back, H.hello("Ben", role: .lobby, challenges: true))
    _ = hub.settle()
    #expect(seat(of: "Ben", in: "duel-1", hub)?.connected == false)
    // Writes succeed again: he is seated.
    _ = hub.fire(.probe)
    _ = hub.handle(.probed(succeeded: true))
    _ = hub.settle()
    #expect(seat(of: "Ben", in: "duel-1", hub)?.connected == true)
    #expect(hub.state.sessions[back.id]?.seat == .two)
  }

  /// Back in the lobby on a new connection before the old one was seen to close: when it
  /// is, the seat is theirs at once.
  @Test("back before the old connection was seen to close: seated when it is")
  func backBeforeTheCloseIsSeen() throws {
    var hub = challengeAccepted()
    let back = Peer(id: 9, identity: ben.identity)
    _ = hub.say(back, H.hello("Ben", role: .lobby, challenges: true))
    _ = hub.settle()
    #expect(hub.state.sessions.followers[back.id] != nil)
    _ = hub.handle(.closed(ben))
    _ = hub.settle()
    #expect(seat(of: "Ben", in: "duel-1", hub)?.connected == true)
    #expect(hub.state.sessions[back.id]?.seat == .two)
  }
}
