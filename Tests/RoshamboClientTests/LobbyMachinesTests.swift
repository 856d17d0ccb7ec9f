import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// The client's drivers as values: the bot's way through the lobby, its run from match
/// to match, the tournament's end, and the lobby's navigation. No socket, loop, disk or
/// sleep: events in, actions out.
@Suite("Client: the lobby's machines")
struct LobbyMachinesTests {
  static func view(
    _ people: [LobbyView.Person] = [], tournament: LobbyView.TournamentView? = nil
  ) -> LobbyView {
    LobbyView(
      people: people, peopleCount: people.count, rooms: [], roomCount: 0, leaders: [],
      tournament: tournament)
  }

  static func person(_ name: String, _ status: LobbyView.Status = .idle) -> LobbyView.Person {
    LobbyView.Person(name: name, status: status, room: nil, takesChallenges: true)
  }

  static func notice(_ id: Int, _ from: String, _ to: String, _ status: ChallengeNotice.Status)
    -> ChallengeNotice
  {
    ChallengeNotice(
      id: id, status: status, from: from, to: to, bestOf: 3, ruleset: .classic, fair: false,
      expires: 40_000)
  }

  static func tournament(_ phase: Tournament.Phase, entrants: [String], champion: String? = nil)
    -> LobbyView.TournamentView
  {
    LobbyView.TournamentView(
      kind: .swiss, phase: phase, round: 0, rounds: 2,
      standings: entrants.map {
        Tournament.Standing(name: $0, wins: 0, losses: 0, roundDifference: 0, alive: true)
      },
      pairings: [], champion: champion)
  }

  // MARK: - A lobby follower's requests

  /// What `outputs` send, in order.
  static func sent(_ outputs: [PlayerOutput]) -> [ClientMessage] {
    outputs.compactMap {
      guard case .send(let message) = $0 else { return nil }
      return message
    }
  }

