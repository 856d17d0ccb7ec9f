import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboClient
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import Testing

/// Certificates for every server test, made once.
enum TestCertificates {
  static let files: DevelopmentCertificates.Files = {
    // The programs the tests start keep their player identity and known servers here,
    // not in the home directory of whoever runs the tests.
    setenv(
      "XDG_CONFIG_HOME", NSTemporaryDirectory() + "roshambo-server-tests-\(getpid())/config", 1)
    let path = NSTemporaryDirectory() + "roshambo-server-tests-\(getpid())/certs"
    return try! DevelopmentCertificates.create(in: path, hosts: ["localhost", "127.0.0.1"])
  }()

  static let client: TLSContext = try! TLSContext(
    patient(.client(trust: .caFile(files.caCertificate))))

  /// `configuration` with 60 s for the handshake: a loaded test run may take seconds (the
  /// limit has tests of its own).
  static func patient(_ configuration: TLSConfiguration) -> TLSConfiguration {
    var patient = configuration
    patient.handshakeTimeoutSeconds = 60
    return patient
  }

  private static let identities = NIOLockedValueBox<[String: TLSContext]>([:])

  /// A client presenting the player identity kept for `person` (made the first time it
  /// is asked for): the same person on every connection of a test run.
  static func client(as person: String) -> TLSContext {
    identities.withLockedValue { known in
      if let context = known[person] { return context }
      let path = files.directory + "/identity-\(HexName.of(person)).pem"
      try! DevelopmentCertificates.createIdentity(at: path)
      let context = try! TLSContext(
        patient(
          .client(
            trust: .caFile(files.caCertificate), certificateChainFile: path, privateKeyFile: path)))
      known[person] = context
      return context
    }
  }
}

/// A file name for any text: its Unicode scalars in hex (64 digits at most).
enum HexName {
  static func of(_ text: String) -> String {
    String(text.unicodeScalars.map { String($0.value, radix: 16) }.joined().prefix(64))
  }
}

/// A fresh data directory for one test.
func temporaryDataDirectory() -> String {
  NSTemporaryDirectory() + "roshambo-server-tests-\(getpid())/data-\(UUID().uuidString)"
}

/// A server's configuration for tests: the test certificates, 127.0.0.1, a free port.
func testConfiguration(dataDirectory: String?) -> ServerConfiguration {
  var configuration = ServerConfiguration(
    certificateChainFile: TestCertificates.files.serverCertificate,
    privateKeyFile: TestCertificates.files.serverKey, dataDirectory: dataDirectory)
  configuration.host = "127.0.0.1"
  configuration.port = 0
  // Every test client connects from 127.0.0.1.
  configuration.tournamentEntriesPerAddress = 0
  // A loaded test run may take seconds to shake hands and say hello; the deadlines have
  // tests of their own.
  configuration.limits.helloTimeoutSeconds = 60
  configuration.limits.handshakeTimeoutSeconds = 60
  // Challenges wait longer than a loaded test run takes to answer them; expiry has its
  // own test.
  configuration.challengeLifetimeMillis = 600_000
  return configuration
}

/// Runs `body` with a server started as ``startServer(settings:dataDirectory:compactionInterval:limits:)``
/// starts one, and stops it afterwards even when `body` throws, so a failing test leaves
/// no server running.
func withServer<T>(
  settings: RoomState.Settings = .init(), dataDirectory: String? = temporaryDataDirectory(),
  compactionInterval: Int = 10_000,
  limits: (inout ServerConfiguration.Limits) -> Void = { _ in },
  _ body: (ServedServer) async throws -> T
) async throws -> T {
  let server = try await startServer(
    settings: settings, dataDirectory: dataDirectory, compactionInterval: compactionInterval,
    limits: limits)
  return try await stopping(server, body)
}

/// Runs `body` with a server started from `configuration`, and stops it afterwards even
/// when `body` throws.
func withServer<T>(
  _ configuration: ServerConfiguration, logger: Logger = Logger(label: "test"),
  _ body: (ServedServer) async throws -> T
) async throws -> T {
  try await stopping(
    try await ServedServer.start(
      configuration, logger: logger, storage: JournalStorage.shippingHistory), body)
}

