import ClientFixtures
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Redux
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Testing

/// Coming back to a seat on a new connection while the server still thinks the old one
/// is open (a link down for 20 s, a cut connection): the server welcomes the seat again
/// and sends its current state, whose `seq` this client may already have.
@Suite("Client: resuming a seat")
struct ResumeTests {
  /// Seat one of room "den" in round 2 of a best of 3, as a view, and the state that
  /// follows it once the opponent has picked.
  static func views() -> (RoomView, RoomView) {
    var room = RoomState(name: "den", settings: .init())
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 1))
    room.apply(.chose(seat: .two, round: 1, weapon: .scissors, at: 1))
    let before = room.view(for: .one)
    room.apply(.chose(seat: .two, round: 2, weapon: .paper, at: 2))
    return (before, room.view(for: .one))
  }

  static func holding(_ view: RoomView, seq: Int) -> ClientState {
    var state = ClientState()
    ClientReducer().reduce(into: &state, action: .welcome(room: "den", seat: .one, token: "t"))
    ClientReducer().reduce(into: &state, action: .synced(view: view, seq: seq))
    return state
  }

  @Test("the first state after a welcome may repeat the last seq with the same view, only")
  func repeatRule() {
    let (view, later) = Self.views()
    let state = Self.holding(view, seq: 7)
    let same = ServerMessage.state(seq: 7, view: view)
    // On a resumed connection: the same view again changes nothing and is taken.
    #expect(
      ServerIntake.outcome(of: same, state: state, welcomed: true, firstAfterWelcome: true)
        == .action(.synced(view: view, seq: 7)))
    // The same seq with another view is a lie, resumed or not.
    let other = ServerMessage.state(seq: 7, view: later)
    guard
      case .violation(let message) = ServerIntake.outcome(
        of: other, state: state, welcomed: true, firstAfterWelcome: true)
    else {
      Issue.record("a different view under a repeated seq was taken")
      return
    }
    #expect(message.contains("repeats seq 7 with a different view"))
    // Anywhere else a repeat is refused as before, and going back is refused always.
    #expect(
      ServerIntake.outcome(of: same, state: state, welcomed: true)
        == .violation("seq went from 7 to 7; it must only rise"))
    #expect(
      ServerIntake.outcome(
        of: .state(seq: 6, view: view), state: state, welcomed: true, firstAfterWelcome: true)
        == .violation("seq went from 7 to 6; it must only rise"))
  }

  /// Away, the match may have ended and another begun in the room (the simulator: a host
  /// cut off, its opponent done, quick match seating a newcomer against the held seat):
  /// the first state after resuming may be round 1 of a new match; on one connection the
  /// match going back is still a violation.
  @Test("resumed, a new match in the room is taken; on one connection, going back is not")
  func newMatchWhileAway() {
    let (_, later) = Self.views()
    let state = Self.holding(later, seq: 7)
    var room = RoomState(name: "den", settings: .init())
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Carol", token: "c", at: 5))
    let fresh = room.view(for: .one)
    #expect(fresh.round < later.round)
    let message = ServerMessage.state(seq: 11, view: fresh)
    #expect(
      ServerIntake.outcome(of: message, state: state, welcomed: true, firstAfterWelcome: true)
        == .action(.synced(view: fresh, seq: 11)))
    guard
      case .violation(let why) = ServerIntake.outcome(of: message, state: state, welcomed: true)
    else {
      Issue.record("a match going back on one connection was taken")
      return
    }
    #expect(why.contains("went back"))
  }

  /// Each connection gets its script once the hello arrives: the first is then closed
  /// (the link the client gave up on), the others stay open.
  final class ResumingServer: Sendable {
    let channel: any Channel
    let hellos = NIOLockedValueBox<[String]>([])
    var port: Int { channel.localAddress!.port! }

    /// `closingAll`: every connection is closed after its script, not only the first.
    init(scripts: [[ServerMessage]], closingAll: Bool = false) async throws {
      let count = NIOLockedValueBox(0)
      let hellos = self.hellos
      channel = try await HostileServer.listen {
        let index = count.withLockedValue {
          $0 += 1
          return $0 - 1
        }
        return Replies(
          frames: scripts[min(index, scripts.count - 1)].map { $0.encoded() },
          closes: closingAll || index == 0,
          hellos: hellos)
      }
    }

    func close() async { try? await channel.close() }

    final class Replies: ChannelInboundHandler {
      typealias InboundIn = ByteBuffer
      let frames: [[UInt8]]
      let closes: Bool
      let hellos: NIOLockedValueBox<[String]>
      var answered = false
      init(frames: [[UInt8]], closes: Bool, hellos: NIOLockedValueBox<[String]>) {
        self.frames = frames
        self.closes = closes
        self.hellos = hellos
      }

      func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let text = String(decoding: frame.readableBytesView, as: UTF8.self)
        guard text.contains("\"hello\""), !answered else { return }
        answered = true
        hellos.withLockedValue { $0.append(text) }
        for bytes in frames { context.write(NIOAny(ByteBuffer.frame(bytes)), promise: nil) }
        context.writeAndFlush(NIOAny(ByteBuffer())).assumeIsolated().whenComplete { _ in
          if self.closes { context.close(promise: nil) }
        }
      }
    }
  }

  @Test("a server that says it is closing each time it is reached again is given up on")
  @MainActor
  func alwaysClosing() async throws {
    let (view, _) = Self.views()
    let closing = ProtocolError(
      code: .closing, message: "The server is closing; come back later.", seconds: 0)
    let server = try await ResumingServer(
      scripts: [
        [
          .welcome(room: "den", seat: .one, token: "t"), .state(seq: 7, view: view),
          .error(closing, re: nil),
        ]
      ], closingAll: true)
    let port = server.port
    let session = try await reconnectingSession(
      port: port, closingPatienceMillis: 8_000, closingRetryMillis: 1_000)
    session.join(name: "Alice", room: "den")
    let run = Task { @MainActor in await session.run() }
    // Ends by itself; a session that never gives up is stopped after 40 s.
    let stop = Task { @MainActor in
      try await Task.sleep(for: .seconds(40))
      session.store.dispatch(.quit)
      session.hangUp()
    }
    let (error, fatal) = await run.value
    stop.cancel()
    #expect(fatal == nil)
    let said = error.map(ConnectionFailure.ended) ?? "nothing"
    #expect(said.contains("kept saying it is closing"), "\(said)")
    // Reached again meanwhile, but no more often than once a second: the first hello, and
    // at most one a retry within the patience (it was once every 10 ms). The patience is
    // long enough for a connection made on a loaded machine (the give-up timer stops a try
    // under way; 4 s was once too short for a second hello, with CI and two builds beside).
    let hellos = server.hellos.withLockedValue(\.count)
    #expect(hellos >= 2 && hellos <= 1 + 8_000 / 1_000 + 1, "\(hellos) hellos")
    await server.close()
  }

  @Test("taken for gone after a stop (the server's fatal timeout): the seat is taken back")
  @MainActor
  func timedOutIsLost() async throws {
    let (view, later) = Self.views()
    let welcome = ServerMessage.welcome(room: "den", seat: .one, token: "t")
    let silence = ProtocolError(
      code: .timeout, message: "Nothing came from your program for 9 s.", fatal: true)
    let server = try await ResumingServer(scripts: [
      [welcome, .state(seq: 7, view: view), .error(silence, re: nil)],
      [welcome, .state(seq: 7, view: view), .state(seq: 8, view: later)],
    ])
    let session = try await reconnectingSession(port: server.port)
    let running = RunningSession(session)
    await running.seq { $0 >= 8 }
    // Back in the seat on a second connection, resumed with its token; not ended.
    #expect(session.store.state.seq == 8)
    #expect(server.hellos.withLockedValue { $0 }.last?.contains("\"resume\":\"t\"") == true)
    session.store.dispatch(.quit)
    session.hangUp()
    let (_, fatal) = await running.ended()
    #expect(fatal == nil)
    await server.close()
  }

  @Test("a seat resumed on a new connection carries on when its first state repeats the seq")
  @MainActor
  func resumesWithRepeatedSeq() async throws {
    let (view, later) = Self.views()
    let welcome = ServerMessage.welcome(room: "den", seat: .one, token: "t")
    let server = try await ResumingServer(scripts: [
      [welcome, .state(seq: 7, view: view)],
      [welcome, .state(seq: 7, view: view), .state(seq: 8, view: later)],
    ])
    let port = server.port
    let session = try await reconnectingSession(port: port)
    let seatFile = HeldSeat.path(
      in: NSTemporaryDirectory() + "roshambo-seats-\(getpid())-\(UUID().uuidString)",
      host: "127.0.0.1", port: port, name: "Alice")
    session.seatMemory = SeatMemory(path: seatFile, name: "Alice")
    let running = RunningSession(session)
    // Either the state after the repeat arrives, or the session ends (refusing it).
    await running.seq { $0 >= 8 }
    #expect(session.store.state.seq == 8)
    #expect(session.store.state.view == later)
    #expect(session.store.state.context.connection == .connected)
    // The second hello resumed the seat with its token.
    #expect(server.hellos.withLockedValue { $0 }.last?.contains("\"resume\":\"t\"") == true)
    // While the match runs its seat is kept for coming back after a crash; leaving
    // forgets it.
    #expect(
      HeldSeat.read(at: seatFile, name: "Alice")
        == HeldSeat(name: "Alice", room: "den", token: "t"))
    session.store.dispatch(.quit)
    #expect(HeldSeat.read(at: seatFile, name: "Alice") == nil)
    session.hangUp()
    let (error, fatal) = await running.ended()
    #expect(error == nil && fatal == nil)
    await server.close()
  }
}

