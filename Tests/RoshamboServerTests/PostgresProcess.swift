import Foundation
import NIOCore
import NIOPosix

/// A real PostgreSQL server for a test: Debian's `postgresql` binaries, a cluster that
/// `initdb` makes in a temporary directory, listening on a free port of 127.0.0.1 (and a
/// socket in its directory), trusting local connections, with a database `roshambo`
/// owned by the user `roshambo`. PostgreSQL will not run as root, so as root it runs as
/// the `postgres` user the package made.
///
/// Invariant: `remove()` stops the server and deletes its directory, whatever happened.
final class PostgresProcess: @unchecked Sendable {
  // `@unchecked Sendable`: every property is set once in `init` and only read after.
  let directory: String
  let port: Int
  var url: String { "postgres://roshambo@127.0.0.1:\(port)/roshambo" }

  /// The directory of Debian's PostgreSQL programs, if the package is installed.
  static let binaries: String? = {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return versions.compactMap(Int.init).sorted().last.map { "\(root)/\($0)/bin" }
      .flatMap { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") ? $0 : nil }
  }()

  static var available: Bool { binaries != nil }

  init() throws {
    guard let binaries = Self.binaries else {
      throw TestClientError.unexpected("PostgreSQL is not installed (apt-get install postgresql)")
    }
    directory = NSTemporaryDirectory() + "roshambo-postgres-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    if geteuid() == 0 { try Self.run("/bin/chown", ["postgres:postgres", directory]) }
    port = try Self.freePort()
    try Self.asPostgres(
      binaries + "/initdb",
      ["-D", directory + "/data", "-U", "roshambo", "-A", "trust", "--no-sync", "-E", "UTF8"])
    try start()
    try Self.asPostgres(
      binaries + "/createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "roshambo", "roshambo"])
  }

  /// Starts the server (again, after ``stop()``), and waits until it takes connections.
  func start() throws {
    do {
      // The server inherits pg_ctl's output: not a pipe, which would then never end.
      try Self.asPostgres(
        Self.binaries! + "/pg_ctl",
        [
          "-D", directory + "/data", "-l", directory + "/log", "-w", "-t", "60", "-o",
          "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off", "start",
        ], capture: false)
    } catch {
      let log = (try? String(contentsOfFile: directory + "/log", encoding: .utf8)) ?? ""
      throw TestClientError.unexpected("PostgreSQL did not start: \(error)\n\(log)")
    }
  }

  /// Stops the server at once (connections are cut), as when a database goes away.
  func stop() throws {
    try Self.asPostgres(
      Self.binaries! + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"])
  }

  /// Runs SQL with `psql` and returns what it printed (unaligned, tuples only).
  func psql(_ sql: String) throws -> String {
    try Self.asPostgres(
      Self.binaries! + "/psql",
      ["-h", "127.0.0.1", "-p", "\(port)", "-U", "roshambo", "-d", "roshambo", "-At", "-c", sql]
    )
    .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func remove() {
    try? stop()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Runs a PostgreSQL program, as `postgres` when this process is root; its output.
  @discardableResult
  static func asPostgres(_ tool: String, _ arguments: [String], capture: Bool = true) throws
    -> String
  {
    if geteuid() == 0 {
      return try run(
        "/usr/sbin/runuser", ["-u", "postgres", "--", tool] + arguments, capture: capture)
    }
    return try run(tool, arguments, capture: capture)
  }

  @discardableResult
  static func run(_ tool: String, _ arguments: [String], capture: Bool = true) throws -> String {
    guard capture else {
      let status = try spawnAndWait(tool, arguments)
      guard status == 0 else {
        throw TestClientError.unexpected(
          "\(tool) \(arguments.joined(separator: " ")) exited \(status)")
      }
      return ""
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: "/tmp")
    let pipe = Pipe()
    process.standardOutput = capture ? pipe : FileHandle.nullDevice
    process.standardError = capture ? pipe : FileHandle.nullDevice
    try process.run()
    let output =
      capture
      ? String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestClientError.unexpected(
        "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): \(output)"
      )
    }
    return output
  }

  /// Runs `tool` with its output discarded and waits for it with `waitpid`: a program
  /// that leaves a daemon behind (pg_ctl start) would keep Foundation's `Process` waiting,
  /// since the daemon inherits the descriptor `Process` watches for the child's end.
  static func spawnAndWait(_ tool: String, _ arguments: [String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([tool] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, tool, &actions, nil, argv, environ)
    guard spawned == 0 else {
      throw TestClientError.unexpected("cannot run \(tool): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // WIFEXITED and WEXITSTATUS by hand (they are macros).
    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }

  /// A TCP port of 127.0.0.1 nothing listens on now, below the system's range of
  /// ephemeral ports: one the kernel handed out (port 0) could be handed out again, to
  /// any test's outgoing connection, before the caller binds it.
  static func freePort() throws -> Int {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let range =
      (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
      .flatMap { Int($0.split(whereSeparator: \.isWhitespace).first ?? "") } ?? 32_768
    for _ in 0..<100 {
      let port = Int.random(in: 10_000..<max(10_001, range))
      guard
        let channel = try? ServerBootstrap(group: group).bind(host: "127.0.0.1", port: port).wait()
      else { continue }
      try channel.close().wait()
      return port
    }
    throw TestClientError.unexpected("no free port below \(range) on 127.0.0.1")
  }
}
