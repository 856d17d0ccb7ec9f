import Foundation
import RoshamboClient
import RoshamboTLS
import Sysexits

/// The server `roshambo play --vs-bot` plays on: `roshambo-server` started as a child
/// process on 127.0.0.1 with a free port, no journal and no LAN announcement, so that the
/// player's program links no server and no database. The child stops when its standard
/// input closes, so it goes with this process however this one ends.
///
/// Invariant: once ``start(certificate:key:)`` returns, the child is listening on
/// ``port``; ``stop()`` closes its input and waits for it to end.
final class LocalServer {
  let port: Int
  private let process: Process
  private let input: Pipe

  private init(port: Int, process: Process, input: Pipe) {
    self.port = port
    self.process = process
    self.input = input
  }

  /// Where `roshambo-server` is: beside this program (as packaged and as built), else
  /// on `PATH`.
  static func executable() -> String? {
    let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let beside = own.deletingLastPathComponent().appendingPathComponent("roshambo-server").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":") {
      let candidate = "\(directory)/roshambo-server"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// From a clone, `roshambo-server` is built the first time `--vs-bot` needs it (`swift
  /// run roshambo` builds only `roshambo`); its output is shown, as `swift build` prints it.
  /// Returns the server's path, or nil when this program is not run from a clone.
  static func buildFromClone() throws -> String? {
    let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    guard
      let build = CloneBuild.locate(
        executable: own, startedIn: FileManager.default.currentDirectoryPath)
    else { return nil }
    print(
      "roshambo-server is not built yet in this clone: building it once now (a few minutes "
        + "on a small machine; `swift build` builds everything ahead of time)…")
    fflush(nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "swift", "build", "--package-path", build.package, "--scratch-path", build.scratch,
      "-c", build.configuration, "--product", "roshambo-server",
    ]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0, let built = executable() else {
      throw Failure(
        description:
          "could not build roshambo-server (swift build exited \(process.terminationStatus)); "
          + "run `swift build` in \(build.package) and try again")
    }
    return built
  }

  /// What went wrong starting the server, in the player's words.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts the server with the certificate and key given and waits (up to 10 s) until it
  /// says where it listens.
  static func start(certificate: String, key: String) async throws -> LocalServer {
    guard let executable = try executable() ?? buildFromClone() else {
      throw Failure(
        description:
          "--vs-bot needs roshambo-server beside roshambo or on PATH; install both from the "
          + "same package")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
      "--host", "127.0.0.1", "--port", "0", "--cert", certificate, "--key", key,
      "--no-announce", "--ephemeral", "--log-level", "critical",
    ]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let lines = output.fileHandleForReading
    let port = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
      Thread.detachNewThread {
        continuation.resume(returning: listeningPort(lines))
      }
    }
    guard let port else {
      process.terminate()
      process.waitUntilExit()
      let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      let reason = said.split(separator: "\n").last.map(String.init) ?? "it exited"
      throw Failure(description: "the local server did not start: \(reason)")
    }
    return LocalServer(port: port, process: process, input: input)
  }

  /// Reads the server's output until its "listening on HOST:PORT" line: the port, or
  /// nil if the output ends (or 64 lines pass) without it.
  static func listeningPort(_ handle: FileHandle) -> Int? {
    var pending = Data()
    var lines = 0
    while lines < 64 {
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      pending.append(chunk)
      while let newline = pending.firstIndex(of: 10) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        lines += 1
        if let port = port(inListeningLine: line) { return port }
      }
    }
    return nil
  }

  /// The port in a line like `roshambo-server listening on 127.0.0.1:40123 (…)`.
  static func port(inListeningLine line: String) -> Int? {
    guard let range = line.range(of: "listening on ") else { return nil }
    let address = line[range.upperBound...].prefix { $0 != " " }
    guard let colon = address.lastIndex(of: ":") else { return nil }
    return Int(address[address.index(after: colon)...])
  }

  /// Closes the server's input (it saves nothing, so it stops at once) and waits for it.
  func stop() async {
    try? input.fileHandleForWriting.close()
    let process = self.process
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      Thread.detachNewThread {
        process.waitUntilExit()
        continuation.resume()
      }
    }
  }
}
