import Foundation
import RoshamboClient
import Sysexits

/// `roshambo load`: many bot pairs in this process against one server, then the
/// throughput, the latency of a pick's round trip and the errors.
///
/// Invariant: the report is printed only for a run that finished; a run that could not
/// is said and exits 69.
public struct LoadTrial: Sendable {
  public var access: ServerAccess
  public var rooms: Int
  /// Seconds to measure, after every bot is seated.
  public var duration: Double
  public var paceMs: Int
  public var threads: Int
  public var fair: Bool

  public init(
    access: ServerAccess, rooms: Int, duration: Double, paceMs: Int, threads: Int, fair: Bool
  ) {
    self.access = access
    self.rooms = rooms
    self.duration = duration
    self.paceMs = paceMs
    self.threads = threads
    self.fair = fair
  }

  public func run() async throws {
    let target = try await access.resolve()
    let report: LoadReport
    do {
      report = try await LoadGenerator.run(
        host: target.host, port: target.port, tls: target.tls, rooms: rooms, seconds: duration,
        paceMillis: Int64(paceMs), threads: threads, fair: fair)
    } catch {
      StandardError.complain(
        "\(DiscoveredServer.address(host: target.host, port: target.port)): \(error)")
      throw CommandExit(ExitStatus.unavailable)
    }
    for line in report.lines(rooms: rooms) { print(line) }
  }
}

extension LoadReport {
  /// What `roshambo load` prints: connections, throughput, latency and errors.
  public func lines(rooms: Int) -> [String] {
    func ms(_ micros: Double) -> String { String(format: "%.2f ms", micros / 1000) }
    return [
      "connections: \(connections) (\(rooms) rooms)",
      String(
        format: "throughput: %.0f picks/s (%d picks in %.1f s)", picksPerSecond, picks, seconds),
      "latency: p50 \(ms(percentile(0.5))), p90 \(ms(percentile(0.9))), "
        + "p99 \(ms(percentile(0.99))), max \(ms(latencies.last ?? .nan))",
      "errors: "
        + (errors.isEmpty
          ? "none" : errors.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")),
    ]
  }
}
