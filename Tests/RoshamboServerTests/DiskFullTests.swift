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
      "--grace-seconds", "60", "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--log-level", "warning",
    ]
    let first = try ServerProcess(arguments)
    // Whatever fails below, no server is left holding the disk (it could not be unmounted).
    defer { kill(first.process.processIdentifier, SIGKILL) }
    let (alice, bob) = try await seatTwo(port: try first.port)
    // Draws, so the match never ends; a few rounds are saved with space to spare.
    for round in 1...3 { _ = try await playRound(alice, .rock, bob, .rock, round: round) }
    try disk.fill()
    let refusal = try await drawUntilRefused(alice, bob, from: 4)
    let error = try #require(refusal, "the full disk never refused a write")
    #expect(error.code == .unavailable && !error.fatal, "\(error)")
    _ = try first.line(containing: "journal")  // the server said why
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
    _ = first.finish()

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
    _ = second.finish()
  }
}

extension TestClient {
  /// The newest view received once everything sent before a ping has arrived.
  func drainToView() async throws -> RoomView {
    _ = try await drainToPong()
    return inbox.messages.reversed().lazy.compactMap { message -> RoomView? in
      if case .state(_, let view) = message { return view }
      return nil
    }.first!
  }
}
