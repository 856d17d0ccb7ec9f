import RoshamboGame
import RoshamboPlayer
import RoshamboProtocol
import Testing

/// The player's core as a value: inputs in, outputs out, compared whole. No socket, loop,
/// thread, sleep or clock: every `now` is written here.
@Suite("Player: the core")
struct PlayerCoreTests {
  static let nonce = String(repeating: "ab", count: 32)

  /// A room where Alice (seat one) and Bob play round 1.
  static func room(fair: Bool = false) -> RoomState {
    var settings = RoomState.Settings()
    settings.fair = fair
    var room = RoomState(name: "den", settings: settings)
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    return room
  }

  static func hello(resume: String? = nil, fair: Bool = false, id: Int) -> ClientMessage {
    .hello(
      protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: resume,
      fair: fair, keepalive: 3, id: id)
  }

  static let welcome = ServerMessage.welcome(
    room: "den", seat: .one, token: "t", rate: FrameRate(perSecond: 20, burst: 40))

  /// Alice started at `at`, connected, welcomed to `room` and shown its first state: the
  /// keepalive is due at `at + 3_000`, and the hello was message 1.
  static func seated(
    fair: Bool = false, room: RoomState = room(), at: Int64 = 0,
    policy: ReconnectPolicy = .standard
  ) -> PlayerCore {
    var core = PlayerCore(
      configuration: PlayerConfiguration(name: "Alice", room: "den", fair: fair, policy: policy))
    _ = core.handle(.start, now: at)
    _ = core.handle(.connected, now: at)
    _ = core.handle(.message(welcome), now: at)
    _ = core.handle(.message(.state(seq: 1, view: room.view(for: .one))), now: at)
    return core
  }

