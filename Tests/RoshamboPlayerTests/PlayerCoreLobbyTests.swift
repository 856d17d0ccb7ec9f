import RoshamboGame
import RoshamboPlayer
import RoshamboProtocol
import Testing

/// The player's core following the lobby: its hello, its views and patches, challenges
/// as commands, the seat the server gives on the same connection, and a lost lobby taken
/// back. Inputs in, outputs out, compared whole; every `now` is written here.
@Suite("Player: the core in the lobby")
struct PlayerCoreLobbyTests {
  static func view(_ names: [String], tournament: LobbyView.TournamentView? = nil) -> LobbyView {
    LobbyView(
      people: names.map {
        LobbyView.Person(name: $0, status: .idle, room: nil, takesChallenges: true)
      },
      peopleCount: names.count, rooms: [], roomCount: 0, leaders: [], tournament: tournament)
  }

  static func notice(_ id: Int, _ status: ChallengeNotice.Status) -> ChallengeNotice {
    ChallengeNotice(
      id: id, status: status, from: "Alice", to: "Bob", bestOf: 3, ruleset: .classic,
      fair: false, expires: 40_000)
  }

  static func hello(id: Int) -> ClientMessage {
    .hello(
      protocol: WireProtocol.version, name: "Alice", role: .lobby, room: nil, resume: nil,
      fair: true, challenges: true, keepalive: 3, patches: true, id: id)
  }

  static let configuration = PlayerConfiguration(
    name: "Alice", role: .lobby, fair: true, takesChallenges: true)

  /// Alice following the lobby from `at`, shown its first view (seq 1) of Alice and Bob.
  static func following(at: Int64 = 0) -> PlayerCore {
    var core = PlayerCore(configuration: configuration)
    _ = core.handle(.start, now: at)
    _ = core.handle(.connected, now: at)
    _ = core.handle(.message(.lobby(seq: 1, view: view(["Alice", "Bob"]))), now: at)
    return core
  }

