import CoreMetrics
import Prometheus
import RoshamboServer

/// The server's metrics kept in Prometheus' way: a registry of this server's own (so
/// servers in one process, as in tests, never share a count), the ``ServerMetrics`` the
/// core counts through made by a Prometheus factory over it, and the text of a scrape
/// (``OperationsEndpoint``'s `/metrics`).
///
/// Invariant: every histogram has fixed buckets, set here before any metric is made.
public final class PrometheusMetrics: Sendable {
  /// Where the values are kept and emitted from.
  public let registry: PrometheusCollectorRegistry
  /// What the core counts through.
  public let server: ServerMetrics

  public init(version: String, protocolVersion: Int, commit: String) {
    let registry = PrometheusCollectorRegistry()
    self.registry = registry
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.durationHistogramBuckets["roshambo_journal_commit_seconds"] = [
      .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
      .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
      .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]
    // The stall profile's own bounds (0.1 ms to 100 ms), and a second past them.
    factory.durationHistogramBuckets["roshambo_loop_lag_seconds"] = [
      .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(2),
      .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
      .milliseconds(100), .seconds(1),
    ]
    for name in [
      "roshambo_hub_step_seconds", "roshambo_journal_wait_seconds",
      "roshambo_commit_to_send_seconds",
    ] {
      factory.durationHistogramBuckets[name] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .seconds(1),
      ]
    }
    factory.valueHistogramBuckets["roshambo_journal_actions_per_commit"] = [
      1, 2, 5, 10, 20, 50, 100, 200, 500, 1000,
    ]
    server = ServerMetrics(
      factory: factory, version: version, protocolVersion: protocolVersion, commit: commit)
  }

  /// The text of a scrape.
  public func exposition() -> [UInt8] { registry.emitToBuffer() }
}
