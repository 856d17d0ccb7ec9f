import Foundation
import RoshamboProtocol

/// What `roshambo-server status` prints: a running server's figures, read from its
/// operations endpoint (`/readyz` and `/metrics`), for a host without Prometheus.
///
/// Invariant: made only from the two answers' text, by pure functions; a figure the
/// scrape does not hold is shown as "?" rather than guessed; what the endpoint sent is
/// printed with its control and format characters escaped (``UntrustedText``), so an
/// endpoint cannot draw on the host's terminal.
public struct ServerStatus: Sendable, Equatable {
  /// The samples of a Prometheus text exposition: `name{labels}` → value.
  public var samples: [String: Double]
  /// `/readyz`'s status code and text.
  public var readiness: (status: Int, text: String)

  public static func == (a: ServerStatus, b: ServerStatus) -> Bool {
    a.samples == b.samples && a.readiness == b.readiness
  }

  public init(metrics: String, readiness: (status: Int, text: String)) {
    self.samples = Self.samples(metrics)
    self.readiness = readiness
  }

  /// Every sample line of `exposition` (comments skipped).
  public static func samples(_ exposition: String) -> [String: Double] {
    var values: [String: Double] = [:]
    for line in exposition.split(separator: "\n") where !line.hasPrefix("#") {
      guard let space = line.lastIndex(of: " "),
        let value = Double(line[line.index(after: space)...])
      else { continue }
      values[String(line[..<space])] = value
    }
    return values
  }

  /// The sum of every sample of `name` whose labels include `matching` (all: "").
  func total(_ name: String, matching: String = "") -> Double? {
    let found = samples.filter { key, _ in
      (key == name || key.hasPrefix(name + "{")) && (matching.isEmpty || key.contains(matching))
    }
    return found.isEmpty ? nil : found.values.reduce(0, +)
  }

  private func figure(_ name: String, matching: String = "") -> String {
    total(name, matching: matching).map { String(Int($0)) } ?? "?"
  }

  /// "1 round", "8 rounds", "? rounds".
  private func counted(_ name: String, _ one: String, _ many: String) -> String {
    let number = figure(name)
    return "\(number) \(number == "1" ? one : many)"
  }

  /// The game loop's lag: the bucket its 99th percentile falls in, from the histogram
  /// `roshambo_loop_lag_seconds`.
  var loopLine: String {
    let prefix = "roshambo_loop_lag_seconds_bucket{le=\""
    let buckets = samples.compactMap { key, count -> (Double, Double)? in
      guard key.hasPrefix(prefix) else { return nil }
      let bound = key.dropFirst(prefix.count).prefix { $0 != "\"" }
      return (bound == "+Inf" ? .infinity : Double(bound) ?? .nan, count)
    }
    .filter { !$0.0.isNaN }.sorted { $0.0 < $1.0 }
    guard let total = buckets.last?.1, total > 0 else { return "game loop: not sampled yet" }
    let p99 = buckets.first { $0.1 >= 0.99 * total }?.0 ?? .infinity
    let bound =
      p99.isInfinite
      ? "over \(String(format: "%g", (buckets.dropLast().last?.0 ?? 0) * 1000)) ms"
      : "under \(String(format: "%g", p99 * 1000)) ms"
    return "game loop: 99% of \(Int(total)) samples ran \(bound) late"
  }

  /// The lines printed.
  public var lines: [String] {
    let ready =
      readiness.status == 200
      ? "ready: taking players"
      : "NOT READY (\(readiness.status)): \(readiness.text.trimmingCharacters(in: .whitespacesAndNewlines))"
    var lines = [ready]
    lines.append(
      "people: \(figure("roshambo_players_seated")) seated, \(figure("roshambo_spectators")) "
        + "watching, \(figure("roshambo_lobby_followers")) in the lobby")
    lines.append(
      "rooms: \(figure("roshambo_rooms", matching: "choosing")) playing, "
        + "\(figure("roshambo_rooms", matching: "waiting")) waiting, "
        + "\(figure("roshambo_rooms", matching: "\"over\"")) finished")
    lines.append(
      "connections: \(figure("roshambo_connections_open")) open; "
        + "\(figure("roshambo_connections_accepted_total")) accepted, "
        + "\(figure("roshambo_connections_refused_total")) refused, "
        + "\(figure("roshambo_tls_handshake_failures_total")) failed handshakes")
    lines.append(
      "play: \(counted("roshambo_rounds_resolved_total", "round", "rounds")); "
        + "\(counted("roshambo_matches_finished_total", "match", "matches")) finished "
        + "(\(figure("roshambo_matches_finished_total", matching: "fair=\"true\"")) fair, "
        + "\(figure("roshambo_matches_finished_total", matching: "forfeit=\"true\"")) by forfeit)")
    let refusals = samples.filter {
      $0.key.hasPrefix("roshambo_actions_refused_total{") && $0.value > 0
    }
    .map { key, value -> (String, Int) in
      let code = key.split(separator: "\"").dropFirst().first.map(String.init) ?? key
      return (code, Int(value))
    }
    .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    lines.append(
      "actions: \(figure("roshambo_actions_accepted_total")) accepted; refused: "
        + (refusals.isEmpty ? "none" : refusals.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))
    let commits = total("roshambo_journal_commit_seconds_count")
    let seconds = total("roshambo_journal_commit_seconds_sum")
    let bytes = total("roshambo_journal_bytes")
    var journal = "journal: "
    journal += bytes.map { String(format: "%.1f MB", $0 / 1_000_000) } ?? "? MB"
    if let commits, let seconds, commits > 0 {
      journal += String(
        format: "; %d commits, %.2f ms each on average", Int(commits), seconds / commits * 1000)
    }
    lines.append(journal)
    lines.append(loopLine)
    if let info = samples.keys.first(where: { $0.hasPrefix("roshambo_build_info{") }) {
      lines.append("build: " + info.dropFirst("roshambo_build_info".count))
    }
    return lines.map(UntrustedText.printable)
  }
}
