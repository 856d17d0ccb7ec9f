import RoshamboGame
import RoshamboProtocol

/// The drain before the server stops (``DrainStateMachine``): every connection is told
/// that the server is closing and when; nothing that would start a match is taken (a
/// new player, a rematch, a challenge, a tournament's entry or next round); the matches
/// under way may end. What is unfinished when the drain ends is in the journal, so it
/// resumes after the restart as after a crash.
extension HubCore {
  /// Starts the drain, ending in `withinMillis` at the latest; ``HubOutput/drained``
  /// follows once it is over.
  mutating func beginDrain(withinMillis: Int64) {
    let endsAt = now + max(0, withinMillis)
    act(
      state.drain.drainRequested(
        endsAt: endsAt, now: now, matchesRunning: state.anyMatchUnderWay), endsAt: endsAt)
  }

  /// The host insisted (a second signal), or the hub stops: the drain ends now, whatever
  /// still runs.
  mutating func endDrainNow() {
    act(state.drain.stopWaiting(), endsAt: nil)
  }

  /// Called on each flush while draining: over once no match runs.
  mutating func matchesChangedWhileDraining() {
    act(state.drain.matchesChanged(running: state.anyMatchUnderWay), endsAt: nil)
  }

  /// While draining: answers `origin` with `closing` (fatal for a `hello`, which would
  /// start something new) and returns true; false while serving.
  mutating func refusedWhileDraining(_ origin: Origin, fatal: Bool = false) -> Bool {
    guard state.drain.isDraining, let seconds = state.drain.secondsLeft(now: now) else {
      return false
    }
    reply(origin.link, .closing(seconds: seconds, fatal: fatal), re: origin.re)
    return true
  }

  mutating func act(_ action: DrainStateMachine.Action, endsAt: Int64?) {
    switch action {
    case .nothing:
      break
    case .announce(let seconds):
      announceClosing(seconds: seconds)
      if let endsAt { schedule(.drain, at: endsAt) }
    case .announceAndFinish(let seconds):
      announceClosing(seconds: seconds)
      finishDrain()
    case .finish:
      finishDrain()
    }
  }

  private mutating func finishDrain() {
    cancel(.drain)
    log(.info, "drained", ["matchesUnderWay": "\(state.matchesUnderWay)"])
    emit(.drained)
  }

  /// Tells every player, spectator and follower of the lobby that the server closes in
  /// `seconds`; the tournament's next round is not started.
  private mutating func announceClosing(seconds: Int) {
    cancelTournamentTimer()
    let notice = ServerMessage.error(.closing(seconds: seconds), re: nil)
    for member in state.sessions.members.values.sorted(by: { $0.link.id < $1.link.id }) {
      state.outbox.append(.message(member.link, notice))
    }
    for follower in state.sessions.followers.values.sorted(by: { $0.link.id < $1.link.id }) {
      state.outbox.append(.message(follower.link, notice))
    }
    scheduleFlush()
  }
}
