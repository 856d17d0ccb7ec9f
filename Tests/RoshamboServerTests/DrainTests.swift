import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboJournal
@testable import RoshamboServer

@Suite("Draining before a stop")
struct DrainTests {
  @Test("the drain as a value: announced once, over when no match runs or it stops waiting")
  func stateMachine() {
    var drain = DrainStateMachine()
    #expect(drain.secondsLeft(now: 0) == nil)
    #expect(drain.matchesChanged(running: false) == .nothing)
    #expect(drain.stopWaiting() == .nothing)
    #expect(!drain.isDraining)
    // 29.2 s left is said as 30: the player never gets less time than told.
    #expect(
      drain.drainRequested(endsAt: 30_000, now: 800, matchesRunning: true) == .announce(seconds: 30)
    )
    #expect(drain.isDraining)
    #expect(drain.secondsLeft(now: 10_000) == 20)
    #expect(drain.matchesChanged(running: true) == .nothing)
    #expect(drain.matchesChanged(running: false) == .finish)
    #expect(drain.state == .drained)
    #expect(drain.secondsLeft(now: 10_000) == 0)
    // Finished once: nothing after.
    #expect(drain.matchesChanged(running: false) == .nothing)
    #expect(drain.stopWaiting() == .nothing)
    #expect(drain.drainRequested(endsAt: 90_000, now: 0, matchesRunning: true) == .nothing)

    // Asked again while draining (a second signal): over now.
    var insisted = DrainStateMachine()
    #expect(
      insisted.drainRequested(endsAt: 5_000, now: 0, matchesRunning: true) == .announce(seconds: 5))
    #expect(insisted.drainRequested(endsAt: 5_000, now: 1_000, matchesRunning: true) == .finish)
    #expect(insisted.state == .drained)

    // Nothing under way, or no time given: told, and over at once.
    var idle = DrainStateMachine()
    #expect(
      idle.drainRequested(endsAt: 5_000, now: 0, matchesRunning: false)
        == .announceAndFinish(seconds: 0))
    var hurried = DrainStateMachine()
    #expect(
      hurried.drainRequested(endsAt: 0, now: 0, matchesRunning: true)
        == .announceAndFinish(seconds: 0))
  }

  /// Reads messages until an error arrives (states in between are skipped).
  func nextError(_ client: TestClient) async throws -> (error: ProtocolError, re: Int?) {
    while true {
      if case .error(let error, let re) = try await client.next() { return (error, re) }
    }
  }

  @Test(
    "drained mid-match: everyone is told, nothing new starts, the match ends and is recorded, then it stops",
    .timeLimit(.minutes(5)))
  func drainLetsTheMatchFinish() async throws {
    let data = temporaryDataDirectory()
    var configuration = testConfiguration(dataDirectory: data)
    configuration.operationsAddress = ("127.0.0.1", 0)
    configuration.roomSettings = RoomState.Settings(bestOf: 3)
    configuration.limits.maxConnectionsPerAddress = 100
    var logger = Logger(label: "test.drain")
    logger.logLevel = .warning
    let server = try await ServedServer.start(
      configuration, logger: logger, storage: JournalStorage.shippingHistory)
    defer { Task { try? await server.stop() } }
    let operations = try #require(server.operations?.port)
    let (alice, bob) = try await seatTwo(port: server.port)
    _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    let eve = try await TestClient.connect(port: server.port)
    try await eve.hello(name: "Eve", room: "den", role: .spectator)
    _ = try await eve.nextState()
    // Carol and Dave finished a match before the drain; they may not start another.
    let (carol, dave) = try await seatTwo(port: server.port, room: "old")
    for round in 1...2 { _ = try await playRound(carol, .paper, dave, .rock, round: round) }
    let fran = try await TestClient.connect(port: server.port)
    try await fran.hello(name: "Fran", room: "alone")
    _ = try await fran.nextState()
    // Connected before the drain, says hello during it.
    let late = try await TestClient.connect(port: server.port)

    // Ten minutes allowed: the drain must end because the match did, long before.
    let underWay = NIOLockedValueBox(-1)
    let drained = Task {
      try await server.drainAndStop(within: .seconds(600)) { running in
        underWay.withLockedValue { $0 = running }
      }
    }
    for client in [alice, bob, eve, fran, carol, dave] {
      let (notice, re) = try await nextError(client)
      #expect(notice.code == .closing && !notice.fatal && re == nil, "\(notice)")
      #expect((590...600).contains(notice.seconds ?? 0), "\(notice)")
    }
    // The drain tells the players before it tells this test how many matches run.
    try await FleetRoutingTests.eventually("the drain counts the matches under way") {
      underWay.withLockedValue { $0 } != -1
    }
    #expect(underWay.withLockedValue { $0 } == 1)
    let readiness = try await httpRequest(port: operations, path: "/readyz")
    #expect(readiness.status == 503 && readiness.body.contains("draining"), "\(readiness)")
    // No new connection is taken, and a new player is refused and closed.
    // (Asked of the server, not by connecting: another test's server may take the port
    // the moment it is free.)
    #expect(!server.isListening)
    let refusal = try await late.hello(name: "Gus", room: "new")
    guard case .error(let error, _) = refusal else {
      Issue.record("a new player was seated while draining: \(refusal)")
      return
    }
    #expect(error.code == .closing && error.fatal, "\(error)")
    await late.waitUntilClosed()
    // No rematch while den's match runs (which keeps the server up).
    carol.send(.rematch(id: 41))
    let (noRematch, re) = try await nextError(carol)
    #expect(noRematch.code == .closing && !noRematch.fatal && re == 41, "\(noRematch)")
    _ = try await playRound(alice, .paper, bob, .rock, round: 2)

    try await drained.value
    let recorded = try Journal(directory: data).recentMatches(limit: 5)
    #expect(recorded.map(\.room) == ["den", "old"])
    #expect(recorded.first?.players == ["Alice", "Bob"] && recorded.first?.winner == "Alice")
  }
}