  @Test("a lobby hello asks for patches and takes challenges; the first view is shown")
  func helloAndFirstView() {
    var core = PlayerCore(configuration: Self.configuration)
    #expect(core.handle(.start, now: 0) == [.connect])
    #expect(
      core.handle(.connected, now: 10) == [
        .send(Self.hello(id: 1)), .schedule(.keepalive, at: 3_010), .show,
      ])
    let view = Self.view(["Alice", "Bob"])
    #expect(
      core.handle(.message(.lobby(seq: 1, view: view)), now: 20) == [
        .lobby(.view(seq: 1, view))
      ])
    #expect(core.state.lobby?.seq == 1)
  }

  @Test("a patch is applied to the copy; one that does not follow asks for the whole view")
  func patches() {
    var core = Self.following()
    let old = Self.view(["Alice", "Bob"])
    let new = Self.view(["Alice", "Bob", "Carol"])
    let patch = LobbyPatch.make(from: old, to: new)
    #expect(
      core.handle(
        .message(.lobbyPatch(seq: 2, base: 1, fingerprint: new.fingerprint, patch: patch)),
        now: 100) == [.lobby(.view(seq: 2, new))])
    // Made from a view this copy never had (seq 5): the whole view is asked for, once.
    #expect(
      core.handle(
        .message(.lobbyPatch(seq: 6, base: 5, fingerprint: new.fingerprint, patch: patch)),
        now: 200) == [.send(.lobbyResync(id: 2))])
    #expect(core.state.lobby?.seq == 2)
  }

  @Test("a view whose seq goes back breaks the protocol; the same seq again is shown")
  func seqMustNotGoBack() {
    var core = Self.following()
    // The same view again (a refusal answered with a refresh) is not a lie.
    let again = Self.view(["Alice", "Bob"])
    #expect(
      core.handle(.message(.lobby(seq: 1, view: again)), now: 50) == [
        .lobby(.view(seq: 1, again))
      ])
    _ = core.handle(.message(.lobby(seq: 2, view: Self.view(["Alice"]))), now: 60)
    let outputs = core.handle(
      .message(.lobby(seq: 1, view: Self.view(["Alice"]))), now: 100)
    #expect(outputs.first == .close)
    #expect(outputs.last == .ended(.brokeProtocol("lobby views went from seq 2 to 1")))
  }

  @Test("a challenge is a command; once accepted, the welcome seats the same connection")
  func challengeAcceptedThenSeated() {
    var core = Self.following()
    #expect(
      core.handle(.command(.challenge("Bob", fair: false)), now: 100) == [
        .send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      ])
    #expect(
      core.handle(.message(.challenge(Self.notice(7, .accepted))), now: 200) == [
        .lobby(.challenge(Self.notice(7, .accepted)))
      ])
    let welcome = ServerMessage.welcome(
      room: "duel-1", seat: .one, token: "t", rate: FrameRate(perSecond: 20, burst: 40))
    #expect(
      core.handle(.message(welcome), now: 300) == [
        .keepSeat(room: "duel-1", token: "t"), .lobby(.seated(room: "duel-1")), .show,
      ])
    guard case .seated = core.state.phase else {
      Issue.record("not seated: \(core.state.phase)")
      return
    }
    #expect(core.state.match.room == "duel-1")
    #expect(core.state.pacer.rate == FrameRate(perSecond: 20, burst: 40))
    // Lobby commands mean nothing in a match.
    #expect(core.handle(.command(.challenge("Bob", fair: false)), now: 350) == [])
    // The room's first state comes on the same connection, and is the match's.
    var room = RoomState(name: "duel-1", settings: RoomState.Settings())
    room.apply(.playerJoined(name: "Alice", token: "t", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    let view = room.view(for: .one)
    #expect(core.handle(.message(.state(seq: 1, view: view)), now: 400) == [.show])
    #expect(core.state.match.view == view)
  }

  @Test("a welcome nobody asked for ends the session as a broken protocol")
  func unaskedWelcome() {
    var core = Self.following()
    let outputs = core.handle(
      .message(.welcome(room: "duel-1", seat: .one, token: "t", rate: nil)), now: 100)
    #expect(
      outputs.last
        == .ended(.brokeProtocol("a room's message to a connection following the lobby")))
  }

  @Test("entering the tournament lets its first match seat the follower before a view says so")
  func enteredThenSeated() {
    var core = Self.following()
    #expect(core.handle(.command(.enterTournament), now: 100) == [.send(.enter(id: 2))])
    let outputs = core.handle(
      .message(.welcome(room: "t1-r1-1", seat: .two, token: "u", rate: nil)), now: 200)
    #expect(outputs.contains(.lobby(.seated(room: "t1-r1-1"))))
  }

  @Test("a seat held while the connection was lost is the answer to the next lobby hello")
  func challengeThenLostThenSeated() {
    let welcome = ServerMessage.welcome(room: "duel-1", seat: .one, token: "t", rate: nil)
    // Alice challenged Bob and lost the connection before hearing of it; Bob accepted.
    var asked = Self.following()
    _ = asked.handle(.command(.challenge("Bob", fair: false)), now: 100)
    _ = asked.handle(.closed(nil), now: 1_000)
    _ = asked.handle(.timerFired(.reconnect), now: 1_250)
    _ = asked.handle(.connected, now: 1_300)
    #expect(asked.handle(.message(welcome), now: 1_310).contains(.lobby(.seated(room: "duel-1"))))
    // Alice heard Bob's challenge and accepted it; the connection was lost before the news.
    var heard = Self.following()
    let fromBob = ChallengeNotice(
      id: 7, status: .pending, from: "Bob", to: "Alice", bestOf: 3, ruleset: .classic,
      fair: false, expires: 40_000)
    _ = heard.handle(.message(.challenge(fromBob)), now: 100)
    _ = heard.handle(.command(.accept(7)), now: 150)
    _ = heard.handle(.closed(nil), now: 1_000)
    _ = heard.handle(.timerFired(.reconnect), now: 1_250)
    _ = heard.handle(.connected, now: 1_300)
    #expect(heard.handle(.message(welcome), now: 1_310).contains(.lobby(.seated(room: "duel-1"))))
    // Once the lobby was shown on this connection, a welcome nothing asked for is a lie.
    var shown = Self.following()
    _ = shown.handle(.message(.challenge(fromBob)), now: 100)
    var ended = fromBob
    ended.status = .declined
    _ = shown.handle(.message(.challenge(ended)), now: 150)
    #expect(
      shown.handle(.message(welcome), now: 200).last
        == .ended(.brokeProtocol("a room's message to a connection following the lobby")))
  }

  @Test(
    "a challenge pending as the connection was lost: its seat may come after the new first view"
  )
  func challengePendingThenLostThenSeatedLater() {
    // The server sees the old connection close only after the new one was shown the lobby:
    // it seats the follower back then (Bob had accepted meanwhile).
    let welcome = ServerMessage.welcome(room: "duel-1", seat: .one, token: "t", rate: nil)
    var core = Self.following()
    _ = core.handle(.command(.challenge("Bob", fair: false)), now: 100)
    _ = core.handle(.message(.challenge(Self.notice(7, .pending))), now: 110)
    _ = core.handle(.closed(nil), now: 1_000)
    _ = core.handle(.timerFired(.reconnect), now: 1_250)
    _ = core.handle(.connected, now: 1_300)
    _ = core.handle(.message(.lobby(seq: 4, view: Self.view(["Alice", "Bob"]))), now: 1_310)
    #expect(core.handle(.message(welcome), now: 1_900).contains(.lobby(.seated(room: "duel-1"))))
    // Lost with nothing pending, the new connection's lobby seats nobody unasked.
    var idle = Self.following()
    _ = idle.handle(.closed(nil), now: 1_000)
    _ = idle.handle(.timerFired(.reconnect), now: 1_250)
    _ = idle.handle(.connected, now: 1_300)
    _ = idle.handle(.message(.lobby(seq: 4, view: Self.view(["Alice", "Bob"]))), now: 1_310)
    #expect(
      idle.handle(.message(welcome), now: 1_900).last
        == .ended(.brokeProtocol("a room's message to a connection following the lobby")))
  }

  @Test("a challenge may come before the first view, which can wait up to an interval")
  func challengeBeforeFirstView() {
    var core = PlayerCore(configuration: Self.configuration)
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 10)
    let fromBob = ChallengeNotice(
      id: 7, status: .pending, from: "Bob", to: "Alice", bestOf: 3, ruleset: .classic,
      fair: false, expires: 40_000)
    #expect(
      core.handle(.message(.challenge(fromBob)), now: 20) == [.lobby(.challenge(fromBob))])
    // One between two others is still none of this follower's business.
    var others = fromBob
    others.to = "Carol"
    #expect(
      core.handle(.message(.challenge(others)), now: 30).last
        == .ended(.brokeProtocol("a challenge this follower is not part of")))
  }

  @Test("a lost lobby is reached again under the policy, said on the screen, and followed anew")
  func lostAndBack() {
    var core = Self.following()
    #expect(
      core.handle(.closed("the network went away"), now: 1_000) == [
        .cancel(.keepalive), .lobby(.reconnecting(attempt: 1)),
        .schedule(.reconnect, at: 1_250), .schedule(.giveUp, at: 121_000), .show,
      ])
    #expect(core.handle(.timerFired(.reconnect), now: 1_250) == [.connect])
    // A new follower's hello (ids keep rising), and its first view ends the outage.
    #expect(
      core.handle(.connected, now: 1_300) == [
        .send(Self.hello(id: 2)), .schedule(.keepalive, at: 4_300), .show,
      ])
    let view = Self.view(["Alice"])
    #expect(
      core.handle(.message(.lobby(seq: 1, view: view)), now: 1_310) == [
        .cancel(.giveUp), .lobby(.view(seq: 1, view)),
      ])
  }

  @Test("a lobby after a lost one begins by trying under the policy, not once")
  func startAfterLoss() {
    var core = PlayerCore(configuration: Self.configuration)
    #expect(
      core.handle(.startAfterLoss, now: 0) == [
        .lobby(.reconnecting(attempt: 1)), .schedule(.giveUp, at: 120_000), .connect, .show,
      ])
    #expect(
      core.handle(.connectFailed("connection refused"), now: 10) == [
        .lobby(.reconnecting(attempt: 2)), .schedule(.reconnect, at: 510), .show,
      ])
  }

  @Test("leaving the lobby closes and ends; nothing is sent")
  func leave() {
    var core = Self.following()
    #expect(core.handle(.command(.leave), now: 100) == [.close, .show, .ended(.left)])
  }

  @Test("a refused lobby hello ends the session with the server's words")
  func refused() {
    var core = PlayerCore(configuration: Self.configuration)
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 0)
    let full = ProtocolError(code: .serverFull, message: "The server is full.")
    var fatal = full
    fatal.fatal = true
    let outputs = core.handle(.message(.error(full, re: 1)), now: 10)
    #expect(outputs.last == .ended(.refused(fatal)))
    #expect(outputs.contains(.close))
  }

  @Test("a seat from the lobby, its connection lost: taken back as a player with its token")
  func seatedThenLost() {
    var core = Self.following()
    _ = core.handle(.message(.challenge(Self.notice(7, .accepted))), now: 100)
    _ = core.handle(
      .message(.welcome(room: "duel-1", seat: .one, token: "t", rate: nil)), now: 200)
    let lost = core.handle(.closed(nil), now: 1_000)
    #expect(!lost.contains(.lobby(.reconnecting(attempt: 1))))
    _ = core.handle(.timerFired(.reconnect), now: 1_250)
    #expect(
      core.handle(.connected, now: 1_300).first
        == .send(
          .hello(
            protocol: WireProtocol.version, name: "Alice", role: .player, room: "duel-1",
            resume: "t", fair: true, keepalive: 3, id: 2)))
  }

  @Test(
    "a record asked for is the news once it answers; another match's record breaks the protocol")
  func record() {
    let match = FinishedMatch(
      id: 4, room: "duel-1", finishedAt: 0, ruleset: "classic", bestOf: 1,
      players: ["Alice", "Bob"], scores: [1, 0], winner: "Alice", forfeit: false, fair: false,
      rounds: [RoundResult(round: 1, weapons: [.rock, .scissors], winner: .one, reason: nil)])
    var core = Self.following()
    #expect(core.handle(.command(.askRecord(4)), now: 100) == [.send(.match(match: 4, id: 2))])
    #expect(core.handle(.message(.record(match, re: 2)), now: 200) == [.lobby(.record(match))])
    // Asked once, answered once: a second answer was never asked for.
    #expect(
      core.handle(.message(.record(match, re: 2)), now: 300).last
        == .ended(.brokeProtocol("a match record this follower did not ask for")))

    var refused = Self.following()
    _ = refused.handle(.command(.askRecord(9)), now: 100)
    let none = ProtocolError(code: .noSuchMatch, message: "No match 9 here.")
    #expect(
      refused.handle(.message(.error(none, re: 2)), now: 200) == [
        .lobby(.recordRefused(match: 9, none))
      ])

    var lied = Self.following()
    _ = lied.handle(.command(.askRecord(5)), now: 100)
    #expect(
      lied.handle(.message(.record(match, re: 2)), now: 200).last
        == .ended(.brokeProtocol("asked for match 5, the server sent match 4")))
  }

  @Test("a lobby hello refused because the server drains: said, and the server tried again")
  func refusedWhileClosing() {
    var core = PlayerCore(configuration: Self.configuration)
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 0)
    var closing = ProtocolError(code: .closing, message: "closing", seconds: 20)
    closing.fatal = true
    #expect(
      core.handle(.message(.error(closing, re: 1)), now: 100) == [
        .lobby(.closing(seconds: 20, closesAt: 20_100)), .close, .cancel(.keepalive),
        .lobby(.reconnecting(attempt: 1)), .schedule(.reconnect, at: 5_100),
        .schedule(.giveUp, at: 60_100), .show,
      ])
    #expect(core.state.end == nil)
  }
}
