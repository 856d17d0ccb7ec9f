import Logging
import NIOConcurrencyHelpers
import NIOCore
import RoshamboTLS

/// Logs failed TLS handshakes without letting a flood of them flood the log: the first
/// failure from an address in each interval is logged as it happens; the rest are
/// counted and reported in one line when the interval is over.
///
/// Invariant: at most one line per address per interval, plus one summary; the table
/// holds at most ``maxAddresses`` addresses (failures beyond that are counted under
/// "other addresses").
final class HandshakeFailureLog: Sendable {
  static let interval: Int64 = 10
  static let maxAddresses = 1_024

  private struct Window {
    var start: NIODeadline
    var suppressed = 0
  }

  private let windows = NIOLockedValueBox<[String: Window]>([:])
  private let logger: Logger
  private let advice: @Sendable (TLSError) -> String?
  private let metrics: ServerMetrics?

  /// `advice` says what the operator can do about a failure, if anything; `metrics`
  /// counts every failure.
  init(
    logger: Logger, advice: @escaping @Sendable (TLSError) -> String? = { _ in nil },
    metrics: ServerMetrics? = nil
  ) {
    self.logger = logger
    self.advice = advice
    self.metrics = metrics
  }

  /// Records one failed handshake from `address`.
  func record(address: String, error: any Error, at now: NIODeadline = .now()) {
    metrics?.handshakeFailures.increment()
    enum Decision {
      case log
      case logAfterSummary(Int)
      case count
    }
    let decision = windows.withLockedValue { windows -> Decision in
      let key =
        windows[address] != nil || windows.count < Self.maxAddresses
        ? address : "other addresses"
      guard var window = windows[key] else {
        windows[key] = Window(start: now)
        return .log
      }
      if now - window.start >= .seconds(Self.interval) {
        let suppressed = window.suppressed
        window = Window(start: now)
        windows[key] = window
        if windows.count >= Self.maxAddresses {
          windows = windows.filter { now - $0.value.start < .seconds(Self.interval) }
        }
        return suppressed > 0 ? .logAfterSummary(suppressed) : .log
      }
      window.suppressed += 1
      windows[key] = window
      return .count
    }
    var metadata: Logger.Metadata = ["peer": "\(address)", "error": "\(error)"]
    if let error = error as? TLSError, let advice = advice(error) {
      metadata["advice"] = "\(advice)"
    }
    switch decision {
    case .log:
      logger.info("TLS handshake failed", metadata: metadata)
    case .logAfterSummary(let count):
      logger.info(
        "TLS handshakes failed",
        metadata: [
          "peer": "\(address)", "count": "\(count)",
          "interval": "\(Self.interval) s before this one",
        ])
      logger.info("TLS handshake failed", metadata: metadata)
    case .count:
      break
    }
  }
}