  @Test("a lobby follower's requests: hello first, then each request with the next id")
  func followerRequestsNumbered() {
    var core = PlayerCore(
      configuration: PlayerConfiguration(
        name: "Bob", role: .lobby, fair: true, keepaliveMillis: 1_500, takesChallenges: true))
    _ = core.handle(.start, now: 0)
    #expect(
      Self.sent(core.handle(.connected, now: 0)) == [
        .hello(
          protocol: WireProtocol.version, name: "Bob", role: .lobby, room: nil, resume: nil,
          fair: true, challenges: true, keepalive: 2, patches: true, id: 1)
      ])
    _ = core.handle(.message(.lobby(seq: 1, view: Self.view([Self.person("Bob")]))), now: 10)
    let commands: [PlayerCommand] = [
      .challenge("Carol", fair: true), .accept(9), .decline(9, forTheEvening: true),
      .enterTournament, .askRecord(12),
    ]
    var sent: [ClientMessage] = []
    for (index, command) in commands.enumerated() {
      sent += Self.sent(core.handle(.command(command), now: 100 * Int64(index + 1)))
    }
    #expect(
      sent == [
        .challenge(name: "Carol", bestOf: nil, ruleset: nil, fair: true, id: 2),
        .accept(challenge: 9, id: 3),
        .decline(challenge: 9, block: true, id: 4),
        .enter(id: 5),
        .match(match: 12, id: 6),
      ])
    let reader = PlayerConfiguration(
      name: "Dave", role: .lobby, fair: true, takesChallenges: false, promisesKeepalive: false)
    #expect(
      reader.greeting(id: 1)
        == .hello(
          protocol: WireProtocol.version, name: "Dave", role: .lobby, room: nil, resume: nil,
          fair: true, patches: true, id: 1))
  }

  // MARK: - LobbySeating

  @Test("challenging: asks once, only when the person is free, and says how it ended")
  func challengesOnceWhenFree() {
    var seating = LobbySeating(name: "Bob", goal: .challenge("Carol", fair: true))
    let got8 = seating.handle(.view(seq: 1, Self.view([Self.person("Carol", .playing)])))
    #expect(got8 == [])
    let got9 = seating.handle(.view(seq: 2, Self.view([Self.person("Carol")])))
    #expect(
      got9
        == [.challenge("Carol", fair: true)])
    let got10 = seating.handle(.view(seq: 3, Self.view([Self.person("Carol")])))
    #expect(got10 == [])
    let got11 = seating.handle(.challenge(Self.notice(7, "Bob", "Carol", .pending)))
    #expect(
      got11
        == [.say("challenged Carol: best of 3, classic")])
    let got12 = seating.handle(.challenge(Self.notice(7, "Bob", "Carol", .declined)))
    #expect(got12 == [.stop])
    let got13 = seating.endedWithoutSeat()
    #expect(got13 == "the challenge to Carol ended: declined")
  }

  @Test("challenging someone never free: the wait closes the connection, and is said")
  func challengeWaitRunsOut() {
    var seating = LobbySeating(
      name: "Bob", goal: .challenge("Nobody", fair: false), wait: .seconds(1))
    _ = seating.handle(.view(seq: 1, Self.view([Self.person("Carol")])))
    let got14 = seating.waitedTooLong()
    #expect(got14)
    let got15 = seating.endedWithoutSeat()
    #expect(
      got15
        == "Nobody was not in the lobby free to take a challenge within \(Duration.seconds(1)).")
    var asked = LobbySeating(name: "Bob", goal: .challenge("Carol", fair: false))
    _ = asked.handle(.view(seq: 1, Self.view([Self.person("Carol")])))
    let got16 = asked.waitedTooLong()
    #expect(!got16)
    // A connection that simply ended is worth coming back to: no problem said.
    let got17 = asked.endedWithoutSeat()
    #expect(got17 == nil)
  }

  @Test("accepting: only challenges to this person; a challenge of someone else's ending is not")
  func acceptsChallengesToMe() {
    var seating = LobbySeating(name: "Bob", goal: .accept)
    let got18 = seating.handle(.challenge(Self.notice(3, "Alice", "Bob", .pending)))
    #expect(
      got18
        == [.say("accepting Alice's challenge: best of 3, classic"), .accept(challenge: 3)])
    let got19 = seating.handle(.challenge(Self.notice(4, "Alice", "Bob", .expired)))
    #expect(got19 == [])
    let got20 = seating.waitedTooLong()
    #expect(!got20)
    var challenger = LobbySeating(name: "Bob", goal: .challenge("Carol", fair: false))
    let got21 = challenger.handle(.challenge(Self.notice(5, "Alice", "Bob", .pending)))
    #expect(got21 == [])
  }

  @Test("the tournament: enters once while it takes entries; an entrant waits; none is said")
  func entersTheTournament() {
    var entering = LobbySeating(name: "Bob", goal: .enterTournament)
    let open = Self.view(tournament: Self.tournament(.entry, entrants: ["Alice"]))
    let got22 = entering.handle(.view(seq: 1, open))
    #expect(
      got22
        == [.enterTournament, .say("entered the swiss tournament")])
    let got23 = entering.handle(.view(seq: 2, open))
    #expect(got23 == [])
    var entrant = LobbySeating(name: "Bob", goal: .enterTournament)
    let running = Self.view(tournament: Self.tournament(.running, entrants: ["Bob"]))
    let got24 = entrant.handle(.view(seq: 1, running))
    #expect(
      got24 == [.say("in the tournament: waiting to be seated")])
    var already = LobbySeating(name: "Alice", goal: .enterTournament)
    let waiting = already.handle(.view(seq: 1, open))
    #expect(waiting == [.say("in the tournament: waiting to be seated")])
    var late = LobbySeating(name: "Dave", goal: .enterTournament)
    let got25 = late.handle(.view(seq: 1, running))
    #expect(got25 == [.stop])
    let got26 = late.endedWithoutSeat()
    #expect(got26 == "no tournament is taking entries on this server")
  }

  @Test("coming back and a drain: each said once; a refusal stops with its words")
  func comingBackAndClosing() {
    var seating = LobbySeating(name: "Bob", goal: .accept)
    let said = "the server is closing in 5 s; back in the lobby when it is"
    let got27 = seating.handle(.closing(seconds: 5, closesAt: 5_000))
    #expect(got27 == [.say(said)])
    let got28 = seating.handle(.closing(seconds: 4, closesAt: 5_000))
    #expect(got28 == [])
    // A lost connection is said once, however many tries it takes.
    #expect(
      seating.handle(.reconnecting(attempt: 1)) == [.say("lost the connection; reconnecting…")])
    #expect(seating.handle(.reconnecting(attempt: 2)) == [])
    let got29 = seating.handle(.view(seq: 1, Self.view()))
    #expect(got29 == [.say("back in the lobby")])
    let got30 = seating.handle(.view(seq: 2, Self.view()))
    #expect(got30 == [])
    var seatedBack = LobbySeating(name: "Bob", goal: .enterTournament)
    _ = seatedBack.handle(.reconnecting(attempt: 1))
    let got31 = seatedBack.handle(.seated(room: "cup-1-2-1"))
    #expect(got31 == [.say("back in the tournament: seated in cup-1-2-1")])
    let busy = ProtocolError(code: .busy, message: "Carol is busy")
    let got32 = seating.handle(.refused(busy))
    #expect(got32 == [.stop])
    let got33 = seating.endedWithoutSeat()
    #expect(got33 == "the server refused: Carol is busy")
  }

  // MARK: - BotRun

  static func tally(won: Int, lost: Int = 0) -> Bot.Tally {
    var tally = Bot.Tally()
    tally.matchesWon = won
    tally.matchesLost = lost
    return tally
  }

  @Test("from the lobby: one session per match, each counting on from the last")
  func botFromLobby() {
    var run = BotRun(matches: 2, fromLobby: true)
    let got34 = run.start()
    #expect(got34 == .play(until: 1, tally: Bot.Tally()))
    let one = Self.tally(won: 1)
    let got35 = run.ended(.init(tally: one, closing: nil, violated: false, stopped: false))
    #expect(
      got35
        == .play(until: 2, tally: one))
    let two = Self.tally(won: 1, lost: 1)
    let got36 = run.ended(.init(tally: two, closing: nil, violated: false, stopped: false))
    #expect(
      got36
        == .finish(summary: two.summary))
  }

  @Test("in a room: one session for every match; short of them, says why")
  func botInRoom() {
    var run = BotRun(matches: 3, fromLobby: false)
    let got37 = run.start()
    #expect(got37 == .play(until: 3, tally: Bot.Tally()))
    let one = Self.tally(won: 1)
    let got38 = run.ended(
      .init(tally: one, closing: "the server went away", violated: false, stopped: false))
    #expect(
      got38
        == .fail(
          summary: one.summary,
          complaint: "played 1 of 3 matches before the connection ended: the server went away",
          violated: false))
    var stopped = BotRun(matches: 3, fromLobby: false)
    _ = stopped.start()
    let got39 = stopped.ended(.init(tally: one, closing: nil, violated: false, stopped: true))
    #expect(
      got39
        == .fail(
          summary: one.summary,
          complaint: "stopped by a signal after 1 of 3 matches; left the room.", violated: false))
  }

  @Test("a connection that ended with no reason given: said so")
  func botConnectionEnded() {
    var run = BotRun(matches: 2, fromLobby: false)
    _ = run.start()
    let none = run.ended(.init(tally: Bot.Tally(), closing: nil, violated: false, stopped: false))
    #expect(
      none
        == .fail(
          summary: Bot.Tally().summary,
          complaint: "played 0 of 2 matches before the connection ended.", violated: false))
  }

  @Test("a lie ends the run even after the last match")
  func botCaughtLie() {
    var run = BotRun(matches: 1, fromLobby: true)
    _ = run.start()
    let one = Self.tally(won: 1)
    let got40 = run.ended(.init(tally: one, closing: "it lied", violated: true, stopped: false))
    #expect(
      got40
        == .fail(summary: one.summary, complaint: "it lied", violated: true))
  }

  // MARK: - TournamentWatch

  @Test("the tournament's end: the champion from the first view of it finished")
  func tournamentWatch() {
    var watch = TournamentWatch()
    let nothing = watch.viewed(Self.view(tournament: nil))
    #expect(nothing)
    let running = watch.viewed(
      Self.view(tournament: Self.tournament(.running, entrants: ["Bob"])))
    #expect(running)
    #expect(watch.champion == nil)
    let finished = Self.tournament(.finished, entrants: ["Bob"], champion: "Bob")
    let over = watch.viewed(Self.view(tournament: finished))
    #expect(!over)
    #expect(watch.champion == "Bob")
    // Once named, the champion stays, whatever a later view says.
    let next = Self.tournament(.finished, entrants: ["Carol"], champion: "Carol")
    let again = watch.viewed(Self.view(tournament: next))
    #expect(!again)
    #expect(watch.champion == "Bob")
  }

  // MARK: - LobbyNavigation

  @Test("the lobby's navigation: each screen's end leads back to the lobby or ends the program")
  func navigation() {
    let navigation = LobbyNavigation()
    #expect(navigation.start() == .takeBackSeat)
    #expect(navigation.tookBackSeat(nil) == .lobby(after: nil))
    #expect(navigation.tookBackSeat(.failed) == .lobby(after: nil))
    #expect(navigation.tookBackSeat(.signalled(2)) == .end(.signalled(2), complaint: nil))
    #expect(navigation.tookBackSeat(.serverMisbehaved) == .end(.protocolViolation, complaint: nil))

    #expect(navigation.lobbyEnded(.seated(room: "duel-1")) == .playSeated(room: "duel-1"))
    #expect(navigation.lobbyEnded(.quickMatch) == .quickMatch)
    #expect(navigation.lobbyEnded(.watch(room: "den")) == .watch(room: "den"))
    #expect(navigation.lobbyEnded(.replay(match: 4)) == .replay(match: 4))
    #expect(navigation.lobbyEnded(.quit) == .end(.quit, complaint: nil))
    #expect(navigation.lobbyEnded(.signalled(15)) == .end(.signalled(15), complaint: nil))
    #expect(navigation.lobbyEnded(.failed("no")) == .end(.refused, complaint: "no"))
    // The lobby itself tried to reach the server again, for the policy's whole patience.
    #expect(navigation.lobbyEnded(.lost("gone")) == .end(.unreachable, complaint: "gone"))
    #expect(
      navigation.lobbyEnded(.serverMisbehaved("bad")) == .end(.protocolViolation, complaint: "bad"))

    #expect(navigation.matchEnded(.finished) == .lobby(after: nil))
    #expect(navigation.matchEnded(.failed) == .lobby(after: "the match's connection ended"))
    #expect(navigation.matchEnded(.serverMisbehaved) == .end(.protocolViolation, complaint: nil))
    #expect(navigation.matchEnded(.signalled(1)) == .end(.signalled(1), complaint: nil))

    #expect(navigation.replayEnded(.watched, match: 4) == .lobby(after: nil))
    #expect(
      navigation.replayEnded(.unavailable("no such match"), match: 4)
        == .lobby(after: nil, complaint: "could not replay match 4: no such match"))
    #expect(navigation.replayEnded(.signalled(2), match: 4) == .end(.signalled(2), complaint: nil))
    #expect(
      navigation.replayEnded(.protocolViolation("bad"), match: 4)
        == .end(.protocolViolation, complaint: "bad"))
  }
}
