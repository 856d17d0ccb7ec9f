import Foundation

/// A throwaway PostgreSQL for section 8: Debian's binaries, a cluster in a temporary
/// directory on a free loopback port, run as `postgres` when this is root (PostgreSQL
/// refuses root). Each step is one shell line; `pg_ctl` leaves the server behind, so its
/// output goes to the log, never to a pipe this process waits on.
final class BenchPostgres {
  let directory = NSTemporaryDirectory() + "roshambo-bench-postgres-\(getpid())"
  let port = Int.random(in: 40_000...49_999)
  var url: String { "postgres://roshambo@127.0.0.1:\(port)/roshambo" }
  private let bin: String

  init() throws {
    let root = "/usr/lib/postgresql"
    guard
      let version = (try? FileManager.default.contentsOfDirectory(atPath: root))?
        .compactMap(Int.init).max()
    else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: root]) }
    bin = "\(root)/\(version)/bin"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try shell("chown postgres \(directory) 2>/dev/null || true", asPostgres: false)
    try shell("\(bin)/initdb -D \(directory)/data -U roshambo -A trust -E UTF8 >/dev/null")
    try spawn(
      "\(bin)/pg_ctl -D \(directory)/data -l \(directory)/log -w -o \"-p \(port) -k \(directory) "
        + "-c listen_addresses=127.0.0.1\" start >/dev/null 2>&1 </dev/null")
    try shell("\(bin)/createdb -h 127.0.0.1 -p \(port) -U roshambo roshambo")
  }

  /// Runs `sql` with psql; what it printed (unaligned, tuples only).
  @discardableResult
  func psql(_ sql: String) throws -> String {
    let file = directory + "/query.sql"
    try sql.write(toFile: file, atomically: true, encoding: .utf8)
    return try shell(
      "\(bin)/psql -h 127.0.0.1 -p \(port) -U roshambo -d roshambo -At -v ON_ERROR_STOP=1 -f \(file)"
    ).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  func remove() {
    _ = try? shell("\(bin)/pg_ctl -D \(directory)/data -m immediate stop >/dev/null 2>&1")
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Runs a line that leaves a daemon behind, waited for with `waitpid` (Foundation's
  /// `Process` would wait for the daemon too: it inherits what `Process` watches).
  private func spawn(_ line: String) throws {
    let command = geteuid() == 0 ? "runuser -u postgres -- sh -c '\(line)'" : line
    let words: [String] = ["/bin/sh", "-c", command]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot run sh"])
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    guard status == 0 else {
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "failed: \(line)"])
    }
  }

  @discardableResult
  private func shell(_ line: String, asPostgres: Bool = true) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    let quoted = "'" + line.replacingOccurrences(of: "'", with: "'\\''") + "'"
    process.arguments = [
      "-c", asPostgres && geteuid() == 0 ? "runuser -u postgres -- sh -c \(quoted)" : line,
    ]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "failed: \(line)"])
    }
    return text
  }
}
