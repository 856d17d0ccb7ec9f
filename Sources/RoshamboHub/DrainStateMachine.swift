/// The server's way out, as a value: it serves; asked to drain, it starts no new match
/// and lets the running ones end; it is drained once none runs, or when it stops waiting
/// (the drain's time is up, or the host insisted with a second signal).
///
/// Invariant: once draining it never serves again, and `finish` is returned once.
struct DrainStateMachine: Equatable {
  enum State: Equatable {
    case serving
    /// No new match starts; the drain ends at `endsAt` (ms since 1970) at the latest.
    case draining(endsAt: Int64)
    case drained
  }

  /// What the hub does after an event.
  enum Action: Equatable {
    case nothing
    /// Tell every connection that the server closes in `seconds`, and wait for the
    /// running matches.
    case announce(seconds: Int)
    /// Tell every connection, and finish at once: no match runs.
    case announceAndFinish(seconds: Int)
    /// The drain is over: the server may stop.
    case finish
  }

  private(set) var state = State.serving

  var isDraining: Bool {
    if case .serving = state { return false }
    return true
  }

  /// Whole seconds left at `now`, rounded up, while draining (0 once drained).
  func secondsLeft(now: Int64) -> Int? {
    switch state {
    case .serving: nil
    case .draining(let endsAt): Self.seconds(from: now, to: endsAt)
    case .drained: 0
    }
  }

  /// Whole seconds from `now` to `end` (ms), rounded up: a player is never told less time
  /// than there is.
  private static func seconds(from now: Int64, to end: Int64) -> Int {
    Int((max(0, end - now) + 999) / 1_000)
  }

  /// The host asked the server to stop, by `endsAt` at the latest. A second request while
  /// draining ends it now.
  mutating func drainRequested(endsAt: Int64, now: Int64, matchesRunning: Bool) -> Action {
    switch state {
    case .serving:
      let seconds = Self.seconds(from: now, to: endsAt)
      if matchesRunning && endsAt > now {
        state = .draining(endsAt: endsAt)
        return .announce(seconds: seconds)
      }
      state = .drained
      return .announceAndFinish(seconds: 0)
    case .draining:
      return stopWaiting()
    case .drained:
      return .nothing
    }
  }

  /// Matches ended or started: drained once none runs.
  mutating func matchesChanged(running: Bool) -> Action {
    guard case .draining = state, !running else { return .nothing }
    state = .drained
    return .finish
  }

  /// The drain's time is up, or the host insisted: drained whatever still runs.
  mutating func stopWaiting() -> Action {
    guard case .draining = state else { return .nothing }
    state = .drained
    return .finish
  }
}
