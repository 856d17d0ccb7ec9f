import Logging
import NIOConcurrencyHelpers

/// The requests to stop one server, in the order they come (a signal, Agones' `Shutdown`,
/// the standard input of an `--ephemeral` server closing, a test): the first starts the
/// group's graceful shutdown and names how long the drain may last; any later one ends
/// the drain now.
///
/// Invariant: only the first request's limit and `started` count, and the hub is asked to
/// end a drain only while its loop runs (a later request after that is only logged).
final class StopRequests: Sendable {
  /// What a drain starts with.
  struct Drain {
    /// How long the matches under way may go on; nil when the group was stopped without
    /// a request (it stops without telling anyone it closes).
    var limit: Duration?
    /// Told how many matches were under way when the drain began.
    var started: @Sendable (_ matchesUnderWay: Int) -> Void
  }

  private struct State {
    var first: Drain?
    /// A second request came before the drain began: it begins with no time to wait.
    var insisted = false
    var draining = false
    var loopStopped = false
  }

  // Every field is read and written under this lock; the hub is told to end a drain
  // under it too, so its loop cannot shut down in between.
  private let state = NIOLockedValueBox(State())
  private let hub: HubHandle
  private let logger: Logger
  private let asked: AsyncStream<Void>.Continuation
  /// One element at the first request, then the end.
  let firstRequest: AsyncStream<Void>

  init(hub: HubHandle, logger: Logger) {
    self.hub = hub
    self.logger = logger
    (firstRequest, asked) = AsyncStream.makeStream()
  }

  /// Records a request to stop: the first drains within `limit`; a later one ends the
  /// drain now.
  func request(within limit: Duration, started: @escaping @Sendable (Int) -> Void) {
    let first = state.withLockedValue { state in
      guard state.first != nil else {
        state.first = Drain(limit: limit, started: started)
        return true
      }
      state.insisted = true
      if state.draining, !state.loopStopped { hub.execute { $0.endDrainNow() } }
      return false
    }
    if first {
      asked.yield()
      asked.finish()
    } else {
      logger.notice("asked again: stopping now; unfinished matches resume after a restart")
    }
  }

  /// The drain begins: what it was asked with.
  func beginDrain() -> Drain {
    state.withLockedValue { state in
      state.draining = true
      guard var drain = state.first else { return Drain(limit: nil, started: { _ in }) }
      if state.insisted { drain.limit = .zero }
      return drain
    }
  }

  /// The hub's loop is about to shut down: nothing may be handed to it any more.
  func loopStopping() {
    state.withLockedValue { $0.loopStopped = true }
  }
}
