/// The hub's save-before-send lifecycle as a value: when a batch of accepted actions is
/// sealed and committed (on the hub's loop, or on the journal's thread, pipelined), when
/// what it sends goes out, what happens when a commit fails (the lobby is reloaded from
/// the journal, then play pauses until a probe write succeeds), and when a shutdown may
/// finish. Events in, actions out; ``HubCore`` does the work. `Flight` is what a sealed
/// batch carries to its delivery (the hub's frames; anything in tests).
///
/// ```
/// idle ──flush with actions──▶ committing ──succeeded──▶ idle (or committing the next)
///                                  │
///                                failed
///                                  ▼
///        idle ◀──probe ok── paused ◀──reloaded── reloading
/// ```
///
/// Invariants: at most one batch is in flight; a flight is delivered only after its own
/// commit succeeded (a failed one gives back only what survives a failure); no action is
/// accepted while reloading or paused; shutdown waiters are woken only when nothing is
/// in flight or being reloaded.
struct CommitStateMachine<Flight> {
  enum State {
    /// Nothing in flight; actions gather for the next commit.
    case idle
    /// One sealed batch is being committed; the next gathers meanwhile.
    case committing(Flight)
    /// A commit failed: the lobby is being read back from the journal; nothing is sent.
    case reloading
    /// The lobby is what the journal holds, and the journal cannot be written: actions
    /// are refused until a probe write succeeds.
    case paused(Probe)
  }

  /// Where the probe write of a paused hub is.
  enum Probe: Equatable {
    case scheduled
    case running
    /// Shutting down: no probe any more.
    case stopped
  }

  private(set) var state = State.idle
  /// Who waits for the hub to be idle (a shutdown).
  private var waiters = 0
  private var stopping = false

  /// Whether an action the rules accept may be reduced now (else it is answered
  /// `unavailable`, or dropped when no one asked for it).
  var acceptsActions: Bool {
    switch state {
    case .idle, .committing: true
    case .reloading, .paused: false
    }
  }

  /// Whether a batch is being committed or the lobby reloaded.
  var isBusy: Bool {
    switch state {
    case .committing, .reloading: true
    case .idle, .paused: false
    }
  }

  enum FlushAction: Equatable {
    /// Something is committing or reloading: what is pending waits for it.
    case wait
    /// Nothing to commit: send what is pending now; wake the shutdown waiters if asked.
    case deliverNow(wakeWaiters: Bool)
    /// Seal the pending actions into a flight and commit it on this loop if the journal
    /// is quick now (``sealed(_:)``), else on the journal's thread.
    case commitInline
  }

  /// The hub wants to flush what is pending; `hasActions`: whether accepted actions
  /// wait to be committed (when paused none can: no action is accepted then).
  mutating func flushRequested(hasActions: Bool) -> FlushAction {
    switch state {
    case .committing, .reloading:
      return .wait
    case .idle where hasActions:
      return .commitInline
    case .idle, .paused:
      return .deliverNow(wakeWaiters: takeWaiters())
    }
  }

  /// The hub sealed `flight` and is committing it (after `.commitInline`, or
  /// `.pipeline`, which commits on the journal's thread).
  mutating func sealed(_ flight: Flight) {
    guard case .idle = state else {
      preconditionFailure("a batch was sealed while another was in flight")
    }
    state = .committing(flight)
  }

  enum CommittedAction {
    /// Send what the flight carries, then flush again.
    case deliver(Flight)
    /// Seal what gathered meanwhile and hand it to the journal's thread at once (the disk
    /// works on it while this loop sends), then send what the flight carries.
    case pipeline(deliver: Flight)
    /// No flight was in flight (it was answered before: nothing to do).
    case none
  }

  /// The flight in flight is durable. `onJournalThread`: where it was committed;
  /// `hasActions`: whether the next batch already holds actions.
  mutating func commitSucceeded(onJournalThread: Bool, hasActions: Bool) -> CommittedAction {
    guard case .committing(let flight) = state else { return .none }
    state = .idle
    return onJournalThread && hasActions ? .pipeline(deliver: flight) : .deliver(flight)
  }

  /// The flight's commit failed: nothing of it but errors and closes may be sent; the
  /// hub reloads the lobby from the journal (returns the failed flight, to answer its
  /// senders), or nil when nothing was in flight.
  mutating func commitFailed() -> Flight? {
    guard case .committing(let flight) = state else { return nil }
    state = .reloading
    return flight
  }

  enum ReloadedAction: Equatable {
    /// Try a small write after the retry delay.
    case scheduleProbe
    /// Shutting down: stay paused, probe no more.
    case none
  }

  /// The lobby is back to what the journal holds (or could not be read: the lobby in
  /// memory stays, and so does the pause). The hub flushes next.
  mutating func reloaded() -> ReloadedAction {
    guard case .reloading = state else { return .none }
    state = .paused(stopping ? .stopped : .scheduled)
    return stopping ? .none : .scheduleProbe
  }

  /// The retry delay passed: probe (true) or not (shutting down, or not paused).
  mutating func probeDue() -> Bool {
    guard case .paused(.scheduled) = state else { return false }
    state = .paused(.running)
    return true
  }

  enum ProbedAction: Equatable {
    /// The journal can be written: play resumes (the hub reconciles the lobby with its
    /// connections and restarts the timers).
    case resume
    case scheduleProbe
    case none
  }

  /// The probe write finished.
  mutating func probeFinished(succeeded: Bool) -> ProbedAction {
    guard case .paused(.running) = state else { return .none }
    if succeeded {
      state = .idle
      return stopping ? .none : .resume
    }
    state = .paused(stopping ? .stopped : .scheduled)
    return stopping ? .none : .scheduleProbe
  }

  enum ShutdownAction: Equatable {
    /// Nothing in flight: done now; `cancelProbe`: a scheduled probe is to be cancelled.
    case finished(cancelProbe: Bool)
    /// Wait: the waiter is woken by a later `.deliverNow(wakeWaiters: true)`.
    case wait(cancelProbe: Bool)
  }

  /// The hub is stopping (after flushing what is pending): no more probes; finish when
  /// nothing is in flight.
  mutating func shutdownRequested() -> ShutdownAction {
    stopping = true
    var cancelProbe = false
    if case .paused(let probe) = state {
      cancelProbe = probe == .scheduled
      state = .paused(.stopped)
    }
    if isBusy {
      waiters += 1
      return .wait(cancelProbe: cancelProbe)
    }
    return .finished(cancelProbe: cancelProbe)
  }

  private mutating func takeWaiters() -> Bool {
    defer { waiters = 0 }
    return waiters > 0
  }
}
