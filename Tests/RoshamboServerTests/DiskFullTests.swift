import Foundation
import RoshamboGame
import RoshamboProtocol
import Testing

/// A real, small file system (tmpfs) for a journal, and a file that fills it.
///
/// Invariant: `unmount()` removes the mount and its folder, whatever the test did.
struct SmallDisk {
  let path: String
  var filler: String { path + "/filler" }

  /// Whether this machine lets the tests mount file systems (root, with `mount`).
  static var canMount: Bool {
    geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")
  }

  init(megabytes: Int) throws {
    path = NSTemporaryDirectory() + "roshambo-small-disk-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
  }

  /// Writes the filler until the file system says it is full.
  func fill() throws {
    guard FileManager.default.createFile(atPath: filler, contents: nil) else {
      throw TestClientError.unexpected("cannot create \(filler)")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
    defer { try? handle.close() }
    let chunk = Data(count: 4_096)
    while (try? handle.write(contentsOf: chunk)) != nil {}
  }

  /// Gives the space back.
  func free() throws { try FileManager.default.removeItem(atPath: filler) }

  func unmount() {
    try? Self.run("/bin/umount", [path])
    try? FileManager.default.removeItem(atPath: path)
  }

  static func run(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestClientError.unexpected("\(tool) \(arguments) exited \(process.terminationStatus)")
    }
  }
}

