import Foundation
import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// The `roshambo-server` binary that `swift build` made.
func serverBinary() throws -> String {
  let path = repositoryRoot + "/.build/debug/roshambo-server"
  guard FileManager.default.isExecutableFile(atPath: path) else {
    throw TestClientError.unexpected("\(path) is missing: run `swift build` before `swift test`")
  }
  return path
}

/// A `roshambo-server` process, with what it printed.
final class ServerProcess: @unchecked Sendable {
  // `@unchecked Sendable`: `output` is only touched under `lock`.
  let process = Process()
  private let lock = NSLock()
  private var output = ""
  private let pipe = Pipe()

  /// `openFiles`: run it with this limit on open files (soft and hard, `ulimit -n`).
  init(
    _ arguments: [String], binary: String = "roshambo-server", openFiles: Int? = nil,
    environment: [String: String] = [:]
  ) throws {
    let path = try serverBinary().replacingOccurrences(
      of: "/roshambo-server", with: "/\(binary)")
    if let openFiles {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", path] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: path)
      process.arguments = arguments
    }
    process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
  }

  /// Reads output until a line contains `text`; returns that line. The reading blocks a
  /// thread of its own (see `blocking`).
  func line(containing text: String) async throws -> String {
    try await blocking { try self.readLine(containing: text) }
  }

  private func readLine(containing text: String) throws -> String {
    while true {
      let found = lock.withLock { output.split(separator: "\n").first { $0.contains(text) } }
      if let found { return String(found) }
      let data = pipe.fileHandleForReading.availableData
      if data.isEmpty { throw TestClientError.closed("server exited: \(printed)") }
      lock.withLock { output += String(decoding: data, as: UTF8.self) }
    }
  }

  var printed: String { lock.withLock { output } }

  /// Waits for the exit; returns the status and everything printed.
  func finish() async -> (Int32, String) {
    await blocking { self.finishNow() }
  }

  /// ``finish()`` on this thread, for a `defer` after a signal: the server ends at once.
  func finishNow() -> (Int32, String) {
    let rest = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    lock.withLock { output += String(decoding: rest, as: UTF8.self) }
    return (process.terminationStatus, printed)
  }

  var port: Int {
    get async throws {
      let line = try await line(containing: "listening on")
      let address = line.split(separator: " ").first { $0.contains(":") }!
      return Int(address.split(separator: ":").last!)!
    }
  }
}

/// Starts the `roshambo` binary that `swift build` made, standard input not a terminal,
/// standard output and error into the pipe returned.
func launchRoshambo(
  _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil
) throws -> (Process, Pipe) {
  let client = Process()
  client.executableURL = URL(
    fileURLWithPath: try serverBinary().replacingOccurrences(
      of: "/roshambo-server", with: "/roshambo"))
  client.arguments = arguments
  if let directory { client.currentDirectoryURL = URL(fileURLWithPath: directory) }
  if let environment { client.environment = environment }
  client.standardInput = FileHandle.nullDevice
  let pipe = Pipe()
  client.standardOutput = pipe
  client.standardError = pipe
  try client.run()
  return (client, pipe)
}

/// Starts `scripts/pybot.py` against the server on 127.0.0.1 `port` (trusting the test
/// CA) with `arguments` after the port; its output goes to the pipe returned.
func launchPyBot(port: Int, _ arguments: [String]) throws -> (Process, Pipe) {
  let python = Process()
  python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  python.arguments =
    [
      "python3", repositoryRoot + "/scripts/pybot.py", TestCertificates.files.caCertificate,
      "127.0.0.1", "\(port)",
    ] + arguments
  let output = Pipe()
  python.standardOutput = output
  python.standardError = output
  try python.run()
  return (python, output)
}

/// Waits for a launched process; returns its exit status and everything it printed.
func finishLaunched(_ started: (Process, Pipe)) async -> (Int32, String) {
  await awaitExit(started.0, started.1, seconds: 120)
}