@Suite("roshambo-server drains on SIGTERM and SIGINT", .serialized)
struct SignalDrainTests {
  func arguments(data: String) -> [String] {
    [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data, "--grace-seconds", "60",
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
    ]
  }

  /// Reads messages until an error arrives (states in between are skipped).
  func nextError(_ client: TestClient) async throws -> ProtocolError {
    while true {
      if case .error(let error, _) = try await client.next() { return error }
    }
  }

  @Test(
    "SIGTERM mid-match: players told; a match that ends in time is recorded, one that does not resumes after a restart",
    .timeLimit(.minutes(5)))
  func sigtermDrains() async throws {
    let data = temporaryDataDirectory()
    let first = try ServerProcess(arguments(data: data) + ["--drain-seconds", "5"])
    defer { kill(first.process.processIdentifier, SIGKILL) }
    let port = try await first.port
    let (alice, bob) = try await seatTwo(port: port, room: "den")
    let (carol, dave) = try await seatTwo(port: port, room: "far")
    _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    _ = try await playRound(carol, .paper, dave, .rock, round: 1)

    kill(first.process.processIdentifier, SIGTERM)
    _ = try await first.line(containing: "draining: 2 matches under way may finish within 5 s")
    for client in [alice, bob, carol, dave] {
      let notice = try await nextError(client)
      #expect(notice.code == .closing && !notice.fatal && notice.seconds == 5, "\(notice)")
    }
    // Den's match ends in time; far's players wait it out.
    _ = try await playRound(alice, .rock, bob, .scissors, round: 2)
    let (status, printed) = await first.finish()
    #expect(status == 0, "\(printed)")
    #expect(printed.contains("roshambo-server stopped"), "\(printed)")

    // Carol's match runs on: this server stops without waiting for it.
    let second = try ServerProcess(arguments(data: data) + ["--drain-seconds", "0"])
    defer { kill(second.process.processIdentifier, SIGKILL) }
    let again = try await TestClient.connect(port: try second.port)
    #expect(
      try await again.hello(name: "Carol", resume: carol.token)
        == ServerMessage.welcome(room: "far", seat: .one, token: carol.token).announcing(
          .serverDefault))
    let resumed = try await again.nextState().view
    #expect(resumed.phase == .choosing && resumed.round == 2, "\(resumed)")
    #expect(resumed.players.map(\.score) == [1, 0])
    second.process.terminate()
    await #expect(second.finish().0 == 0)
    let history = try ServerProcess(["history", "--data-dir", data])
    let (_, report) = await history.finish()
    #expect(report.contains("\"Alice\" 2–0 \"Bob\""), "\(report)")
    #expect(!report.contains("Carol"), "\(report)")
  }

  @Test(
    "a second signal stops a drain at once; SIGINT drains 5 s unless told otherwise",
    .timeLimit(.minutes(5)))
  func secondSignal() async throws {
    // An hour allowed: only the second signal can end this drain within the test's minute.
    let data = temporaryDataDirectory()
    let server = try ServerProcess(arguments(data: data) + ["--drain-seconds", "3600"])
    defer { kill(server.process.processIdentifier, SIGKILL) }
    let (alice, bob) = try await seatTwo(port: try server.port)
    kill(server.process.processIdentifier, SIGTERM)
    _ = try await server.line(containing: "within 3600 s")
    #expect(try await nextError(alice).seconds == 3600)
    kill(server.process.processIdentifier, SIGINT)
    let (status, printed) = await server.finish()
    #expect(status == 0, "\(printed)")
    _ = bob

    let interrupted = try ServerProcess(arguments(data: temporaryDataDirectory()))
    defer { kill(interrupted.process.processIdentifier, SIGKILL) }
    let (carol, _) = try await seatTwo(port: try interrupted.port)
    kill(interrupted.process.processIdentifier, SIGINT)
    _ = try await interrupted.line(containing: "draining: 1 match under way may finish within 5 s")
    #expect(try await nextError(carol).seconds == 5)
    kill(interrupted.process.processIdentifier, SIGINT)
    await #expect(interrupted.finish().0 == 0)
  }
}
