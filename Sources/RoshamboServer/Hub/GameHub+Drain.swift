import NIOCore
import RoshamboGame
import RoshamboProtocol

/// The drain before the server stops (``DrainStateMachine``): every connection is told
/// that the server is closing and when; nothing that would start a match is taken (a
/// new player, a rematch, a challenge, a tournament's entry or next round); the matches
/// under way may end. What is unfinished when the drain ends is in the journal, so it
/// resumes after the restart as after a crash.
extension GameHub {
  /// Starts the drain, ending in `withinMillis` at the latest; returns how many matches
  /// are under way and a future that completes once the drain is over.
  func beginDrain(withinMillis: Int64) -> (running: Int, ended: EventLoopFuture<Void>) {
    let promise = drainEnded ?? loop.makePromise(of: Void.self)
    drainEnded = promise
    let running = matchesUnderWay
    let at = now()
    let endsAt = at + max(0, withinMillis)
    act(drain.drainRequested(endsAt: endsAt, now: at, matchesRunning: running > 0), endsAt: endsAt)
    return (running, promise.futureResult)
  }

  /// The host insisted (a second signal), or the hub stops: the drain ends now, whatever
  /// still runs.
  func endDrainNow() {
    act(drain.stopWaiting(), endsAt: nil)
  }

  /// Called on each flush while draining: over once no match runs.
  func matchesChangedWhileDraining() {
    let running = lobby.rooms.values.contains { $0.phase == .choosing }
    act(drain.matchesChanged(running: running), endsAt: nil)
  }

  /// While draining: answers `origin` with `closing` (fatal for a `hello`, which would
  /// start something new) and returns true; false while serving.
  func refusedWhileDraining(_ origin: Origin, fatal: Bool = false) -> Bool {
    guard drain.isDraining, let seconds = drain.secondsLeft(now: now()) else { return false }
    reply(origin.link, .closing(seconds: seconds, fatal: fatal), re: origin.re)
    return true
  }

  private func act(_ action: DrainStateMachine.Action, endsAt: Int64?) {
    switch action {
    case .nothing:
      break
    case .announce(let seconds):
      announceClosing(seconds: seconds)
      if let endsAt {
        drainTimer = loop.assumeIsolated().scheduleTask(
          in: .milliseconds(max(0, endsAt - now()))
        ) {
          self.drainTimer = nil
          self.act(self.drain.stopWaiting(), endsAt: nil)
        }
      }
    case .announceAndFinish(let seconds):
      announceClosing(seconds: seconds)
      finishDrain()
    case .finish:
      finishDrain()
    }
  }

  private func finishDrain() {
    drainTimer?.cancel()
    drainTimer = nil
    logger.info("drained", metadata: ["matchesUnderWay": "\(matchesUnderWay)"])
    drainEnded?.succeed()
    drainEnded = nil
  }

  private var matchesUnderWay: Int { lobby.rooms.values.count { $0.phase == .choosing } }

  /// Tells every player, spectator and follower of the lobby that the server closes in
  /// `seconds`; the tournament's next round is not started.
  private func announceClosing(seconds: Int) {
    tournamentTimer?.cancel()
    tournamentTimer = nil
    let notice = ServerMessage.error(.closing(seconds: seconds), re: nil)
    for member in sessions.members.values { outbox.append(.message(member.link, notice)) }
    for follower in sessions.followers.values { outbox.append(.message(follower.link, notice)) }
    scheduleFlush()
  }
}
