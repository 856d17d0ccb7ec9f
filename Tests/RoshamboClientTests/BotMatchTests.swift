import Foundation
import Logging
import NIOCore
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import RoshamboJournal
import RoshamboLoad
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Testing

enum ClientTestCertificates {
  static let files: DevelopmentCertificates.Files = {
    // The programs the tests start keep their player identity and known servers here,
    // not in the home directory of whoever runs the tests.
    setenv(
      "XDG_CONFIG_HOME", NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/config", 1)
    return try! DevelopmentCertificates.create(
      in: NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/certs", hosts: ["127.0.0.1"])
  }()

  /// A client's TLS trusting the tests' CA, with 60 s for the handshake: a loaded test run
  /// may take seconds (the limit has tests of its own).
  static func clientTLS() throws -> TLSContext {
    var configuration = TLSConfiguration.client(trust: .caFile(files.caCertificate))
    configuration.handshakeTimeoutSeconds = 60
    return try TLSContext(configuration)
  }
}

/// Runs `body` with an in-process server on 127.0.0.1 and a free port (or `port`), quiet
/// in the logs, and stops it afterwards even when `body` throws (stopping it inside `body`
/// is part of some tests; a second stop does nothing).
func withTestServer<T>(
  port: Int = 0, dataDirectory: String? = nil, isolation: isolated (any Actor)? = #isolation,
  configure: @Sendable (inout ServerConfiguration) -> Void = { _ in },
  _ body: (ServedServer) async throws -> T
) async throws -> T {
  let server = try await startTestServer(
    port: port, dataDirectory: dataDirectory, configure: configure)
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

/// An in-process server on 127.0.0.1 and a free port (or `port`), quiet in the logs,
/// its configuration changed by `configure` last.
private func startTestServer(
  port: Int = 0, dataDirectory: String? = nil,
  configure: (inout ServerConfiguration) -> Void = { _ in }
) async throws -> ServedServer {
  var configuration = ServerConfiguration(
    certificateChainFile: ClientTestCertificates.files.serverCertificate,
    privateKeyFile: ClientTestCertificates.files.serverKey, dataDirectory: dataDirectory)
  configuration.host = "127.0.0.1"
  configuration.port = port
  // A loaded test run may take seconds to shake hands and say hello; the deadlines have
  // tests of their own.
  configuration.limits.helloTimeoutSeconds = 60
  configuration.limits.handshakeTimeoutSeconds = 60
  configure(&configuration)
  var logger = Logger(label: "test")
  logger.logLevel = .critical
  // A port asked for again (a restart) may have been taken meanwhile as the local port of
  // one of the other tests' connections: wait until it is free, as a person restarting
  // would try again.
  var attempts = 0
  while true {
    do {
      let server = try await GameServer.bind(
        configuration, logger: logger, storage: JournalStorage())
      return ServedServer(server, logger: logger)
    } catch let error as IOError where error.errnoCode == EADDRINUSE && port != 0 && attempts < 300
    {
      attempts += 1
      try await Task.sleep(for: .milliseconds(100))
    }
  }
}

/// A server run in its service group on a task of the test's, stopped through the group.
///
/// Invariant: once ``stop()`` returns, the group has stopped every part (a second call
/// returns at once).
@dynamicMemberLookup
final class ServedServer: Sendable {
  private let server: GameServer
  private let group: ServiceGroup
  private let running: Task<Void, any Error>

  init(_ server: GameServer, logger: Logger) {
    self.server = server
    let group = server.serviceGroup(logger: logger)
    self.group = group
    running = Task { try await group.run() }
  }

  subscript<T>(dynamicMember path: KeyPath<GameServer, T>) -> T { server[keyPath: path] }

  func lobby() async throws -> LobbyState { try await server.lobby() }

  /// Stops it through the group's graceful shutdown and waits until it has stopped.
  func stop() async throws {
    await group.triggerGracefulShutdown()
    try await running.value
  }
}

let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

@Suite("Bots against a real server", .serialized)
struct BotMatchTests {
  @Test("two bots in one process finish their matches through real TLS")
  @MainActor
  func inProcess() async throws {
    try await withTestServer { server in
      let tls = try ClientTestCertificates.clientTLS()
      var bots: [Bot] = []
      var runs: [Task<Void, Never>] = []
      for strategy in [BotStrategy.frequency, .markov] {
        let connection = try await ServerConnection.connect(
          host: "127.0.0.1", port: server.port, tls: tls)
        let session = ClientSession(connection: connection)
        let bot = Bot(session: session, strategy: strategy, matches: 3) { _ in }
        bot.start()
        session.join(name: strategy.rawValue, room: "arena")
        bots.append(bot)
        runs.append(Task { @MainActor in _ = await session.run() })
      }
      for run in runs { await run.value }
      #expect(bots.map(\.tally.matches) == [3, 3])
      #expect(bots[0].tally.matchesWon == bots[1].tally.matchesLost)
      #expect(bots[0].tally.roundsWon == bots[1].tally.roundsLost)
    }
  }

  @Test("roshambo-server and two roshambo bot processes finish a match")
  func executables() async throws {
    let bin = repositoryRoot + "/.build/debug/"
    let directory =
      NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/exe-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: bin + "roshambo-server")
    server.arguments = [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", "data", "--log-level", "error",
      "--no-announce",
    ]
    server.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe()
    server.standardOutput = out
    try server.run()
    var printed = ""
    while !printed.contains("listening on") {
      let data = out.fileHandleForReading.availableData
      if data.isEmpty { throw CocoaError(.fileReadUnknown) }
      printed += String(decoding: data, as: UTF8.self)
    }
    let port = printed.split(separator: "\n").first { $0.contains("listening on") }!
      .split(separator: " ").first { $0.contains(":") }!.split(separator: ":").last!
    let bots = try ["random", "cycle"].map { strategy in
      let bot = Process()
      bot.executableURL = URL(fileURLWithPath: bin + "roshambo")
      bot.arguments = [
        "bot", "--host", "127.0.0.1", "--port", String(port), "--strategy", strategy, "--room",
        "duel", "--name", strategy,
      ]
      bot.currentDirectoryURL = URL(fileURLWithPath: directory)  // trusts certs/ca.pem there
      let pipe = Pipe()
      bot.standardOutput = pipe
      bot.standardError = pipe
      try bot.run()
      return (bot, pipe)
    }
    for (bot, pipe) in bots {
      let text = await awaitExit(bot, pipe, seconds: 120).1
      #expect(bot.terminationStatus == 0, "\(text)")
      #expect(text.contains("round 1: "))
      #expect(text.contains("1 match: "))
    }
    server.terminate()
    server.waitUntilExit()
    #expect(server.terminationStatus == 0)
  }
}

@Suite("Reconnecting", .serialized)
struct ReconnectTests {
  @Test("a dropped connection shows reconnecting, then resumes the seat with its token")
  @MainActor
  func resumesAfterServerRestart() async throws {
    let data =
      NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/data-\(UUID().uuidString)"
    try await withTestServer(dataDirectory: data) { first in
      let port = first.port
      let tls = try ClientTestCertificates.clientTLS()
      let connection = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
      let session = ClientSession(
        connection: connection,
        reconnect: { try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls) },
        policy: ReconnectPolicy(firstWaitMillis: 50, longestWaitMillis: 50, patienceMillis: 30_000))
      var connections: [ClientContext.Connection] = []
      let seated = AsyncStream.makeStream(of: Int.self)
      let watching = session.store.subscribe(select: \.context.connection) {
        connections.append($0)
        // Wakes the wait below on every change of the link, not only on a new state.
        seated.continuation.yield(-1)
      }
      let seats = session.store.subscribe(select: \.seq) { seated.continuation.yield($0) }
      session.join(name: "Alice", room: "den")
      let run = Task { @MainActor in await session.run() }
      // A session that ends (gave up) ends the wait below too, which then fails.
      let ended = Task { @MainActor in
        _ = await run.value
        seated.continuation.finish()
      }
      for await seq in seated.stream where seq >= 1 { break }
      let token = try #require(session.store.state.token)

      try await first.stop()
      try await withTestServer(port: port, dataDirectory: data) { _ in
        var iterator = seated.stream.makeAsyncIterator()
        // Until the drop was seen (the old server's close may still be on its way) and
        // the seat is back.
        while !connections.contains(.reconnecting(attempt: 1))
          || session.store.state.context.connection != .connected
          || session.store.state.view?.players.first?.connected != true
        {
          guard await iterator.next() != nil else { break }
        }
        #expect(connections.contains(.reconnecting(attempt: 1)))
        #expect(session.store.state.token == token)
        #expect(session.store.state.seat == .one)
        #expect(session.store.state.props.connection == nil)
        session.store.dispatch(.quit)
        _ = await run.value
      }
      _ = (watching, seats, ended)
    }
  }

  @Test("when the server does not come back, it gives up with a clear line")
  @MainActor
  func givesUp() async throws {
    try await withTestServer { server in
      let port = server.port
      let tls = try ClientTestCertificates.clientTLS()
      let connection = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
      let session = ClientSession(
        connection: connection,
        reconnect: { try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls) },
        policy: ReconnectPolicy(firstWaitMillis: 10, longestWaitMillis: 10, patienceMillis: 1_000))
      let seated = AsyncStream.makeStream(of: Int.self)
      let seats = session.store.subscribe(select: \.seq) { seated.continuation.yield($0) }
      session.join(name: "Alice", room: "den")
      let run = Task { @MainActor in await session.run() }
      for await seq in seated.stream where seq >= 1 { break }
      try await server.stop()
      let (error, fatal) = await run.value
      #expect(fatal == nil)
      // The seconds it tried: the patience, or more when the machine was too busy to give
      // up on time.
      let said = try #require(session.store.state.props.connection)
      let tried = said.firstMatch(
        of: /^gave up reconnecting after (\d+) s; check that the server is running$/)
      #expect((Int(tried?.output.1 ?? "") ?? 0) >= 1, "\(said)")
      #expect("\(error!)".contains(said.prefix { $0 != ";" }))
      _ = seats
    }
  }
}