/// A link that goes quiet is noticed within seconds, on the lobby as in a match.
@Suite("Client: a lost link")
struct LostLinkTests {
  @Test("the lobby takes a server that answers none of its pings for lost")
  func silentLobby() async throws {
    let view = LobbyView(
      people: [.init(name: "Eve", status: .idle, room: nil)], peopleCount: 1, rooms: [],
      roomCount: 0, leaders: [])
    let server = try await HostileServer(
      frames: [
        frame(String(decoding: ServerMessage.lobby(seq: 1, view: view).encoded(), as: UTF8.self))
      ],
      thenSilent: true)
    let port = server.port
    let tls = try ClientTestCertificates.clientTLS()
    let connection = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
    let watchdog = Task {
      // Only so that a client that never notices ends the test instead of hanging it.
      try await Task.sleep(for: .seconds(20))
      await connection.close()
    }
    var views = 0
    let outcome = await LobbyFollower.follow(connection, name: "Eve", keepaliveMillis: 200) {
      news, _ in
      if case .view = news { views += 1 }
      return true
    }
    watchdog.cancel()
    #expect(views == 1)
    guard case .ended(.closed(let why?)) = outcome else {
      Issue.record("the following ended otherwise: \(outcome)")
      await server.close()
      return
    }
    #expect(why.contains("the server stopped answering"), "\(why)")
    await server.close()
  }
}

