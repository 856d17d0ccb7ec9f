import NIOCore

/// How long the hub's event loop is kept from what is due, and what kept it: a probe
/// scheduled every millisecond measures how late it runs (the loop's longest turns), and
/// the hub times its own steps (a commit on the loop, preparing and sending frames), so
/// each stall can be split into what ran in it. What is left is everything else on the
/// loop: TLS, frames, decoding, reducing. (Snapshot steps run on the journal's thread.)
///
/// Invariant: bounded whatever the run's length: a fixed histogram, running totals and
/// the ``keep`` longest stalls.
final class LoopStallMonitor {
  /// The hub's own steps.
  enum Step: String, CaseIterable, Sendable {
    case commit, send
  }

  /// One probe that ran late: by how much, and how long each hub step ran since the
  /// probe before it.
  struct Stall: Sendable {
    var lateMicros: Int
    var steps: [Step: Int]
    /// What the hub's steps do not explain.
    var otherMicros: Int { max(0, lateMicros - steps.values.reduce(0, +)) }
  }

  /// What the monitor saw.
  struct Profile: Sendable, CustomStringConvertible {
    var probes: Int
    /// Probes by lateness: below 0.1, 0.5, 1, 2, 5, 10, 20, 50, 100 ms, and more.
    var histogram: [Int]
    static let bounds = [100, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000]
    var longest: [Stall]
    /// Time in each hub step over the run, µs.
    var totals: [Step: Int]

    /// The lateness below which `fraction` of probes ran, as a histogram bound (µs).
    func percentile(_ fraction: Double) -> Int {
      var seen = 0
      for (index, count) in histogram.enumerated() {
        seen += count
        if Double(seen) >= fraction * Double(probes) {
          return index < Self.bounds.count ? Self.bounds[index] : Int.max
        }
      }
      return Int.max
    }

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
          "  a stall of \(ms(stall.lateMicros)): \(parts(stall.steps, other: stall.otherMicros))")
      }
      return lines.joined(separator: "\n")
    }
  }

  static let keep = 20
  private var sinceProbe: [Step: Int] = [:]
  private var totals: [Step: Int] = [:]
  private var histogram = [Int](repeating: 0, count: Profile.bounds.count + 1)
  private var probes = 0
  private var longest: [Stall] = []
  private var probe: Scheduled<Void>?

  /// Starts probing `loop` every millisecond.
  func start(on loop: any EventLoop) {
    let due = NIODeadline.now() + .milliseconds(1)
    probe = loop.assumeIsolated().scheduleTask(deadline: due) {
      self.record(lateMicros: max(0, Int((NIODeadline.now() - due).nanoseconds / 1_000)))
      self.start(on: loop)
    }
  }

  /// Forgets what was seen so far (a benchmark's measuring window starts).
  func reset() {
    sinceProbe.removeAll()
    totals.removeAll()
    histogram = [Int](repeating: 0, count: Profile.bounds.count + 1)
    probes = 0
    longest.removeAll()
  }

  func stop() {
    probe?.cancel()
    probe = nil
  }

  /// Runs `body`, counting its time as `step`.
  func measure<T>(_ step: Step, _ body: () throws -> T) rethrows -> T {
    let start = NIODeadline.now()
    defer {
      let micros = Int((NIODeadline.now() - start).nanoseconds / 1_000)
      sinceProbe[step, default: 0] += micros
      totals[step, default: 0] += micros
    }
    return try body()
  }

  var profile: Profile {
    Profile(probes: probes, histogram: histogram, longest: longest, totals: totals)
  }

  func record(lateMicros: Int) {
    probes += 1
    let bucket = Profile.bounds.firstIndex { lateMicros < $0 } ?? Profile.bounds.count
    histogram[bucket] += 1
    if longest.count < Self.keep || lateMicros > longest.last!.lateMicros {
      longest.append(Stall(lateMicros: lateMicros, steps: sinceProbe))
      longest.sort { $0.lateMicros > $1.lateMicros }
      if longest.count > Self.keep { longest.removeLast() }
    }
    sinceProbe.removeAll(keepingCapacity: true)
  }
}
