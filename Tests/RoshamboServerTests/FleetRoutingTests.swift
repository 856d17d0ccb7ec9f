import Foundation
import RoshamboClient
import RoshamboHistory
import RoshamboJournal
import RoshamboTLS
import Testing

@testable import RoshamboServer

/// Players routed through Agones' allocator: two game servers under Agones (each with
/// its SDK stand-in), the allocator stand-in over mutual TLS, and `roshambo bot`
/// processes asking it with `--allocator`.
@Suite("A fleet: players routed by the allocator", .serialized)
struct FleetRoutingTests {
  /// Two servers, both already allocated (so that only the List or the Counter can send
  /// two players to the same one: the allocator otherwise takes them in turn).
  final class Fleet: Sendable {
    let sdks: [AgonesSDKStandIn]
    let servers: [ServedServer]
    let allocator: AgonesAllocatorStandIn
    let client: (certificate: String, key: String)

    init() async throws {
      sdks = try ["roshambo-a", "roshambo-b"].map { try AgonesSDKStandIn(name: $0) }
      var servers: [ServedServer] = []
      for sdk in sdks {
        var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
        configuration.agonesPort = sdk.port
        servers.append(
          try await ServedServer.start(
            configuration, logger: .init(label: "test"), storage: JournalStorage.shippingHistory))
      }
      self.servers = servers
      for sdk in sdks {
        try await eventually("\(sdk.record.name) Ready") { sdk.record.state == "Ready" }
        sdk.change { $0.state = "Allocated" }
      }
      let files = TestCertificates.files
      allocator = try AgonesAllocatorStandIn(
        members: zip(sdks, servers).map { .init(sdk: $0, port: $1.port) },
        certificate: files.serverCertificate, key: files.serverKey, clientCA: files.caCertificate)
      client = try DevelopmentCertificates.issueClientCertificate(name: "player", files: files)
    }

    func stop() async {
      for server in servers { try? await server.stop() }
      allocator.close()
      for sdk in sdks { sdk.close() }
    }

    /// `roshambo` with the allocator's options and the test CA for the game servers.
    func roshambo(_ arguments: [String], certificate: Bool = true) throws -> ServerProcess {
      let files = TestCertificates.files
      var fleet = [
        "--allocator", "https://127.0.0.1:\(allocator.port)", "--allocator-ca", files.caCertificate,
        "--ca", files.caCertificate,
      ]
      if certificate {
        fleet += ["--allocator-cert", client.certificate, "--allocator-key", client.key]
      }
      return try ServerProcess(
        [arguments[0]] + fleet + arguments.dropFirst(), binary: "roshambo")
    }
  }

  static func eventually(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<150 {
      if condition() { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("never: \(what)")
  }

  /// Runs two bots with `arguments` at once; their exit statuses and output.
  func twoBots(_ fleet: Fleet, _ arguments: [String]) async throws -> [(Int32, String)] {
    // Paper against a cycle of rock, paper, scissors: a match of four rounds, never a
    // run of draws.
    let bots = try [("Ann", "paper"), ("Bob", "cycle")].map { name, strategy in
      try fleet.roshambo(["bot", "--name", name, "--strategy", strategy] + arguments)
    }
    // Bots sent to different servers would each wait for an opponent for ever: after
    // 30 s they are stopped, and the test fails on their status.
    let watchdog = Task {
      try await Task.sleep(for: .seconds(30))
      for bot in bots where bot.process.isRunning { bot.process.terminate() }
    }
    defer { watchdog.cancel() }
    return await withTaskGroup(of: (Int, (Int32, String)).self) { group in
      for (index, bot) in bots.enumerated() {
        // Waiting for a process blocks a thread: not one of the few the tasks share.
        group.addTask {
          await withCheckedContinuation { done in
            Thread.detachNewThread { done.resume(returning: (index, bot.finishNow())) }
          }
        }
      }
      var results = [(Int32, String)](repeating: (0, ""), count: bots.count)
      for await (index, result) in group { results[index] = result }
      return results
    }
  }

  /// Runs two bots with `arguments`; checks that both finished their match and that the
  /// allocator chose one server for both, and returns its name.
  func twoBotsPlayOnOneServer(_ fleet: Fleet, _ arguments: [String]) async throws -> String? {
    let results = try await twoBots(fleet, arguments)
    for (status, output) in results {
      #expect(status == 0, "\(output)")
      #expect(output.contains("1 match: "), "\(output)")
    }
    let chosen = results.map { result in
      ["roshambo-a", "roshambo-b"].first { result.1.contains("chose the server \($0) at") }
    }
    #expect(chosen[0] != nil && chosen[0] == chosen[1], "\(results.map(\.1))")
    return chosen[0]
  }

  @Test(
    "two bots asking for the same named room reach the same server and play there",
    .timeLimit(.minutes(5)))
  func namedRoom() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    let chosen = try await twoBotsPlayOnOneServer(fleet, ["--room", "final"])
    // The allocator added the room to that server's List, and only there.
    let holding = fleet.sdks.filter { $0.record.lists["rooms"]!.values.contains("final") }
    #expect(holding.map(\.record.name) == [chosen].compactMap { $0 })
    // The second request was routed by the List: the first selector asks for the room.
    let second = try #require(fleet.allocator.requests.last)
    #expect(second.contains(#""containsValue":"final""#))
  }

  @Test(
    "two quick-match bots reach the same server through its waiting Counter",
    .timeLimit(.minutes(5)))
  func quickMatch() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    _ = try await twoBotsPlayOnOneServer(fleet, [])
  }

