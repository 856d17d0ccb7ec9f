import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboProtocol
import RoshamboTLS
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `roshambo play --vs-bot`: the real program, its server the server's core run inside
/// it, keeping nothing; no `roshambo-server` is needed anywhere.
@Suite("Playing a bot on this machine", .serialized)
struct VersusBotTests {
  /// A directory of its own for each run (the development certificates are made there).
  func workingDirectory() throws -> String {
    let directory = NSTemporaryDirectory() + "roshambo-vs-bot-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  /// Starts `roshambo play --vs-bot` with `executable` in `directory`; its output goes to
  /// the pipe returned.
  func start(_ executable: String, in directory: String, path: String? = nil) throws -> (
    Process, Pipe
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["play", "--vs-bot", "--name", "Tester"]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    if let path { process.environment = ["PATH": path] }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return (process, pipe)
  }

  /// Reads `pipe` until `text` shows (or 10 s pass).
  func read(_ pipe: Pipe, until text: String) async throws -> String {
    try await blocking { try Self.readNow(pipe, until: text) }
  }

  static func readNow(_ pipe: Pipe, until text: String) throws -> String {
    var seen = ""
    let deadline = Date().addingTimeInterval(10)
    let handle = pipe.fileHandleForReading
    var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
    while !seen.contains(text) {
      guard Date() < deadline else {
        throw TimedOut(description: "waited 10 s for \"\(text)\"; saw: \(seen.suffix(400))")
      }
      guard poll(&poller, 1, 100) > 0 else { continue }
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      seen += String(decoding: chunk, as: UTF8.self)
    }
    return seen
  }

  /// The child processes of `pid` (started by any of its threads), from /proc.
  func children(of pid: Int32) -> [Int32] {
    let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    return threads.flatMap { thread in
      let text =
        (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/children", encoding: .utf8)) ?? ""
      return text.split(separator: " ").compactMap { Int32($0) }
    }
  }

  @Test(
    "roshambo alone, with no roshambo-server beside it or on PATH, plays the bot and keeps nothing",
    arguments: [SIGTERM, SIGKILL])
  func playsWithNoServerProgram(signal: Int32) async throws {
    let directory = try workingDirectory()
    let alone = directory + "/roshambo"
    // Copied by cp, not by this process: a file this process had open for writing could
    // be inherited by a child another test forks meanwhile, and exec would then fail
    // with "Text file busy".
    let copy = Process()
    copy.executableURL = URL(fileURLWithPath: "/bin/cp")
    copy.arguments = [repositoryRoot + "/.build/debug/roshambo", alone]
    try copy.run()
    copy.waitUntilExit()
    #expect(copy.terminationStatus == 0)
    let (process, pipe) = try start(alone, in: directory, path: "/usr/bin:/bin")
    _ = try await read(pipe, until: "Bot (random)")
    #expect(children(of: process.processIdentifier).isEmpty, "the server runs in the program")
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    // No journal, no data directory: a game against a bot keeps nothing.
    #expect(!FileManager.default.fileExists(atPath: directory + "/data"))
  }
}

/// `roshambo bot` under its service group: a signal makes it leave, not vanish.
@Suite("A bot stopped by a signal", .serialized)
struct BotSignalTests {
  @Test(
    "SIGTERM or SIGINT: the bot leaves its room at once, says how far it got, exits 1",
    arguments: [
      SIGTERM, SIGINT,
    ])
  func leavesOnSignal(signal: Int32) async throws {
    try await withTestServer { server in
      let (alice, output) = try startRoshambo(
        ["bot", "--name", "Alice", "--matches", "3", "--room", "den"], port: server.port)
      try await waitUntil("Alice is seated") {
        try await server.lobby().rooms["den"]?.seats[.one]?.name == "Alice"
      }
      // Bob joins by hand and never picks: the match stays running.
      let tls = try ClientTestCertificates.clientTLS()
      let bob = try await ServerConnection.connect(host: "127.0.0.1", port: server.port, tls: tls)
      bob.send(
        .hello(
          protocol: WireProtocol.version, name: "Bob", role: .player, room: "den", resume: nil,
          fair: false, id: nil))
      try await waitUntil("the match runs") {
        try await server.lobby().rooms["den"]?.phase == .choosing
      }
      kill(alice.processIdentifier, signal)
      let printed = await awaitExit(alice, output, seconds: 120).1
      #expect(alice.terminationStatus == 1, "\(printed)")
      #expect(
        printed.contains("stopped by a signal after 0 of 3 matches; left the room."), "\(printed)")
      // Left, not dropped: Bob won by forfeit at once, with no grace period held for Alice.
      let room = try await server.lobby().rooms["den"]
      #expect(room?.seats[.one]?.hasLeft == true)
      #expect(room?.phase == .over)
      #expect(room?.winner == .two)
      await bob.close()
    }
  }
}
