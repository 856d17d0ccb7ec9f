import RoshamboGame
import RoshamboProtocol

/// The hub: one value and one function. ``handle(_:now:)`` takes what happened
/// (``HubInput``) and returns what to do (``HubOutput``); the rules decide through
/// ``HubReduction``, and every side effect (a commit, a frame, a timer, a read, a log
/// line) is a returned value its driver carries out. No clock, no socket, no thread.
///
/// Invariants: `handle` is never called from inside itself (it traps); what would
/// re-enter is a follow-up handled after the current input, in the same call. An
/// accepted action is committed before anything it changed is delivered; when a commit
/// fails, the lobby goes back to what the journal holds and the sessions to what they
/// were when the failed batch began.
package struct HubCore {
  package internal(set) var state: HubState
  let configuration: HubConfiguration
  /// The moment of the input being handled (ms since 1970).
  private(set) var now: Int64 = 0
  private var outputs: [HubOutput] = []
  private var followUps: [FollowUp] = []
  private var handling = false

  /// What an input leaves to be done after it, as the store's dispatch rule queues.
  enum FollowUp {
    /// The part of a tournament's change that comes after the action that caused it.
    case tournament(LobbyEvent.TournamentEvent)
    /// `name` finished the match in `room`: called to another seat waiting for them, after
    /// that match's last state, not before.
    case callToWaitingSeat(name: String, finished: String)
    /// Challenge `challenge` was accepted: both sides are seated in a new room, after the
    /// board's change is settled (seating them settles their departure from the board).
    case seatChallenge(ChallengeBoard.Challenge, origin: Origin?)
  }

  /// `journaledThrough` is the number of the journal's last row (0 without a journal).
  package init(lobby: LobbyState, journaledThrough: Int64 = 0, configuration: HubConfiguration) {
    self.configuration = configuration
    self.state = HubState(
      lobby: lobby, journaledThrough: journaledThrough, configuration: configuration)
  }

  /// Handles `input` at `now` (ms since 1970), then what it left to follow; returns what
  /// to do, in order.
  package mutating func handle(_ input: HubInput, now: Int64) -> [HubOutput] {
    precondition(!handling, "HubCore.handle was called from inside itself")
    handling = true
    defer { handling = false }
    self.now = now
    process(input)
    while !followUps.isEmpty { followUp(followUps.removeFirst()) }
    defer { outputs.removeAll(keepingCapacity: true) }
    return outputs
  }

  private mutating func process(_ input: HubInput) {
    switch input {
    case .start(let releasing): start(releasing: releasing)
    case .received(let message, let peer): receive(message, from: peer)
    case .refused(let peer, let error, let re):
      state.outbox.append(.message(peer, .error(error, re: re)))
      state.outbox.append(.close(peer))
      scheduleFlush()
    case .closed(let peer): closed(peer)
    case .timerFired(.flush):
      flush()
    case .timerFired(let timer):
      guard let entry = state.timers.removeValue(forKey: timer) else { return }
      stopped(timer)
      fired(timer, entry)
    case .committed(let result, let onJournalThread):
      committed(result, onJournalThread: onJournalThread)
    case .reloaded(let result): reloaded(result)
    case .probed(let succeeded): probed(succeeded: succeeded)
    case .snapshotWritten(let result):
      state.snapshots.writing = false
      if case .failure(let error) = result {
        log(
          .error, "snapshot failed; the journal keeps every action and grows until one succeeds",
          ["error": error.description])
      }
    case .standingsRead(let result): standingsRead(result)
    case .sharedLeadersRead(let leaders): sharedLeadersRead(leaders)
    case .fleetNamesRead(let rows): fleetNamesRead(rows)
    case .recordRead(let reading, let result): recordRead(reading, result)
    case .boardAskedForRecord(let request, let match):
      sendRecord(of: match, to: .board(request: request))
    case .drainRequested(let within): beginDrain(withinMillis: within)
    case .drainCut: endDrainNow()
    case .shutdown: shutdown()
    }
  }

  private mutating func fired(_ timer: HubTimer, _ entry: HubState.TimerEntry) {
    let at = max(now, entry.at)
    switch timer {
    case .flush:
      flush()
    case .lobbyView:
      scheduleFlush()
    case .deadline(let room):
      perform(.room(room, .deadlinePassed(round: entry.round, at: at)))
    case .grace(let room, let seat):
      perform(.room(room, .graceExpired(seat: seat, at: at)))
    case .tournament:
      tournamentTimerFired()
    case .entryGrace(let name):
      entryGraceEnded(name)
    case .challengeExpiry(let id):
      settle(state.challenges.reduce(.expire(id: id, at: now)))
    case .drain:
      act(state.drain.stopWaiting(), endsAt: nil)
    case .probe:
      probeJournal()
    case .standings:
      readLeaders()
    case .heldReveal:
      scheduleFlush()
    }
  }

  private mutating func followUp(_ next: FollowUp) {
    switch next {
    case .tournament(let event): tournamentFollowUp(event)
    case .callToWaitingSeat(let name, let finished):
      callToWaitingSeat(name, after: finished)
    case .seatChallenge(let challenge, let origin):
      seat(challenge, origin: origin)
    }
  }

  // MARK: - What the handlers return

  mutating func emit(_ output: HubOutput) {
    outputs.append(output)
  }

  /// A sentence for the host's terminal, when the host hears the party's news.
  mutating func tell(_ sentence: String) {
    if configuration.tellsNews { emit(.news(sentence)) }
  }

  mutating func queue(_ next: FollowUp) {
    followUps.append(next)
  }

  mutating func log(
    _ level: HubLog.Level, _ message: String, _ metadata: [String: String] = [:],
    event: HubLog.Event? = nil
  ) {
    guard level >= configuration.logLevel else { return }
    outputs.append(.log(HubLog(level, message, metadata, event: event)))
  }

  /// A log line whose metadata is made only when the driver writes its level (the lines
  /// on the pick's path: a pick, a resolved round, a match over).
  mutating func log(
    _ level: HubLog.Level, _ message: String, event: HubLog.Event? = nil,
    lazily metadata: () -> [String: String]
  ) {
    guard level >= configuration.logLevel else { return }
    outputs.append(.log(HubLog(level, message, metadata(), event: event)))
  }

  mutating func count(_ counted: HubCount) {
    outputs.append(.count(counted))
  }

  /// Fires `timer` at `at`, replacing the one of that key (a deadline keeps its round).
  mutating func schedule(_ timer: HubTimer, at: Int64, round: Int = 0) {
    let entry = HubState.TimerEntry(at: at, round: round)
    guard state.timers[timer] != entry else { return }
    state.timers[timer] = entry
    if case .grace(let room, let seat) = timer {
      state.seatsInGrace.began(
        .init(room: room, seat: seat),
        waitingFor: state.lobby.rooms[room]?.seats[seat]?.name ?? "")
    }
    outputs.append(.schedule(timer, at: at))
  }

  mutating func cancel(_ timer: HubTimer) {
    guard state.timers.removeValue(forKey: timer) != nil else { return }
    stopped(timer)
    outputs.append(.cancel(timer))
  }

  /// `timer` no longer runs (cancelled or fired): a grace timer's seat leaves
  /// ``HubState/seatsInGrace``.
  private mutating func stopped(_ timer: HubTimer) {
    guard case .grace(let room, let seat) = timer else { return }
    state.seatsInGrace.ended(.init(room: room, seat: seat))
  }

  /// Commits and sends what gathered once the driver has run what it queued before, so
  /// busy moments commit many actions in one transaction.
  mutating func scheduleFlush() {
    guard !state.flushScheduled else { return }
    state.flushScheduled = true
    // Not kept in the timers table: it runs once the driver's queue turns, and a flush
    // that finds nothing to do does nothing.
    outputs.append(.schedule(.flush, at: now))
  }

  /// Answers `peer` with `error` (closing it after, when the error is fatal).
  mutating func reply(_ peer: Peer, _ error: ProtocolError, re: Int?) {
    count(.refused(error.code))
    state.outbox.append(.message(peer, .error(error, re: re)))
    if error.fatal { state.outbox.append(.close(peer)) }
    scheduleFlush()
  }

  /// The grace period in whole seconds, rounded up, for what players are told.
  var graceSeconds: Int64 { Self.seconds(ofGrace: state.lobby.defaults.graceMillis) }

  /// A grace of `millis` in whole seconds, rounded up, as people are told it.
  static func seconds(ofGrace millis: Int64) -> Int64 { (max(0, millis) + 999) / 1_000 }

  // MARK: - Start and stop

  /// After a restart no connection is attached: every seat that was connected starts its
  /// grace now, spectators are gone, and every deadline and grace is scheduled again.
  private mutating func start(releasing: [String]) {
    // A board has the lobby from the start, whoever follows it.
    if configuration.feedsBoard {
      state.feed.lobbyChanged()
      scheduleFlush()
    }
    resumeTournament()
    readLeaders()
    reconcile()
    // Names held before their use was kept start their time now.
    for name in state.lobby.names.namesNeverUsed { perform(.names(.used(name: name, at: now))) }
    offerHeldNames()
    // A release acts once, at the first start that asks for it; while it is asked for
    // again it is remembered (journaled), so the next holder keeps the name. Once a start
    // no longer asks, it is forgotten, and a later release acts again.
    let asked = Set(releasing.map(NameBook.folded))
    for name in state.lobby.names.released.sorted() where !asked.contains(name) {
      perform(.names(.releaseForgotten(name: name)))
    }
    for name in releasing {
      if state.lobby.names.wasReleased(name) {
        log(
          .notice,
          "name released at an earlier start; whoever holds it now keeps it (remove "
            + "--release-name from the command line)", ["name": LogText.quoted(name)])
        continue
      }
      let holder = state.lobby.names.holder(of: name)
      perform(.names(.release(name: name)))
      if let holder { offer(.release, name, identity: holder) }
      log(
        .notice, "name released: the next player to use it holds it",
        ["name": LogText.quoted(name)])
    }
  }

  /// Makes everything pending durable; ``HubOutput/idle`` follows once it is sent.
  private mutating func shutdown() {
    state.stopping = true
    endDrainNow()
    flush()
    for timer in state.timers.keys.sorted(by: { "\($0)" < "\($1)" }) where timer != .probe {
      cancel(timer)
    }
    switch state.commits.shutdownRequested() {
    case .finished(let cancelProbe):
      if cancelProbe { cancel(.probe) }
      emit(.idle)
    case .wait(let cancelProbe):
      if cancelProbe { cancel(.probe) }
    }
  }
}