  @Test(
    "the server lists its named rooms and counts its players and rooms, and watches its GameServer",
    .timeLimit(.minutes(5)))
  func roomsList() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    let sdk = fleet.sdks[0]
    let (alice, bob) = try await seatTwo(port: fleet.servers[0].port, room: "den")
    try await Self.eventually("den in the List and two players counted") {
      sdk.record.lists["rooms"]!.values == ["den"] && sdk.record.counters["players"]!.count == 2
        && sdk.record.counters["rooms"]!.count == 1
    }
    #expect(
      sdk.calls.contains {
        $0.line == "POST /v1beta1/lists/rooms:addValue" && $0.body == #"{"value":"den"}"#
      })
    #expect(sdk.calls.contains { $0.line == "GET /watch/gameserver" })
    // A spectator asking the allocator for "den" is sent to the server that listed it
    // (watching asks only for a server holding the room), and sees the room.
    let spectator = try fleet.roshambo(["watch", "--room", "den"])
    defer { kill(spectator.process.processIdentifier, SIGKILL) }
    await #expect(try spectator.line(containing: "chose the server").contains("roshambo-a"))
    _ = try await spectator.line(containing: "Both players are choosing")
    // A name the List holds already, unknown to the game: the SDK server refuses the
    // add ("already exists"), which counts as done, so it is not tried again.
    let other = fleet.sdks[1]
    other.change {
      $0.lists["rooms"] = (["den"], 1_000)
      $0.listsHiddenFromWatch = true
    }
    let (carol, dave) = try await seatTwo(port: fleet.servers[1].port, room: "den")
    let adds = { other.calls.filter { $0.line == "POST /v1beta1/lists/rooms:addValue" }.count }
    try await Self.eventually("the add refused") { adds() == 1 }
    let health = other.calls.filter { $0.line == "POST /health" }.count
    try await Self.eventually("two more rounds of health") {
      other.calls.filter { $0.line == "POST /health" }.count >= health + 2
    }
    #expect(adds() == 1)
    #expect(other.record.lists["rooms"]!.values == ["den"])
    _ = (carol, dave)
    _ = (alice, bob)
  }

  @Test(
    "watching a room no server holds says so and exits 1; no client certificate: refused, 69",
    .timeLimit(.minutes(5)))
  func refusals() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    let (status, output) = try await fleet.roshambo(["watch", "--room", "nowhere"]).finish()
    #expect(status == 1, "\(output)")
    #expect(
      output.contains(#"no server in the fleet "roshambo" holds the room "nowhere""#), "\(output)")
    let (refused, said) = try await fleet.roshambo(["bot", "--room", "final"], certificate: false)
      .finish()
    #expect(refused == 69, "\(said)")
    #expect(
      said.contains("cannot reach the allocator at 127.0.0.1:\(fleet.allocator.port)"), "\(said)")
    #expect(fleet.allocator.requests.count == 1)
  }

  @Test(
    "Agones setting the GameServer to Shutdown asks the server to drain, once",
    .timeLimit(.minutes(5)))
  func shutdownFromAgones() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    var requests = fleet.servers[0].shutdownRequests.makeAsyncIterator()
    // Other changes (an allocation) ask nothing: only the first Shutdown is an element.
    fleet.sdks[0].change { $0.counters["waiting"] = (1, 1_000) }
    fleet.sdks[0].change { $0.state = "Shutdown" }
    fleet.sdks[0].change { $0.lists["rooms"] = (["x"], 1_000) }
    #expect(await requests.next() != nil)
    try await fleet.servers[0].drainAndStop(within: .zero)
    // Stopped: the stream ends without a second element.
    #expect(await requests.next() == nil)
    #expect(fleet.sdks[0].calls.last?.line == "POST /shutdown")
  }

  @Test(
    "an allocator that never answers, or answers with a megabyte, is given up on, saying so",
    .timeLimit(.minutes(5)))
  func faultyAllocator() async throws {
    let fleet = try await Fleet()
    defer { Task { await fleet.stop() } }
    let files = TestCertificates.files
    let tls = try TLSContext(
      .client(
        trust: .caFile(files.caCertificate), certificateChainFile: fleet.client.certificate,
        privateKeyFile: fleet.client.key))
    func ask() async -> AllocatorFailure? {
      do {
        _ = try await AllocatorClient.allocate(
          FleetAllocation(purpose: .quickMatch), host: "127.0.0.1", port: fleet.allocator.port,
          tls: tls, timeLimit: .seconds(1))
        return nil
      } catch {
        return error
      }
    }
    fleet.allocator.misbehaviour.withLockedValue { $0 = .silent }
    let silent = await ask()
    #expect(silent?.kind == .unreachable)
    #expect(silent?.message == "the allocator did not answer within 1 s")
    fleet.allocator.misbehaviour.withLockedValue { $0 = .huge(1 << 20) }
    let huge = await ask()
    #expect(huge?.kind == .badAnswer)
    #expect(huge?.message == "the allocator's answer is longer than 64 KiB")
    // Behaving again, it is asked as before: nothing was left half-done.
    fleet.allocator.misbehaviour.withLockedValue { $0 = nil }
    #expect(await ask() == nil)
  }

  @Test("under Agones the server does not announce itself on the local network")
  func noAnnouncing() async throws {
    var printed: [String] = []
    for environment in [[:], ["AGONES_SDK_HTTP_PORT": "1"]] {
      let server = try ServerProcess(
        [
          "--port", "0", "--data-dir", temporaryDataDirectory(),
          "--cert", TestCertificates.files.serverCertificate,
          "--key", TestCertificates.files.serverKey,
        ], environment: environment)
      defer { kill(server.process.processIdentifier, SIGKILL) }
      // How players join comes after the announcing line, when there is one.
      _ = try await server.line(containing: "roshambo --host")
      printed.append(server.printed)
    }
    // Without Agones it announces (which shows the check can fail), with it, not.
    #expect(printed[0].contains("announcing"), "\(printed[0])")
    #expect(!printed[1].contains("announcing"), "\(printed[1])")
  }

  @Test("--allocator that is not https://, or without its CA, is refused before anything is sent")
  func badOptions() async throws {
    for (arguments, said) in [
      (
        ["--allocator", "http://127.0.0.1:1", "--allocator-ca", "ca.pem"],
        "is not an https://HOST[:PORT] address"
      ),
      (["--allocator", "https://127.0.0.1:1"], "--allocator needs --allocator-ca"),
      (
        ["--allocator", "https://h", "--allocator-ca", "ca.pem", "--accept-new"],
        "--allocator needs --ca"
      ),
      (["--allocator-ca", "ca.pem"], "--allocator-ca needs --allocator"),
      (
        ["--allocator", "https://h", "--allocator-ca", "ca.pem", "--host", "127.0.0.1"],
        "give it or --host, not both"
      ),
      (
        ["--allocator", "https://h", "--allocator-ca", "ca.pem", "--lobby"],
        "--lobby needs one server"
      ),
    ] {
      let (status, output) = try await ServerProcess(["bot"] + arguments, binary: "roshambo")
        .finish()
      #expect(status == 64, "\(arguments): \(output)")
      #expect(output.contains(said), "\(arguments): \(output)")
    }
  }
}