/// `body`'s result, with `server` stopped after it whatever happened.
private func stopping<T>(_ server: ServedServer, _ body: (ServedServer) async throws -> T)
  async throws -> T
{
  let result: T
  do {
    result = try await body(server)
  } catch {
    try? await server.stop()
    throw error
  }
  try await server.stop()
  return result
}

/// Starts an in-process server on 127.0.0.1 and a free port.
func startServer(
  settings: RoomState.Settings = .init(), dataDirectory: String? = temporaryDataDirectory(),
  compactionInterval: Int = 10_000,
  limits: (inout ServerConfiguration.Limits) -> Void = { _ in }
) async throws -> ServedServer {
  var configuration = testConfiguration(dataDirectory: dataDirectory)
  configuration.roomSettings = settings
  configuration.threads = 2
  configuration.journalCompactionInterval = compactionInterval
  // Every test client connects from 127.0.0.1.
  configuration.limits.maxConnectionsPerAddress = 10_000
  limits(&configuration.limits)
  var logger = Logger(label: "test.server")
  logger.logLevel = .warning
  return try await ServedServer.start(
    configuration, logger: logger, storage: JournalStorage.shippingHistory)
}

/// What a test client has received: every frame's bytes, decoded messages, the close.
final class Inbox: Sendable {
  private struct State {
    var frames: [[UInt8]] = []
    var messages: [ServerMessage] = []
    var closed = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = NIOLockedValueBox(State())