@Suite("Load generator")
struct LoadGeneratorTests {
  @Test("bot pairs seat themselves, play under the rate limit, and report picks without errors")
  func loads() async throws {
    let tls = try ClientTestCertificates.clientTLS()
    let report = try await withTestServer { server in
      try await LoadGenerator.run(
        host: "127.0.0.1", port: server.port, tls: tls, rooms: 5, seconds: 1, paceMillis: 60)
    }
    #expect(report.connections == 10)
    #expect(report.picks > 10)
    #expect(report.errors.isEmpty, "\(report.errors)")
    #expect(report.percentile(0.5) <= report.percentile(0.99))
  }

  @Test("a server that cannot be reached fails the run in its seating stage, saying how far")
  func failsWhileSeating() async throws {
    let tls = try ClientTestCertificates.clientTLS()
    // A bound port nobody listens on: every connection is refused.
    let nobody = try #require(LoopbackSocket.bound(listening: false))
    defer { close(nobody.descriptor) }
    do {
      let report = try await LoadGenerator.run(
        host: "127.0.0.1", port: nobody.port, tls: tls, rooms: 2, seconds: 1, paceMillis: 60)
      Issue.record("a run against nobody reported \(report.connections) connections")
    } catch let failure as LoadFailure {
      #expect(failure.stage == "seating")
      #expect(failure.seated == 0)
      #expect(failure.wanted == 4)
      #expect("\(failure)".hasPrefix("the load run stopped while seating, with 0 of 4"))
    }
  }
}