@Suite("roshambo-server, the executable", .serialized)
struct ExecutableTests {
  func arguments(data: String) -> [String] {
    [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data,
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
    ]
  }

  @Test("killed hard mid-match and restarted: every room exactly as before, seats resumed")
  func crashAndRestart() async throws {
    let data = temporaryDataDirectory()
    let first = try ServerProcess(arguments(data: data) + ["--grace-seconds", "60"])
    let port = try await first.port
    let (alice, bob) = try await seatTwo(port: port)
    _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    bob.send(.choose(round: 2, weapon: .paper, id: nil))
    let beforeAlice = try await alice.state { $0.player(.two)?.chosen == true }
    let beforeBob = try await bob.state { $0.player(.two)?.weapon == .paper }
    let spare = try await TestClient.connect(port: port)
    try await spare.hello(name: "Carol", room: "other")
    _ = try await spare.nextState()
    let watcher = try await TestClient.connect(port: port)
    try await watcher.hello(name: "Eve", room: "den", role: .spectator)
    _ = try await alice.state { $0.spectators == 1 }

    kill(first.process.processIdentifier, SIGKILL)
    _ = await first.finish()

    let second = try ServerProcess(arguments(data: data) + ["--grace-seconds", "60"])
    let newPort = try await second.port
    let alice2 = try await TestClient.connect(port: newPort)
    #expect(
      try await alice2.hello(name: "Alice", resume: alice.token)
        == ServerMessage.welcome(room: "den", seat: .one, token: alice.token).announcing(
          .serverDefault))
    _ = try await alice2.nextState()
    // Connected only now: a connection that waits for hello is closed after 10 s, and
    // under ThreadSanitizer on 2 cores one that idled here through Alice's resume was.
    let bob2 = try await TestClient.connect(port: newPort)
    #expect(
      try await bob2.hello(name: "Bob", resume: bob.token)
        == ServerMessage.welcome(room: "den", seat: .two, token: bob.token).announcing(
          .serverDefault))
    let afterBob = try await bob2.state { $0.players.allSatisfy(\.connected) }
    let afterAlice = try await alice2.state { $0.players.allSatisfy(\.connected) }
    // Nobody watches after the restart: the spectator who was connected is not counted.
    #expect(afterAlice.spectators == 0)
    let watcher2 = try await TestClient.connect(port: newPort)
    try await watcher2.hello(name: "Eve", room: "den", role: .spectator)
    #expect(try await watcher2.nextState().view.spectators == 1)
    for (before, after) in [(beforeAlice, afterAlice), (beforeBob, afterBob)] {
      #expect(after.phase == before.phase)
      #expect(after.round == before.round)
      #expect(after.history == before.history)
      #expect(after.players.map(\.score) == before.players.map(\.score))
      #expect(after.players.map(\.chosen) == before.players.map(\.chosen))
      #expect(after.players.map(\.weapon) == before.players.map(\.weapon))
    }
    // The match goes on from where it was.
    alice2.send(.choose(round: 2, weapon: .scissors, id: nil))
    let resolved = try await alice2.state { $0.history.count == 2 }
    #expect(resolved.history[1].weapons == [.scissors, .paper])
    #expect(resolved.player(.one)?.score == 2)
    #expect(resolved.phase == .over)
    let carol = try await TestClient.connect(port: newPort)
    #expect(
      try await carol.hello(name: "Carol", resume: spare.token)
        == ServerMessage.welcome(room: "other", seat: .one, token: spare.token).announcing(
          .serverDefault))

    second.process.terminate()
    let (status, printed) = await second.finish()
    #expect(status == 0, "\(printed)")
    #expect(printed.contains("roshambo-server stopped"))
    // Finished matches are kept.
    let history = try ServerProcess(["history", "--data-dir", data])
    let (historyStatus, report) = await history.finish()
    #expect(historyStatus == 0)
    #expect(report.contains("\"Alice\" 2–0 \"Bob\"  winner: \"Alice\""))
    // Keyless players: the match counts in the standings but rates neither.
    #expect(report.contains("1. 1500?  \"Alice\"  1 won, 0 lost"), "\(report)")
  }

  @Test("two bots written in Python from the contract alone finish a match")
  func pythonBots() async throws {
    let server = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let port = try await server.port
    let bots = try (0..<2).map { _ in try launchPyBot(port: port, []) }
    for (bot, output) in bots {
      let text = await awaitExit(bot, output, seconds: 120).1
      #expect(bot.terminationStatus == 0, "\(text)")
      #expect(text.contains("winner: seat"), "\(text)")
      #expect(!text.contains("error:"), "\(text)")
    }
    server.process.terminate()
    await #expect(server.finish().0 == 0)
  }

  @Test("a Python script written from the document follows the lobby and sees a player waiting")
  func pythonWho() async throws {
    let server = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let port = try await server.port
    let alice = try await TestClient.connect(port: port)
    try await alice.hello(name: "Alice", room: "den")
    let (who, output) = try launchPyBot(port: port, ["--who"])
    let text = await awaitExit(who, output, seconds: 120).1
    #expect(who.terminationStatus == 0, "\(text)")
    #expect(text.contains("2 people, 1 rooms"), "\(text)")
    #expect(text.contains("  Alice waiting den"), "\(text)")
    #expect(text.contains("  pywho idle"), "\(text)")
    await alice.close()
    server.process.terminate()
    await #expect(server.finish().0 == 0)
  }

  @Test("a Python bot written from PROTOCOL.md alone takes a challenge from the lobby and plays it")
  func pythonAcceptsChallenge() async throws {
    let server = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let port = try await server.port
    let (python, pythonOutput) = try launchPyBot(port: port, ["--accept", "Monty"])
    let bot = try launchRoshambo([
      "bot", "--challenge", "Monty", "--name", "Swifty", "--host", "127.0.0.1", "--port",
      "\(port)", "--ca", TestCertificates.files.caCertificate, "--tls-seconds", "60",
    ])
    let (status, printed) = await finishLaunched(bot)
    let said = await awaitExit(python, pythonOutput, seconds: 120).1
    kill(server.process.processIdentifier, SIGKILL)
    #expect(status == 0, "\(printed)")
    #expect(printed.contains("challenged Monty: best of 3"))
    #expect(python.terminationStatus == 0, "\(said)")
    #expect(said.contains("accepting Swifty's challenge, best of 3"), "\(said)")
    #expect(said.contains("seated in duel-1"), "\(said)")
    #expect(said.contains("winner: seat"), "\(said)")
  }

  @Test(
    "a Python bot written from the document plays a fair room against roshambo bot; both verify every round"
  )
  func pythonFairBot() async throws {
    let server = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let port = try await server.port
    let (python, pythonOutput) = try launchPyBot(port: port, ["fairpy", "--fair"])
    let swift = Process()
    swift.executableURL = URL(
      fileURLWithPath: try serverBinary().replacingOccurrences(
        of: "/roshambo-server", with: "/roshambo"))
    swift.arguments = [
      "bot", "--host", "127.0.0.1", "--port", "\(port)", "--ca",
      TestCertificates.files.caCertificate, "--room", "fairpy", "--name", "swift", "--fair",
    ]
    let swiftOutput = Pipe()
    swift.standardOutput = swiftOutput
    swift.standardError = swiftOutput
    try swift.run()
    let fromPython = await awaitExit(python, pythonOutput, seconds: 120).1
    let fromSwift = await awaitExit(swift, swiftOutput, seconds: 120).1
    #expect(python.terminationStatus == 0, "\(fromPython)")
    #expect(swift.terminationStatus == 0, "\(fromSwift)")
    let pythonRounds = fromPython.split(separator: "\n").filter { $0.hasPrefix("round ") }
    let swiftRounds = fromSwift.split(separator: "\n").filter { $0.hasPrefix("round ") }
    #expect(
      !pythonRounds.isEmpty && pythonRounds.allSatisfy { $0.hasSuffix(": verified") },
      "\(fromPython)")
    #expect(
      !swiftRounds.isEmpty && swiftRounds.allSatisfy { $0.hasSuffix("✓ verified") }, "\(fromSwift)")
    #expect(pythonRounds.count == swiftRounds.count)
    server.process.interrupt()
    await #expect(server.finish().0 == 0)
  }

  /// The board stops before the hub, which went on handing it the lobby's views as people
  /// left: SwiftNIO printed "ERROR: Cannot schedule tasks on an EventLoop that has already
  /// shut down" on the host's terminal (in its strict mode, run here, a crash).
  @Test("stopped with people in the lobby and the board on, the server stops with no error")
  func stopWithBoard() async throws {
    let server = try ServerProcess(
      arguments(data: temporaryDataDirectory()) + ["--board", "0", "--board-host", "127.0.0.1"],
      environment: ["SWIFTNIO_STRICT": "1"])
    defer { server.process.terminate() }
    let port = try await server.port
    _ = try await server.line(containing: "the party's board on http://127.0.0.1:")
    let follower = try await lobbyFollower("Cid", port: port)
    while true { if case .lobby = try await follower.next() { break } }
    // A match played on while the server stops: the lobby changes with every round, and
    // the hub sends the board each change on its pace.
    let (alice, bob) = try await seatTwo(port: port)
    for round in 1...3 { _ = try await playRound(alice, .rock, bob, .rock, round: round) }
    let playing = Task {
      var round = 4
      while (try? await playRound(alice, .rock, bob, .rock, round: round)) != nil { round += 1 }
    }
    server.process.interrupt()
    let (status, printed) = await server.finish()
    playing.cancel()
    #expect(status == 0, "\(printed)")
    #expect(!printed.contains("Cannot schedule tasks"), "\(printed)")
    for client in [follower, alice, bob] { await client.close() }
  }

  @Test("with few open files allowed, the server says so and refuses the excess with server_full")
  func openFileLimit() async throws {
    let data = temporaryDataDirectory()
    let server = try ServerProcess(
      [
        "--host", "127.0.0.1", "--port", "0", "--data-dir", data, "--no-announce",
        "--max-connections", "1000", "--max-connections-per-address", "1000",
        "--cert", TestCertificates.files.serverCertificate,
        "--key", TestCertificates.files.serverKey,
      ], openFiles: 192)
    defer { server.process.terminate() }
    let port = try await server.port
    #expect(server.printed.contains("takes 64 connections, not --max-connections 1000"))
    var players: [TestClient] = []
    for index in 0..<64 {
      let player = try await TestClient.connect(port: port)
      try await player.hello(name: "P\(index)", room: "r\(index)")
      players.append(player)
    }
    let late = try await TestClient.connect(port: port)
    let (refused, _) = try await late.expectError(.serverFull)
    #expect(refused.fatal)
    for player in players { await player.close() }
  }

  @Test("the listening line and how players on other machines join")
  func startupOutput() async throws {
    let server = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let line = try await server.line(containing: "listening on")
    #expect(line.contains("roshambo-server listening on 127.0.0.1:"))
    _ = try await server.line(containing: "certificate SHA-256 fingerprint")
    server.process.interrupt()
    let (status, printed) = await server.finish()
    #expect(status == 0)
    #expect(printed.contains("--pin") || printed.contains("roshambo --host 127.0.0.1"))
  }

  @Test("a TLS failure is told with the advice only each program can give")
  func tlsAdvice() async throws {
    var flags = arguments(data: temporaryDataDirectory())
    flags[flags.count - 1] = "info"
    let server = try ServerProcess(flags)
    defer {
      server.process.interrupt()
      _ = server.finishNow()
    }
    let port = try await server.port
    // The operator's side (first: one line per address per 10 s): a client that offers
    // only TLS 1.2.
    let old = Process()
    old.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    old.arguments = ["s_client", "-tls1_2", "-connect", "127.0.0.1:\(port)"]
    old.standardInput = FileHandle.nullDevice
    old.standardOutput = FileHandle.nullDevice
    old.standardError = FileHandle.nullDevice
    try old.run()
    old.waitUntilExit()
    let logged = try await server.line(containing: "wrong protocol version")
    #expect(logged.contains("--allow-tls12"), "\(logged)")
    // The player's side: a pin that is not the server's.
    let client = Process()
    client.executableURL = URL(
      fileURLWithPath: try serverBinary().replacingOccurrences(
        of: "/roshambo-server", with: "/roshambo"))
    client.arguments = [
      "bot", "--host", "127.0.0.1", "--port", String(port), "--pin",
      String(repeating: "AB:", count: 31) + "AB",
    ]
    let pipe = Pipe()
    client.standardOutput = pipe
    client.standardError = pipe
    try client.run()
    let said = await awaitExit(client, pipe, seconds: 120).1
    #expect(client.terminationStatus == 69, "\(said)")
    #expect(said.contains("pin mismatch") && said.contains("with --pin"), "\(said)")
  }

  /// Runs `roshambo` with `arguments` in an empty directory (no certs/ca.pem to fall back
  /// on), HOME set to `home` and standard input not a terminal.
  func client(_ arguments: [String], home: String) throws -> (Process, Pipe) {
    try launchRoshambo(
      arguments, directory: home, environment: ["HOME": home, "PATH": "/usr/bin:/bin"])
  }

  @Test("trust on first use: asked for, remembered, and a changed certificate refused loudly")
  func trustOnFirstUse() async throws {
    let home = NSTemporaryDirectory() + "roshambo-tofu-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    let known = home + "/.config/roshambo/known_servers"
    let first = try ServerProcess(arguments(data: temporaryDataDirectory()))
    let port = try await first.port
    let code = try await #require(
      try first.line(containing: "identity code:").split(separator: " ").dropFirst(2).first)
    let bot = ["bot", "--host", "127.0.0.1", "--port", String(port), "--room", "tofu"]

    // Not a terminal and no --accept-new: refused, with the code to compare.
    let (refused, said) = await finishLaunched(try client(bot, home: home))
    #expect(refused == 77, "\(said)")
    #expect(said.contains("new to this machine") && said.contains(String(code)), "\(said)")
    #expect(said.contains("--accept-new"), "\(said)")
    #expect(!FileManager.default.fileExists(atPath: known))

    // --accept-new: both bots play, and the server is remembered once.
    let pair = try ["a", "b"].map { try client(bot + ["--accept-new", "--name", $0], home: home) }
    for started in pair {
      let (status, text) = await finishLaunched(started)
      #expect(status == 0, "\(text)")
      #expect(text.contains("1 match: "), "\(text)")
    }
    let lines = try String(contentsOfFile: known, encoding: .utf8).split(separator: "\n")
      .filter { !$0.hasPrefix("#") }
    let fingerprint = try await first.line(containing: "fingerprint:")
    #expect(lines == ["127.0.0.1 \(port) \(fingerprint.split(separator: " ").last!)"])

    // Remembered: no question, no --accept-new needed.
    let again = try ["c", "d"].map { try client(bot + ["--name", $0], home: home) }
    for started in again {
      let (status, text) = await finishLaunched(started)
      #expect(status == 0, "\(text)")
      #expect(!text.contains("trusting"), "\(text)")
    }
    first.process.interrupt()
    _ = await first.finish()

    // Another certificate at the same address: refused, naming both codes and the line.
    let other = try DevelopmentCertificates.create(
      in: NSTemporaryDirectory() + "roshambo-tofu-other-\(UUID().uuidString)",
      hosts: ["127.0.0.1"])
    let second = try ServerProcess([
      "--host", "127.0.0.1", "--port", String(port), "--data-dir", temporaryDataDirectory(),
      "--cert", other.serverCertificate, "--key", other.serverKey, "--no-announce",
    ])
    defer {
      second.process.interrupt()
      _ = second.finishNow()
    }
    let newCode = try await #require(
      try second.line(containing: "identity code:").split(separator: " ").dropFirst(2).first)
    let (changed, warning) = await finishLaunched(try client(bot + ["--accept-new"], home: home))
    #expect(changed == 77, "\(warning)")
    #expect(warning.contains("HAS CHANGED"), "\(warning)")
    #expect(warning.contains("was \(code) and is now \(newCode)"), "\(warning)")
    #expect(warning.contains("remove line 2 of \(known)"), "\(warning)")
  }

  @Test("--accept-new without --host is refused before looking: it would trust whoever answers")
  func acceptNewNeedsHost() async throws {
    let home = NSTemporaryDirectory() + "roshambo-accept-new-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    for command in [
      ["bot", "--accept-new"], ["play", "--name", "Ann", "--accept-new"], ["who", "--accept-new"],
    ] {
      let (status, said) = await finishLaunched(try client(command, home: home))
      #expect(status == 64, "\(command): \(said)")
      #expect(said.contains("--accept-new needs --host"), "\(command): \(said)")
      #expect(said.contains("identity code"), "\(command): \(said)")
      #expect(!said.contains("local network within"), "it looked for servers: \(said)")
    }
    #expect(!FileManager.default.fileExists(atPath: home + "/.config/roshambo/known_servers"))
  }

  @Test("--version names the release, the protocol and the commit it was built from")
  func version() async throws {
    /// Whether `git` with `arguments` in this repository succeeds.
    func git(_ arguments: [String]) throws -> Bool {
      let git = Process()
      git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      git.arguments = ["git", "-C", repositoryRoot] + arguments
      git.standardOutput = FileHandle.nullDevice
      git.standardError = FileHandle.nullDevice
      try git.run()
      git.waitUntilExit()
      return git.terminationStatus == 0
    }
    for binary in ["roshambo-server", "roshambo"] {
      let server = try ServerProcess(["--version"], binary: binary)
      let (status, printed) = await server.finish()
      #expect(status == 0)
      #expect(
        printed.hasPrefix("\(RoshamboVersion.number) (protocol \(WireProtocol.version), commit "))
      let commit = String(printed.split(separator: " ").last!.dropLast(2).split(separator: "-")[0])
      // A commit of this repository's history, HEAD or before it (the binary may have been
      // built before the latest commit).
      #expect(commit.count == 12, "\(printed)")
      #expect(try git(["merge-base", "--is-ancestor", commit, "HEAD"]), "\(printed)")
    }
  }

  @Test(
    "bad flags and unreadable files give one clear line and exit 64 or 66",
    arguments: [
      (["--best-of", "4"], Int32(64), "--best-of must be an odd number"),
      (["--ruleset", "chess"], 64, "'chess' is invalid for '--ruleset <ruleset>'"),
      (["--log-level", "loud"], 64, "'loud' is invalid for '--log-level <log-level>'"),
      (["--port", "70000"], 64, "--port must be 0 to 65535"),
      (["--threads", "0"], 64, "--threads must be from 1 to 256, not 0"),
      (
        ["--tournament-entries-per-address", "65"], 64,
        "--tournament-entries-per-address must be from 0 (any) to 64"
      ),
      (["--bogus"], 64, "Unknown option '--bogus'"),
      (
        ["--cert", "/nonexistent/server.pem", "--key", "/nonexistent/key.pem"], 66,
        "cannot read /nonexistent/server.pem"
      ),
    ])
  func badInput(extra: [String], status: Int32, message: String) async throws {
    let server = try ServerProcess(["--port", "0", "--data-dir", temporaryDataDirectory()] + extra)
    let (code, printed) = await server.finish()
    #expect(code == status, "\(printed)")
    #expect(printed.contains(message), "\(printed)")
  }
}