/// A pick typed while the link was down.
@Suite("Client: a pick lost with its connection")
struct LostPickTests {
  /// The first connection takes the hello, sends the seat's state and closes as soon as
  /// a pick arrives (it never reaches the game); later ones send the same state again and
  /// keep every frame they are sent.
  final class PickEatingServer: Sendable {
    let channel: any Channel
    let received = NIOLockedValueBox<[String]>([])
    var port: Int { channel.localAddress!.port! }

    init(_ frames: [ServerMessage]) async throws {
      let count = NIOLockedValueBox(0)
      let received = self.received
      let bytes = frames.map { $0.encoded() }
      channel = try await HostileServer.listen {
        let index = count.withLockedValue {
          $0 += 1
          return $0 - 1
        }
        return Handler(frames: bytes, first: index == 0, received: received)
      }
    }

    final class Handler: ChannelInboundHandler {
      typealias InboundIn = ByteBuffer
      let frames: [[UInt8]]
      let first: Bool
      let received: NIOLockedValueBox<[String]>
      init(frames: [[UInt8]], first: Bool, received: NIOLockedValueBox<[String]>) {
        self.frames = frames
        self.first = first
        self.received = received
      }

      func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let text = String(decoding: unwrapInboundIn(data).readableBytesView, as: UTF8.self)
        if text.contains("\"hello\"") {
          for bytes in frames { context.write(NIOAny(ByteBuffer.frame(bytes)), promise: nil) }
          context.flush()
          return
        }
        if first, text.contains("\"choose\"") {
          context.close(promise: nil)
          return
        }
        if !first { received.withLockedValue { $0.append(text) } }
      }
    }
  }

  @Test("after the seat is resumed, a pick the server does not show is sent again")
  @MainActor
  func resent() async throws {
    let (view, _) = ResumeTests.views()
    let server = try await PickEatingServer([
      .welcome(room: "den", seat: .one, token: "t"), .state(seq: 7, view: view),
    ])
    let port = server.port
    let session = try await reconnectingSession(port: port)
    let running = RunningSession(session)
    await running.seq { $0 == 7 }
    session.store.dispatch(.choose(.paper))
    // The second connection is sent the round's pick again, without a key pressed.
    var resent = false
    for _ in 0..<400 where !resent {
      resent = server.received.withLockedValue { $0 }.contains {
        $0.contains("\"choose\"") && $0.contains("\"paper\"") && $0.contains("\"round\":2")
      }
      if !resent { try await Task.sleep(for: .milliseconds(25)) }
    }
    #expect(resent, "\(server.received.withLockedValue { $0 })")
    session.store.dispatch(.quit)
    session.hangUp()
    _ = await running.ended()
    try? await server.channel.close()
  }
}