  func deliver(frame: [UInt8]) {
    let message = try? ServerMessage.decode(frame)
    let waiters = state.withLockedValue { state in
      state.frames.append(frame)
      if let message { state.messages.append(message) }
      let waiters = state.waiters
      state.waiters = []
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func close() {
    let waiters = state.withLockedValue { state in
      state.closed = true
      let waiters = state.waiters
      state.waiters = []
      return waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  var frames: [[UInt8]] { state.withLockedValue { $0.frames } }
  var messages: [ServerMessage] { state.withLockedValue { $0.messages } }
  var isClosed: Bool { state.withLockedValue { $0.closed } }

  /// Waits until `count` messages have arrived or the connection closed.
  func wait(forCount count: Int) async {
    while true {
      let ready = state.withLockedValue { $0.messages.count >= count || $0.closed }
      if ready { return }
      await withCheckedContinuation { continuation in
        let resumeNow = state.withLockedValue { state in
          if state.messages.count >= count || state.closed { return true }
          state.waiters.append(continuation)
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
  }
}

final class InboxHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let inbox: Inbox
  init(inbox: Inbox) { self.inbox = inbox }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    inbox.deliver(frame: Array(buffer: unwrapInboundIn(data)))
  }

  func channelInactive(context: ChannelHandlerContext) {
    inbox.close()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}

/// A protocol-level client: real TLS, real frames, and a cursor over what it received.
final class TestClient: @unchecked Sendable {
  // `@unchecked Sendable`: `cursor` is used by one test task at a time; the rest is
  // immutable or the `Sendable` inbox.
  let channel: any Channel
  let inbox: Inbox
  private var cursor = 0
  var token: String?
  var seat: Seat?
  var room: String?

  private init(channel: any Channel, inbox: Inbox) {
    self.channel = channel
    self.inbox = inbox
  }

  /// Connects to 127.0.0.1, from `source` (another loopback address) if given, presenting
  /// the identity of `person` if given (``TestCertificates/client(as:)``), else none.
  /// Alice and Bob join room den on a best-of-1 server and play its match: Alice's rock
  /// beats Bob's scissors. Returns once Alice sees it over.
  static func matchPlayed(port: Int) async throws -> (alice: TestClient, bob: TestClient) {
    let alice = try await connect(port: port)
    try await alice.hello(name: "Alice", room: "den")
    let bob = try await connect(port: port)
    try await bob.hello(name: "Bob", room: "den")
    _ = try await alice.state { $0.phase == .choosing }
    alice.send(.choose(round: 1, weapon: .rock, id: 2))
    bob.send(.choose(round: 1, weapon: .scissors, id: 2))
    _ = try await alice.state { $0.phase == .over }
    return (alice, bob)
  }

  static func connect(port: Int, from source: String? = nil, as person: String? = nil)
    async throws -> TestClient
  {
    let inbox = Inbox()
    var bootstrap = ClientPipeline.bootstrap(group: MultiThreadedEventLoopGroup.singleton)
    if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
    let channel =
      try await bootstrap
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try ClientPipeline.install(
            on: channel, tls: person.map(TestCertificates.client(as:)) ?? TestCertificates.client,
            serverName: "127.0.0.1",
            last: InboxHandler(inbox: inbox))
        }
      }
      .connect(host: "127.0.0.1", port: port).get()
    return TestClient(channel: channel, inbox: inbox)
  }

  func send(_ message: ClientMessage) {
    channel.writeAndFlush(ClientPipeline.frame(message), promise: nil)
  }

  func sendRaw(_ bytes: [UInt8]) {
    channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
  }

  /// The next message, in order; fails the test if none comes within 10 s.
  func next(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ServerMessage {
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { await self.inbox.wait(forCount: self.cursor + 1) }
      group.addTask {
        try await Task.sleep(for: .seconds(10))
        throw TestClientError.timeout
      }
      try await group.next()
      group.cancelAll()
    }
    let messages = inbox.messages
    guard cursor < messages.count else {
      let last = messages.last.map { ", the last \($0)" } ?? ""
      throw TestClientError.closed("connection closed after \(messages.count) messages\(last)")
    }
    cursor += 1
    return messages[cursor - 1]
  }

  /// The next `state`, skipping nothing: it must be the next message.
  func nextState(sourceLocation: SourceLocation = #_sourceLocation) async throws -> (
    seq: Int, view: RoomView
  ) {
    let message = try await next()
    guard case .state(let seq, let view) = message else {
      throw TestClientError.unexpected("expected a state, got \(message)")
    }
    return (seq, view)
  }

  /// Skips states until one satisfies `condition`.
  func state(where condition: (RoomView) -> Bool) async throws -> RoomView {
    while true {
      let message = try await next()
      if case .state(_, let view) = message, condition(view) { return view }
      if case .error(let error, _) = message {
        throw TestClientError.unexpected("error \(error.code): \(error.message)")
      }
    }
  }

  /// The next error to arrive, whatever comes before it (views, states).
  func nextError() async throws -> ProtocolError {
    while true {
      if case .error(let error, _) = try await next() { return error }
    }
  }

  /// The next message must be an error with `code`.
  func expectError(_ code: ErrorCode) async throws -> (error: ProtocolError, re: Int?) {
    let message = try await next()
    guard case .error(let error, let re) = message, error.code == code else {
      throw TestClientError.unexpected("expected error \(code), got \(message)")
    }
    return (error, re)
  }

  /// Sends hello and reads the welcome.
  @discardableResult
  func hello(
    name: String, room: String? = nil, role: ClientMessage.Role = .player, resume: String? = nil,
    fair: Bool? = nil
  ) async throws -> ServerMessage {
    send(
      .hello(
        protocol: WireProtocol.version, name: name, role: role, room: room, resume: resume,
        fair: fair, id: 1))
    let message = try await next()
    if case .welcome(let room, let seat, let token, _) = message {
      self.room = room
      self.seat = seat
      self.token = token ?? self.token
    }
    return message
  }

  func waitUntilClosed() async {
    await inbox.wait(forCount: Int.max)
  }

  func close() async {
    try? await channel.close()
  }
}

enum TestClientError: Error {
  case timeout
  case closed(String)
  case unexpected(String)
}

extension FinishedMatch {
  /// The finished match of `room` (which must be over) as the rules would record it at
  /// `at`: a forfeit when a seat gave up before anyone reached the wins needed.
  init(room: RoomState, at: Int64) {
    let seats = Seat.allCases.map { room.seats[$0] }
    let scores = seats.map { $0?.score ?? 0 }
    self.init(
      room: room.name, finishedAt: at, ruleset: room.settings.ruleset.rawValue,
      bestOf: room.settings.bestOf, players: seats.map { $0?.name ?? "?" }, scores: scores,
      winner: room.winner.flatMap { room.seats[$0]?.name } ?? "?",
      forfeit: seats.contains { $0?.hasLeft == true } && !scores.contains(room.winsNeeded),
      fair: room.settings.fair)
  }
}

extension FrameRate {
  /// What a server with the default limits announces in its `welcome`.
  static let serverDefault = FrameRate(perSecond: 20, burst: 40)
}