  @Test("hello, then the welcome: the seat is kept and the keepalive timed")
  func helloAndWelcome() {
    var core = PlayerCore(configuration: PlayerConfiguration(name: "Alice", room: "den"))
    #expect(core.handle(.start, now: 1_000) == [.connect])
    #expect(core.state.phase == .connecting)
    #expect(
      core.handle(.connected, now: 1_010) == [
        .send(Self.hello(id: 1)), .schedule(.keepalive, at: 4_010), .show,
      ])
    #expect(
      core.handle(.message(Self.welcome), now: 1_020) == [
        .keepSeat(room: "den", token: "t"), .show,
      ])
    guard case .seated = core.state.phase else {
      Issue.record("not seated after the welcome: \(core.state.phase)")
      return
    }
    #expect(core.state.pacer.rate == FrameRate(perSecond: 20, burst: 40))
    let view = Self.room().view(for: .one)
    #expect(core.handle(.message(.state(seq: 1, view: view)), now: 1_030) == [.show])
    #expect(core.state.match.view == view)
  }

  @Test("a player who left keeps no seat, whatever state comes before the close")
  func leftKeepsNoSeat() {
    var core = Self.seated()
    let left = core.handle(.command(.leave), now: 100)
    #expect(left.contains(.forgetSeat))
    #expect(left.contains(.send(.leave(id: nil))))
    // A rematch's first state, sent before the server read the leave.
    var room = Self.room()
    room.apply(.chose(seat: .two, round: 1, weapon: .rock, at: 0))
    let outputs = core.handle(.message(.state(seq: 2, view: room.view(for: .one))), now: 120)
    #expect(!outputs.contains { if case .keepSeat = $0 { true } else { false } })
  }

  @Test("a refused hello ends the session with the server's words")
  func refusedHello() {
    var core = PlayerCore(configuration: PlayerConfiguration(name: "Alice", room: "den"))
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 0)
    let full = ProtocolError(code: .roomFull, message: "Room den is full.")
    var fatal = full
    fatal.fatal = true
    #expect(
      core.handle(.message(.error(full, re: 1)), now: 5) == [
        .close, .show, .ended(.refused(fatal)),
      ])
    #expect(core.handle(.timerFired(.keepalive), now: 3_000) == [])
  }

  @Test("a pick in a fair room: a nonce, the commitment, and the reveal once Bob's is shown")
  func fairPick() throws {
    var room = Self.room(fair: true)
    var core = Self.seated(fair: true, room: room)
    #expect(core.handle(.command(.pick(.rock)), now: 100) == [.makeNonce(.rock)])
    let bytes = try #require(Commitment.bytes(ofHex: Self.nonce))
    let digest = Commitment.digest(room: "den", round: 1, seat: .one, weapon: .rock, nonce: bytes)
    #expect(
      core.handle(.nonce(Self.nonce, for: .rock), now: 110) == [
        .send(.commit(round: 1, digest: digest, id: 2)), .show,
      ])
    // A second key for the same round sends nothing.
    #expect(core.handle(.command(.pick(.paper)), now: 120) == [])
    room.apply(.committed(seat: .one, round: 1, digest: digest, at: 130))
    #expect(core.handle(.message(.state(seq: 2, view: room.view(for: .one))), now: 130) == [.show])
    // Bob's commitment shown: only now is the secret revealed, once.
    let theirs = Commitment.digest(
      room: "den", round: 1, seat: .two, weapon: .paper, nonce: [UInt8](repeating: 4, count: 32))
    room.apply(.committed(seat: .two, round: 1, digest: theirs, at: 140))
    #expect(
      core.handle(.message(.state(seq: 3, view: room.view(for: .one))), now: 140) == [
        .send(.reveal(round: 1, weapon: .rock, nonce: Self.nonce, id: 3)), .show,
      ])
    #expect(core.handle(.message(.state(seq: 3, view: room.view(for: .one))), now: 150) != [])
  }

  @Test("a fair room's next nonce is drawn while the player waits: a pick only hashes")
  func nonceDrawnAhead() throws {
    let first = String(repeating: "01", count: 32)
    let second = String(repeating: "02", count: 32)
    var room = Self.room(fair: true)
    var core = PlayerCore(
      configuration: PlayerConfiguration(name: "Alice", room: "den", fair: true))
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 0)
    _ = core.handle(.message(Self.welcome), now: 0)
    // The first view of a fair room asks for a nonce, before any key is pressed; a draw
    // that is not a nonce is dropped and asked for again.
    #expect(
      core.handle(.message(.state(seq: 1, view: room.view(for: .one))), now: 0) == [
        .drawNonce, .show,
      ])
    #expect(core.handle(.nonceDrawn("not a nonce"), now: 5) == [.drawNonce])
    #expect(core.handle(.nonceDrawn(first), now: 10) == [])
    #expect(core.state.nextNonce.isReady)
    // The pick commits at once with it (no nonce asked for), and the next nonce is asked
    // for after the commitment has gone, while the server answers.
    let mine = Commitment.digest(
      room: "den", round: 1, seat: .one, weapon: .rock, nonce: try #require(bytes(first)))
    #expect(
      core.handle(.command(.pick(.rock)), now: 100) == [
        .send(.commit(round: 1, digest: mine, id: 2)), .drawNonce, .show,
      ])
    #expect(!core.state.nextNonce.isReady)
    #expect(core.handle(.nonceDrawn(second), now: 110) == [])
    // Round 1 is revealed (with the first nonce) and resolved.
    let theirNonce = [UInt8](repeating: 9, count: 32)
    let theirs = Commitment.digest(
      room: "den", round: 1, seat: .two, weapon: .scissors, nonce: theirNonce)
    room.apply(.committed(seat: .one, round: 1, digest: mine, at: 120))
    room.apply(.committed(seat: .two, round: 1, digest: theirs, at: 120))
    #expect(
      core.handle(.message(.state(seq: 2, view: room.view(for: .one))), now: 120) == [
        .send(.reveal(round: 1, weapon: .rock, nonce: first, id: 3)), .show,
      ])
    room.apply(
      .revealed(seat: .one, round: 1, weapon: .rock, nonce: first, matches: true, at: 130))
    room.apply(
      .revealed(
        seat: .two, round: 1, weapon: .scissors, nonce: Commitment.hex(theirNonce),
        matches: true, at: 130))
    _ = core.handle(.message(.state(seq: 3, view: room.view(for: .one))), now: 130)
    #expect(core.state.match.fair.verifiedRounds == [1])
    // Round 2 commits with the second nonce: none serves two commitments.
    let next = Commitment.digest(
      room: "den", round: 2, seat: .one, weapon: .paper, nonce: try #require(bytes(second)))
    #expect(
      core.handle(.command(.pick(.paper)), now: 200) == [
        .send(.commit(round: 2, digest: next, id: 4)), .drawNonce, .show,
      ])
    #expect(core.state.match.fair.secret(for: 2)?.nonce == second)
  }

  @Test("a nonce drawn ahead is never sent before its reveal, nor drawn in an ordinary room")
  func nonceStaysSecret() throws {
    let nonce = String(repeating: "5a", count: 32)
    var room = Self.room(fair: true)
    var core = Self.seated(fair: true, room: room)
    var sent: [ClientMessage] = []
    func record(_ outputs: [PlayerOutput]) {
      for case .send(let message) in outputs { sent.append(message) }
    }
    record(core.handle(.nonceDrawn(nonce), now: 10))
    record(core.handle(.command(.pick(.paper)), now: 20))
    let mine = try #require(core.state.match.fair.secret(for: 1))
    #expect(mine.nonce == nonce)
    room.apply(.committed(seat: .one, round: 1, digest: mine.digest, at: 30))
    record(core.handle(.message(.state(seq: 2, view: room.view(for: .one))), now: 30))
    // Only Alice has committed: everything sent so far keeps the nonce to itself.
    #expect(!sent.isEmpty)
    for message in sent {
      #expect(!String(decoding: message.encoded(), as: UTF8.self).contains(nonce))
    }
    // An ordinary room never asks for one.
    var plain = Self.seated()
    #expect(plain.handle(.command(.pick(.rock)), now: 100).contains(.drawNonce) == false)
    #expect(plain.state.nextNonce == NextNonce())
  }

  @Test("the server breaking the protocol ends the session; in a fair round, with evidence")
  func brokeProtocol() throws {
    var plain = Self.seated()
    #expect(
      plain.handle(.brokeProtocol("a frame this client cannot read"), now: 100) == [
        .close, .show, .ended(.brokeProtocol("a frame this client cannot read")),
      ])
    var fair = Self.seated(fair: true, room: Self.room(fair: true))
    _ = fair.handle(.command(.pick(.rock)), now: 100)
    _ = fair.handle(.nonce(Self.nonce, for: .rock), now: 110)
    let caught = fair.handle(.brokeProtocol("a frame this client cannot read"), now: 120)
    // The round committed in can never be checked: a lie, kept as evidence; the session
    // ends once the evidence is written, saying where.
    #expect(caught.first == .close)
    #expect(caught.contains { if case .keepEvidence = $0 { true } else { false } })
    #expect(!caught.contains { if case .ended = $0 { true } else { false } })
    let saved = fair.handle(.evidenceSaved(path: "/tmp/evidence.json"), now: 130)
    guard case .ended(.cheated(let reason))? = saved.last else {
      Issue.record("no end after the evidence: \(saved)")
      return
    }
    #expect(reason.contains("/tmp/evidence.json"))
  }

  @Test("a lost connection: tries under the policy, the seat taken back with its token")
  func reconnect() {
    var core = Self.seated()
    #expect(
      core.handle(.closed("connection reset"), now: 1_000) == [
        .cancel(.keepalive), .schedule(.reconnect, at: 1_250), .schedule(.giveUp, at: 121_000),
        .show,
      ])
    #expect(core.state.match.context.connection == .reconnecting(attempt: 1))
    #expect(core.handle(.timerFired(.reconnect), now: 1_250) == [.connect])
    // Each failed try waits twice as long as the last, up to 2 s.
    #expect(
      core.handle(.connectFailed("refused"), now: 1_260) == [
        .schedule(.reconnect, at: 1_760), .show,
      ])
    #expect(core.handle(.timerFired(.reconnect), now: 1_760) == [.connect])
    #expect(
      core.handle(.connected, now: 1_770) == [
        .send(Self.hello(resume: "t", id: 2)), .schedule(.keepalive, at: 4_770), .show,
      ])
    // Welcomed: the patience stops running.
    #expect(core.handle(.message(Self.welcome), now: 1_780) == [.cancel(.giveUp)])
    guard case .seated = core.state.phase else {
      Issue.record("not seated again: \(core.state.phase)")
      return
    }
  }

  @Test("the give-up: tries every 2 s at most, and the end after 2 minutes")
  func giveUp() {
    var core = Self.seated()
    _ = core.handle(.closed(nil), now: 1_000)
    var waits: [Int64] = []
    var now: Int64 = 1_000
    while let due = core.state.timers[.reconnect], due < 121_000 {
      waits.append(due - now)
      now = due
      #expect(core.handle(.timerFired(.reconnect), now: now) == [.connect])
      _ = core.handle(.connectFailed("refused"), now: now)
    }
    #expect(Array(waits.prefix(5)) == [250, 500, 1_000, 2_000, 2_000])
    #expect(waits.allSatisfy { $0 <= 2_000 })
    let reason = "gave up reconnecting after 120 s; check that the server is running"
    #expect(
      core.handle(.timerFired(.giveUp), now: 121_000) == [.show, .ended(.gaveUp(reason))])
    #expect(core.state.match.context.connection == .closed(reason))
    #expect(core.handle(.connected, now: 121_001) == [])
  }

  @Test("a server that keeps closing is tried every 5 s, for a minute")
  func closingServer() {
    var core = Self.seated()
    let closing = ServerMessage.error(
      ProtocolError(code: .closing, message: "The server is closing.", seconds: 2), re: nil)
    #expect(core.handle(.message(closing), now: 1_000) == [.show])
    #expect(core.state.match.context.closesAt == 3_000)
    #expect(
      core.handle(.closed(nil), now: 3_000) == [
        .cancel(.keepalive), .schedule(.reconnect, at: 8_000), .schedule(.giveUp, at: 63_000),
        .show,
      ])
    var now: Int64 = 8_000
    var cycles = 0
    while core.state.end == nil, cycles < 20 {
      cycles += 1
      #expect(core.state.timers[.reconnect] == now)
      _ = core.handle(.timerFired(.reconnect), now: now)
      _ = core.handle(.connected, now: now + 10)
      _ = core.handle(.message(Self.welcome), now: now + 20)
      _ = core.handle(.message(closing), now: now + 30)
      let lost = core.handle(.closed(nil), now: now + 40)
      if core.state.end == nil {
        #expect(lost.contains(.schedule(.reconnect, at: now + 5_040)))
        #expect(lost.contains(.schedule(.giveUp, at: 63_000)))
      }
      now += 5_040
    }
    // Lost at 58_240 is within the minute; at 63_280 past it.
    #expect(cycles == 12)
    let reason =
      "gave up: the server has kept saying it is closing each time it was reached again, "
      + "for 60 s; try again later, or ask its host whether it is being stopped"
    #expect(core.state.end == .gaveUp(reason))
  }

  @Test("a closing server that is not reached again is given up on after its minute, as closing")
  func closingServerGone() {
    var core = Self.seated()
    let closing = ServerMessage.error(
      ProtocolError(code: .closing, message: "The server is closing.", seconds: 2), re: nil)
    _ = core.handle(.message(closing), now: 1_000)
    _ = core.handle(.closed(nil), now: 3_000)
    var now: Int64 = 3_000
    while let due = core.state.timers[.reconnect], due < 63_000 {
      now = due
      _ = core.handle(.timerFired(.reconnect), now: now)
      _ = core.handle(.connectFailed("refused"), now: now + 10)
    }
    let reason =
      "gave up: the server has kept saying it is closing each time it was reached again, "
      + "for 60 s; try again later, or ask its host whether it is being stopped"
    #expect(core.handle(.timerFired(.giveUp), now: 63_000) == [.show, .ended(.gaveUp(reason))])
  }

  @Test("a pick made while the connection was lost is sent again on the new one")
  func lostPickSentAgain() {
    let room = Self.room()
    var core = Self.seated(room: room)
    _ = core.handle(.closed(nil), now: 1_000)
    // Nothing to send it on: shown as pending, sent nowhere.
    #expect(core.handle(.command(.pick(.rock)), now: 1_100) == [.show])
    _ = core.handle(.timerFired(.reconnect), now: 1_250)
    _ = core.handle(.connected, now: 1_260)
    _ = core.handle(.message(Self.welcome), now: 1_270)
    // The server's state again: Alice has not chosen, so the pick was lost.
    #expect(
      core.handle(.message(.state(seq: 1, view: room.view(for: .one))), now: 1_280) == [
        .send(.choose(round: 1, weapon: .rock, id: 3)), .show,
      ])
  }

  @Test(
    "a pick the server could not save is tried again each second until it is taken, with no view"
  )
  func unsavedPickTriedAgain() {
    let room = Self.room()
    var core = Self.seated(room: room)
    #expect(
      core.handle(.command(.pick(.rock)), now: 1_000) == [
        .send(.choose(round: 1, weapon: .rock, id: 2)), .show,
      ])
    let unavailable = ServerMessage.error(
      ProtocolError(code: .unavailable, message: "The server cannot save right now."), re: 2)
    // The server's disk is full: nothing happened, and no view comes while play pauses.
    #expect(
      core.handle(.message(unavailable), now: 1_010) == [
        .schedule(.retry, at: 2_010), .show,
      ])
    #expect(
      core.handle(.timerFired(.retry), now: 2_010) == [
        .send(.choose(round: 1, weapon: .rock, id: 3)), .show,
      ])
    // Still paused: refused again, tried again.
    #expect(
      core.handle(.message(unavailable), now: 2_020) == [.schedule(.retry, at: 3_020), .show])
    #expect(
      core.handle(.timerFired(.retry), now: 3_020) == [
        .send(.choose(round: 1, weapon: .rock, id: 4)), .show,
      ])
    // Taken: the view shows it, and nothing is tried again.
    var chosen = room
    chosen.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 3_030))
    _ = core.handle(.message(.state(seq: 2, view: chosen.view(for: .one))), now: 3_030)
    _ = core.handle(.message(unavailable), now: 3_040)  // a late answer to the last try
    #expect(core.handle(.timerFired(.retry), now: 4_040) == [])
  }

  @Test("pacing under a burst: no frame past the announced rate; a dropped frame goes again")
  func pacing() {
    var core = PlayerCore(configuration: PlayerConfiguration(name: "Alice", room: "den"))
    _ = core.handle(.start, now: 0)
    _ = core.handle(.connected, now: 0)
    // Two frames a second, two at once: this client keeps to one at once.
    _ = core.handle(
      .message(
        .welcome(room: "den", seat: .one, token: "t", rate: FrameRate(perSecond: 2, burst: 2))),
      now: 0)
    var sent: [(Int64, ClientMessage)] = []
    func run(_ input: PlayerInput, at time: Int64) -> [PlayerOutput] {
      let outputs = core.handle(input, now: time)
      for case .send(let message) in outputs { sent.append((time, message)) }
      return outputs
    }
    // Five rematch presses at once: the first waits for the credit the hello used.
    #expect(run(.command(.rematch), at: 100) == [.schedule(.pacing, at: 500)])
    for _ in 1...4 { #expect(run(.command(.rematch), at: 100) == []) }
    #expect(
      run(.timerFired(.pacing), at: 500) == [
        .send(.rematch(id: 2)), .schedule(.pacing, at: 1_000),
      ])
    // The server dropped id 2 anyway: it goes again, before id 3, after a whole interval.
    let limited = ProtocolError(code: .rateLimited, message: "Too fast.")
    #expect(run(.message(.error(limited, re: 2)), at: 600) == [])
    #expect(
      run(.timerFired(.pacing), at: 1_000) == [.schedule(.pacing, at: 1_100)])
    #expect(
      run(.timerFired(.pacing), at: 1_100) == [
        .send(.rematch(id: 2)), .schedule(.pacing, at: 1_600),
      ])
    while let due = core.state.timers[.pacing] {
      _ = run(.timerFired(.pacing), at: due)
    }
    #expect(sent.map(\.1.id) == [2, 2, 3, 4, 5, 6])
    // Never more than one frame in any half second.
    for (first, second) in zip(sent, sent.dropFirst()) { #expect(second.0 - first.0 >= 500) }
  }

  @Test(
    "keepalive: a ping after 3 s of quiet; the server silent 6 s with a ping unanswered is lost")
  func keepaliveAndSilence() {
    var core = Self.seated(at: 0)
    #expect(
      core.handle(.timerFired(.keepalive), now: 3_000) == [
        .send(.ping(id: 2)), .schedule(.keepalive, at: 6_000),
      ])
    // The pong answers it: the round trip is shown.
    #expect(core.handle(.message(.pong(id: 2)), now: 3_040) == [.show])
    #expect(core.state.match.context.roundTripMillis == 40)
    #expect(
      core.handle(.timerFired(.keepalive), now: 6_000) == [
        .send(.ping(id: 3)), .schedule(.keepalive, at: 9_000),
      ])
    #expect(
      core.handle(.timerFired(.keepalive), now: 9_000) == [
        .send(.ping(id: 4)), .schedule(.keepalive, at: 12_000),
      ])
    // Nothing heard since 3_040, a ping unanswered for 3 s: the server is taken for lost.
    #expect(
      core.handle(.timerFired(.keepalive), now: 12_000) == [
        .close, .schedule(.reconnect, at: 12_250), .schedule(.giveUp, at: 132_000), .show,
      ])
  }

  @Test("timers between connections: none for the lost link; the patience runs until a welcome")
  func timersBetweenConnections() {
    var core = Self.seated()
    _ = core.handle(.closed(nil), now: 1_000)
    #expect(core.state.timers[.keepalive] == nil)
    // The lost link's timers, had the driver not cancelled them: nothing.
    #expect(core.handle(.timerFired(.keepalive), now: 1_100) == [])
    #expect(core.handle(.timerFired(.pacing), now: 1_100) == [])
    _ = core.handle(.timerFired(.reconnect), now: 1_250)
    _ = core.handle(.connected, now: 1_260)
    #expect(core.state.timers[.keepalive] == 4_260)
    // A keepalive that fires early sends nothing and asks again for its time.
    #expect(core.handle(.timerFired(.keepalive), now: 3_000) == [.schedule(.keepalive, at: 4_260)])
    // Not welcomed yet: the lost connection's patience still runs, and ends this one too.
    #expect(
      core.handle(.timerFired(.giveUp), now: 121_000) == [
        .close, .show,
        .ended(.gaveUp("gave up reconnecting after 120 s; check that the server is running")),
      ])
  }
}

private func bytes(_ hex: String) -> [UInt8]? { Commitment.bytes(ofHex: hex) }