/// What a second `welcome` says: quick match's move, not the tournament's next round.
@Suite("Client: moved to another room")
struct MovedRoomTests {
  @Test("quick match's move is said; the tournament's next round is not called one")
  func notices() {
    let (view, _) = ResumeTests.views()
    var quick = ResumeTests.holding(view, seq: 7)
    ClientReducer().reduce(
      into: &quick, action: .welcome(room: "quick-4", seat: .one, token: nil))
    #expect(quick.context.notice == "Bob left; quick match paired you in room quick-4.")
    var cup = ResumeTests.holding(view, seq: 7)
    ClientReducer().reduce(
      into: &cup, action: .welcome(room: "cup-1-2-1", seat: .two, token: nil))
    #expect(cup.context.notice == nil)
    #expect(cup.room == "cup-1-2-1" && cup.seq == -1)
  }
}

/// `session` joined as Alice in room "den" and running, its `seq` watched: a test waits for
/// a seq (or the session's end), then ends it. The wait ends when the run does, so a
/// session that gives up fails the test's expectations instead of hanging it.
@MainActor
struct RunningSession {
  let run: Task<(error: (any Error)?, fatal: ProtocolError?), Never>
  private let seqs: AsyncStream<Int>
  private let watching: Subscription

  init(_ session: ClientSession) {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    seqs = stream
    watching = session.store.subscribe(select: \.seq) { continuation.yield($0) }
    session.join(name: "Alice", room: "den")
    let run = Task { @MainActor in await session.run() }
    self.run = run
    Task { @MainActor in
      _ = await run.value
      continuation.finish()
    }
  }

  /// Until a seq `reached` holds for arrives, or the session ends.
  func seq(_ reached: (Int) -> Bool) async {
    for await seq in seqs where reached(seq) { break }
  }

  /// What the session's run ended with (the subscription is kept until then).
  func ended() async -> (error: (any Error)?, fatal: ProtocolError?) {
    let result = await run.value
    withExtendedLifetime(watching) {}
    return result
  }
}

/// A session on a server on 127.0.0.1 that reconnects at once (tries 10 ms apart, for
/// 60 s: a try takes seconds on a loaded machine), trusting the tests' CA.
@MainActor
func reconnectingSession(
  port: Int, closingPatienceMillis: Int64 = 120_000, closingRetryMillis: Int64 = 1
) async throws -> ClientSession {
  let tls = try ClientTestCertificates.clientTLS()
  return ClientSession(
    connection: try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls),
    reconnect: { try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls) },
    policy: ReconnectPolicy(
      firstWaitMillis: 10, longestWaitMillis: 10, patienceMillis: 60_000,
      closingRetryMillis: closingRetryMillis, closingPatienceMillis: closingPatienceMillis))
}
