// What the benchmark executables share: child processes that speak a line protocol,
// the resident memory of a process, percentiles and table formatting.
import Foundation

/// A child process (usually this same executable in an internal mode) that answers on
/// standard output, one line per answer.
///
/// `@unchecked Sendable`: a benchmark run is sequential, so one caller at a time uses
/// its pipes and `buffer`.
public final class ChildProcess: @unchecked Sendable {
  public let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private var buffer = ""

  /// Runs `executable` (default: this program) with `arguments`.
  public init(_ arguments: [String], executable: String = CommandLine.arguments[0]) throws {
    let path =
      executable.hasPrefix("/")
      ? executable : FileManager.default.currentDirectoryPath + "/" + executable
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.standardInput = input
    process.standardOutput = output
    try process.run()
  }

  /// The next line the child prints that starts with `prefix`.
  public func line(startingWith prefix: String) -> String {
    while true {
      if let range = buffer.range(of: "\n") {
        let line = String(buffer[..<range.lowerBound])
        buffer.removeSubrange(...range.lowerBound)
        if line.hasPrefix(prefix) { return line }
        continue
      }
      let data = output.fileHandleForReading.availableData
      if data.isEmpty {
        fatalError("child \(process.arguments ?? []) exited before printing \(prefix)")
      }
      buffer += String(decoding: data, as: UTF8.self)
    }
  }

  /// The number after `prefix` on the next such line ("PORT 4433" → 4433).
  public func value(_ prefix: String) -> Int {
    Int(line(startingWith: prefix).split(separator: " ")[1])!
  }

  public func send(_ line: String) {
    input.fileHandleForWriting.write(Data((line + "\n").utf8))
  }

  /// The child's resident memory, asked with the line `rss` (answer `RSS <bytes>`).
  public func rss() -> Int {
    send("rss")
    return value("RSS")
  }

  /// Sends `query` and collects the lines that start with `prefix` up to the line `end`.
  public func answers(to query: String, prefix: String, end: String) -> [String] {
    send(query)
    var lines: [String] = []
    while true {
      let line = self.line(startingWith: prefix)
      if line == end { return lines }
      lines.append(String(line.dropFirst(prefix.count)))
    }
  }

  /// Closes its input (the child's cue to exit) and waits for it.
  public func stop() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
  }
}

/// This process's resident memory in bytes (Linux `/proc/self/status`).
public func residentBytes() -> Int {
  let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
  let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
  return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}

/// Serves the child side of ``ChildProcess/rss()`` until standard input closes.
public func answerMemoryQueries() {
  while let line = readLine() {
    if line == "rss" {
      print("RSS \(residentBytes())")
      fflush(nil)
    }
  }
}

/// Lets this process open as many files (sockets) as the hard limit allows; returns
/// that limit.
@discardableResult
public func raiseFileLimit() -> Int {
  var limit = rlimit()
  getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
  limit.rlim_cur = limit.rlim_max
  setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
  return limit.rlim_max >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_max)
}

/// The value at fraction `p` of a sorted list (NaN when empty).
public func percentile(_ sorted: [Double], _ p: Double) -> Double {
  sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

public func format(_ value: Double, _ digits: Int = 1) -> String {
  String(format: "%.\(digits)f", value)
}

/// `text` padded with spaces to `width` (and one space more if it is already as wide).
public func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

/// Prints `label` padded to `width` and what one call of `body` costs, µs: the mean of
/// `runs` calls in a tight loop after a tenth as many to warm the caches.
public func printCost(_ label: String, width: Int, runs: Int, _ body: () -> Void) {
  for _ in 0..<runs / 10 { body() }
  let start = DispatchTime.now().uptimeNanoseconds
  for _ in 0..<runs { body() }
  let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - start)
  print(pad(label, width) + format(nanoseconds / Double(runs) / 1000, 2))
}
