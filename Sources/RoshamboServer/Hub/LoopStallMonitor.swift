import NIOCore

/// How long the hub's event loop is kept from what is due, and what kept it: a probe
/// scheduled every millisecond measures how late it runs (the loop's longest turns), and
/// the hub times its own steps (a commit on the loop, preparing and sending frames), so
/// each stall can be split into what ran in it. What is left is everything else on the
/// loop: TLS, frames, decoding, reducing. (Snapshot steps run on the journal's thread.)
///
/// It also follows the journal's commits: how many actions each one held, how long the
/// commit itself took, and how long from sealing a batch until what it sends was sent (the
/// part of a pick's latency the journal decides).
///
/// Invariant: bounded whatever the run's length: fixed histograms, running totals and
/// the ``keep`` longest stalls.
package final class LoopStallMonitor {
  /// The hub's own steps.
  enum Step: String, CaseIterable, Sendable {
    case commit, send
  }

  /// One probe that ran late: by how much, and how long each hub step ran since the
  /// probe before it.
  struct Stall: Sendable {
    var lateMicros: Int
    /// When it ended, ms since the profile started.
    var atMillis: Int
    var steps: [Step: Int]
    /// What the hub's steps do not explain.
    var otherMicros: Int { max(0, lateMicros - steps.values.reduce(0, +)) }
  }

  /// What the monitor saw.
  struct Profile: Sendable, CustomStringConvertible {
    /// Probes by lateness: below 0.1, 0.5, 1, 2, 5, 10, 20, 50, 100 ms, and more.
    var histogram = Histogram(bounds: bounds)
    static let bounds = [100, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000]
    var probes: Int { histogram.total }
    var longest: [Stall]
    /// Time in each hub step over the run, µs.
    var totals: [Step: Int]
    var commits: Commits
    /// Snapshots written: when each began and how long it took, ms (at most ``keep``).
    var snapshots: [(atMillis: Int, tookMillis: Int)]

    /// This profile with the journal thread's other work (read apart, off the loop).
    func with(otherJournalWork: Histogram) -> Profile {
      var profile = self
      profile.commits.otherWork = otherJournalWork
      return profile
    }

    /// The lateness below which `fraction` of probes ran, as a histogram bound (µs;
    /// `Int.max` past the last).
    func percentile(_ fraction: Double) -> Int { histogram.percentile(fraction) ?? Int.max }

    var description: String {
      func ms(_ micros: Int) -> String { String(format: "%.1f ms", Double(micros) / 1000) }
      /// "under 2.0 ms", or "100 ms or more" past the last bound.
      func below(_ fraction: Double) -> String {
        let bound = percentile(fraction)
        return bound == Int.max ? "100 ms or more" : "under \(ms(bound))"
      }
      func parts(_ steps: [Step: Int], other: Int) -> String {
        (Step.allCases.map { "\($0.rawValue) \(ms(steps[$0] ?? 0))" } + ["other \(ms(other))"])
          .joined(separator: ", ")
      }
      var lines = [
        "loop stalls: \(probes) probes; p50 \(below(0.5)), p99 \(below(0.99)), "
          + "p99.9 \(below(0.999)), longest \(ms(longest.first?.lateMicros ?? 0))",
        "  hub steps over the run: "
          + Step.allCases.map { "\($0.rawValue) \(ms(totals[$0] ?? 0))" }.joined(separator: ", "),
      ]
      for stall in longest.prefix(5) {
        lines.append(
          "  a stall of \(ms(stall.lateMicros)) at \(String(format: "%.1f s", Double(stall.atMillis) / 1000)): "
            + parts(stall.steps, other: stall.otherMicros))
      }
      if commits.count > 0 { lines.append(commits.description) }
      if !snapshots.isEmpty {
        lines.append(
          "  snapshots: "
            + snapshots.map {
              String(format: "at %.1f s (%d ms)", Double($0.atMillis) / 1000, $0.tookMillis)
            }.joined(separator: ", "))
      }
      return lines.joined(separator: "\n")
    }
  }

  /// The journal's commits: their sizes, and two durations in histograms.
  struct Commits: Sendable, CustomStringConvertible {
    var count = 0
    var actions = 0
    var matches = 0
    /// The commit itself, on whichever thread ran it.
    var commit = Histogram()
    /// How long commits waited for the journal's thread (behind its other work).
    var waited = Histogram()
    /// How long each of the journal thread's other tasks held it (snapshot steps above
    /// all), added when the profile is read (``Profile/with(otherJournalWork:)``); not
    /// printed while empty.
    var otherWork = Histogram()
    /// From sealing the batch on the loop to sending what it sends, once per action.
    var sealToSend = Histogram()
    /// The commit whose actions waited longest from sealed to sent.
    var slowest: Slowest?

    /// One commit's figures: when it was sent (ms since the profile started), its actions,
    /// and its times, µs.
    struct Slowest: Sendable {
      var atMillis: Int
      var actions: Int
      var waitedMicros: Int
      var commitMicros: Int
      var sealToSendMicros: Int
    }

    var description: String {
      let perCommit = String(format: "%.1f", Double(actions) / Double(max(1, count)))
      let matchesPer = String(format: "%.2f", Double(matches) / Double(max(1, count)))
      var lines = [
        "  journal commits: \(count), \(perCommit) actions and \(matchesPer) finished matches each",
        "    the commit itself: \(commit)",
        "    waiting for the journal's thread: \(waited)",
      ]
      if otherWork.total > 0 {
        lines.append(
          "    the thread's other tasks (\(otherWork.total), snapshot steps above all): \(otherWork)"
        )
      }
      lines.append("    sealed → sent, per action: \(sealToSend)")
      if let slowest {
        lines.append(
          String(
            format: "      the slowest: at %.1f s, %d actions, waited %.1f ms, took %.1f ms, "
              + "sent %.1f ms after it was sealed",
            Double(slowest.atMillis) / 1000, slowest.actions, Double(slowest.waitedMicros) / 1000,
            Double(slowest.commitMicros) / 1000, Double(slowest.sealToSendMicros) / 1000))
      }
      return lines.joined(separator: "\n")
    }
  }

  /// Durations in buckets, µs: below each bound, and past the last one. By default the
  /// bounds double from 50 µs up to 3.2 s.
  package struct Histogram: Sendable, CustomStringConvertible {
    let bounds: [Int]
    /// One count per bound, and one past the last.
    private(set) var counts: [Int]
    private(set) var total = 0

    package init(bounds: [Int] = (0..<17).map { 50 << $0 }) {
      self.bounds = bounds
      counts = [Int](repeating: 0, count: bounds.count + 1)
    }

    package mutating func record(_ micros: Int, times: Int = 1) {
      counts[bounds.firstIndex { micros < $0 } ?? bounds.count] += times
      total += times
    }

    /// The longest duration recorded, as its bucket's upper bound (nil: past all).
    var longest: Int? {
      guard let last = counts.lastIndex(where: { $0 > 0 }) else { return 0 }
      return last < bounds.count ? bounds[last] : nil
    }

    /// The bucket bound below which `fraction` of the durations fell, µs (nil: past all).
    func percentile(_ fraction: Double) -> Int? {
      var seen = 0
      for (index, count) in counts.enumerated() {
        seen += count
        if Double(seen) >= fraction * Double(total) {
          return index < bounds.count ? bounds[index] : nil
        }
      }
      return nil
    }

    package var description: String {
      func below(_ fraction: Double) -> String {
        guard let bound = percentile(fraction) else { return "over 3.2 s" }
        return String(format: "under %.2f ms", Double(bound) / 1000)
      }
      let most = longest.map { String(format: "under %.2f ms", Double($0) / 1000) } ?? "over 3.2 s"
      return "p50 \(below(0.5)), p90 \(below(0.9)), p99 \(below(0.99)), longest \(most)"
    }
  }

  static let keep = 20
  private var commits = Commits()
  private var snapshots: [(atMillis: Int, tookMillis: Int)] = []
  private var sinceProbe: [Step: Int] = [:]
  private var totals: [Step: Int] = [:]
  private var histogram = Histogram(bounds: Profile.bounds)
  private var longest: [Stall] = []
  private var probe: Scheduled<Void>?
  /// The `hello`s the hub handled and the time it took over them (its own work, not
  /// TLS or framing): what seating a player costs the hub, and whether that grows with
  /// the number already seated.
  private(set) var hellos = (count: 0, nanoseconds: Int64(0))
  private var started = NIODeadline.now()

  /// Starts probing `loop` every millisecond.
  func start(on loop: any EventLoop) {
    started = .now()
    probeAgain(on: loop)
  }

  private func probeAgain(on loop: any EventLoop) {
    let due = NIODeadline.now() + .milliseconds(1)
    probe = loop.assumeIsolated().scheduleTask(deadline: due) {
      self.record(lateMicros: max(0, Int((NIODeadline.now() - due).nanoseconds / 1_000)))
      self.probeAgain(on: loop)
    }
  }

  /// The hub handled a `hello` in `nanoseconds`.
  func recordHello(nanoseconds: Int64) {
    hellos.count += 1
    hellos.nanoseconds += nanoseconds
  }

  /// Forgets what was seen so far (a benchmark's measuring window starts).
  func reset() {
    hellos = (0, 0)
    sinceProbe.removeAll()
    totals.removeAll()
    histogram = Histogram(bounds: Profile.bounds)
    longest.removeAll()
    commits = Commits()
    snapshots.removeAll()
    started = .now()
  }

  /// A commit of `actions` and `matches` waited `waitedMicros` for the journal's thread
  /// and took `commitMicros` itself, and what it sends went out `sealToSendMicros` after
  /// its batch was sealed.
  func recordCommit(
    actions: Int, matches: Int, waitedMicros: Int, commitMicros: Int, sealToSendMicros: Int
  ) {
    commits.count += 1
    commits.actions += actions
    commits.matches += matches
    commits.commit.record(commitMicros)
    commits.waited.record(waitedMicros)
    commits.sealToSend.record(sealToSendMicros, times: max(1, actions))
    if sealToSendMicros > commits.slowest?.sealToSendMicros ?? -1 {
      commits.slowest = Commits.Slowest(
        atMillis: millis(since: started), actions: actions,
        waitedMicros: waitedMicros, commitMicros: commitMicros, sealToSendMicros: sealToSendMicros)
    }
  }

  /// A snapshot begun at `began` is written.
  func recordSnapshot(began: NIODeadline) {
    guard snapshots.count < Self.keep else { return }
    snapshots.append((millis(since: started) - millis(since: began), millis(since: began)))
  }

  private func millis(since start: NIODeadline) -> Int {
    Int((NIODeadline.now() - start).nanoseconds / 1_000_000)
  }

  func stop() {
    probe?.cancel()
    probe = nil
  }

  /// Runs `body`, counting its time as `step`.
  func measure<T>(_ step: Step, _ body: () throws -> T) rethrows -> T {
    let start = NIODeadline.now()
    defer { add(step, micros: Int((NIODeadline.now() - start).nanoseconds / 1_000)) }
    return try body()
  }

  /// `step` ran for `micros`.
  func add(_ step: Step, micros: Int) {
    sinceProbe[step, default: 0] += micros
    totals[step, default: 0] += micros
  }

  var profile: Profile {
    Profile(
      histogram: histogram, longest: longest, totals: totals, commits: commits,
      snapshots: snapshots)
  }

  func record(lateMicros: Int) {
    histogram.record(lateMicros)
    if longest.count < Self.keep || lateMicros > longest.last!.lateMicros {
      longest.append(
        Stall(lateMicros: lateMicros, atMillis: millis(since: started), steps: sinceProbe))
      longest.sort { $0.lateMicros > $1.lateMicros }
      if longest.count > Self.keep { longest.removeLast() }
    }
    sinceProbe.removeAll(keepingCapacity: true)
  }
}