@Suite("A full disk, for real", .serialized, .enabled(if: SmallDisk.canMount))
struct DiskFullTests {
  /// The journal's disk fills mid-match: play pauses with `unavailable`, resumes when
  /// space returns, and after SIGKILL every state a player saw is restored.
  @Test("the disk fills mid-match; play pauses, resumes, and survives SIGKILL")
  func diskFills() async throws {
    let disk = try SmallDisk(megabytes: 4)
    defer { disk.unmount() }
    let data = disk.path + "/data"
    let arguments = [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data, "--best-of", "99",
      "--hello-seconds", "60",
      "--grace-seconds", "60", "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--log-level", "warning", "--drain-seconds", "0",
    ]
    let first = try ServerProcess(arguments + ["--metrics-address", "127.0.0.1:0"])
    // Whatever fails below, no server is left holding the disk (it could not be unmounted).
    defer { kill(first.process.processIdentifier, SIGKILL) }
    let (alice, bob) = try await seatTwo(port: try first.port)
    let operations = try await #require(
      Int(
        try first.line(containing: "operations on http://").split(separator: ":")[2].prefix {
          $0.isNumber
        }))
    #expect(try await httpRequest(port: operations, path: "/readyz") == (200, "ready\n"))
    // Draws, so the match never ends; a few rounds are saved with space to spare.
    for round in 1...3 { _ = try await playRound(alice, .rock, bob, .rock, round: round) }
    try disk.fill()
    let refusal = try await drawUntilRefused(alice, bob, from: 4)
    let error = try #require(refusal, "the full disk never refused a write")
    #expect(error.code == .unavailable && !error.fatal, "\(error)")
    _ = try await first.line(containing: "journal")  // the server said why
    let unready = try await httpRequest(port: operations, path: "/readyz")
    #expect(unready.status == 503 && unready.body.contains("the journal cannot be written"))
    // Space comes back: play resumes by itself, without a restart.
    try disk.free()
    var resumed = false
    for attempt in 0..<100 where !resumed {
      let view = try await alice.drainToView()
      let refused = try await pick(alice, round: view.round, .rock, id: 10_000 + attempt)
      #expect(refused == nil || refused?.code == .unavailable)
      resumed = refused == nil
      if !resumed { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(resumed, "play did not resume once space came back")
    #expect(try await httpRequest(port: operations, path: "/readyz") == (200, "ready\n"))
    // Two more rounds after the fault, then the server is killed hard.
    let seen = try await alice.drainToView()
    if seen.player(.one)?.chosen == true {
      _ = try await pick(bob, round: seen.round, .rock, id: 20_000)
    }
    for _ in 0..<2 {
      let open = try await alice.drainToView().round
      #expect(try await pick(alice, round: open, .rock, id: 30_000) == nil)
      #expect(try await pick(bob, round: open, .rock, id: 30_001) == nil)
    }
    let aliceSeq = try await alice.drainToPong()
    let lastSeen = try await alice.drainToView()
    kill(first.process.processIdentifier, SIGKILL)
    _ = await first.finish()

    let second = try ServerProcess(arguments)
    defer { kill(second.process.processIdentifier, SIGKILL) }
    let again = try await TestClient.connect(port: try second.port)
    _ = try await again.hello(name: "Alice", resume: alice.token)
    let (seq, restored) = try await again.nextState()
    #expect(seq >= aliceSeq, "seq went back from \(aliceSeq) to \(seq)")
    #expect(restored.round == lastSeen.round)
    #expect(restored.history == lastSeen.history)
    #expect(restored.players.map(\.score) == lastSeen.players.map(\.score))
    second.process.terminate()
    _ = await second.finish()
  }
}

extension DiskFullTests {
  /// A challenge accepted while the disk is full: nobody is seated in a room the journal
  /// does not hold; both are told `unavailable` and follow the lobby again, and once
  /// space returns the same two are seated by the next challenge.
  @Test("a challenge accepted on a full disk seats nobody; both are back in the lobby")
  func challengeOnFullDisk() async throws {
    let disk = try SmallDisk(megabytes: 4)
    defer { disk.unmount() }
    let server = try ServerProcess([
      "--host", "127.0.0.1", "--port", "0", "--data-dir", disk.path + "/data", "--hello-seconds",
      "60",
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--log-level", "notice",
    ])
    defer { kill(server.process.processIdentifier, SIGKILL) }
    let port = try await server.port
    let lobby = ChallengeTests()
    let alice = try await lobby.follower("Alice", port: port)
    let bob = try await lobby.follower("Bob", port: port, sees: 2)
    try disk.fill()
    alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
    let offered = try await bob.challenge()
    bob.send(.accept(challenge: offered.id, id: 3))
    #expect(try await bob.expectError(.unavailable, skippingLobby: true).re == 3)
    // Alice is told too; neither got a welcome; both follow the lobby again.
    var aliceTold = false
    while !aliceTold {
      switch try await alice.next() {
      case .error(let error, _): aliceTold = error.code == .unavailable
      case .welcome(let room, _, _, _): Issue.record("Alice was welcomed into \(room)")
      default: continue
      }
    }
    _ = try await bob.lobby { $0.people.contains { $0.name == "Alice" && $0.status == .idle } }
    // Space comes back: once the server says play resumes, the next challenge seats them.
    try disk.free()
    _ = try await server.line(containing: "play resumes")
    alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 20))
    var seated: String?
    while seated == nil {
      switch try await bob.nextSkippingLobby() {
      case .challenge(let notice) where notice.status == .pending:
        bob.send(.accept(challenge: notice.id, id: 21))
      case .welcome(let room, _, _, _):
        seated = room
      case .challenge:
        continue
      case let other:
        Issue.record("Bob got \(other)")
        seated = "?"
      }
    }
    #expect(seated?.hasPrefix("duel-") == true, "never seated once space came back")
    await alice.close()
    await bob.close()
  }
}

extension TestClient {
  /// The next message that is not a lobby view.
  func nextSkippingLobby() async throws -> ServerMessage {
    while true {
      let message = try await next()
      if !message.isLobby { return message }
    }
  }

  /// The newest view received once everything sent before a ping has arrived.
  func drainToView() async throws -> RoomView {
    _ = try await drainToPong()
    return inbox.messages.reversed().lazy.compactMap { message -> RoomView? in
      if case .state(_, let view) = message { return view }
      return nil
    }.first!
  }
}
