import Redux
import RoshamboGame
import RoshamboProtocol

/// The player: one value and one function. ``handle(_:now:)`` takes what happened
/// (``PlayerInput``) and returns what to do (``PlayerOutput``): the `hello` and its
/// welcome, the match through ``ClientReducer`` (picks, commitments and reveals, the
/// fair-play checks), the keepalive (``Keepalive``), the pace every frame keeps
/// (``Pacer``), and a lost connection taken back with the seat's token under one
/// ``ReconnectPolicy``. No clock, no socket, no thread: `now` is passed in, and every
/// side effect is a returned value its driver carries out.
///
/// Invariants: `handle` is never called from inside itself (it traps); message `id`s are
/// numbered here, once, rising across connections; no frame goes out faster than the
/// server's announced rate (``Pacer``), and a frame the server dropped as `rate_limited`
/// goes again.
public struct PlayerCore: Sendable {
  public let configuration: PlayerConfiguration
  public private(set) var state = PlayerState()
  /// The moment of the input being handled (ms since 1970, on a clock that only rises).
  private var now: Int64 = 0
  private var outputs: [PlayerOutput] = []
  private var handling = false
  /// Set when the session ended during the input being handled.
  private var endedNow = false

  /// How long after the server could not save a pick it is sent again: the server tries
  /// its journal again every second.
  static let retryMillis: Int64 = 1_000

  public init(configuration: PlayerConfiguration) {
    self.configuration = configuration
  }

  /// Handles `input` at `now` (ms since 1970, on a clock that only rises); returns what
  /// to do, in order. A change to the match ends with ``PlayerOutput/show``, and the end
  /// of the session with ``PlayerOutput/ended(_:)``, last.
  public mutating func handle(_ input: PlayerInput, now: Int64) -> [PlayerOutput] {
    precondition(!handling, "PlayerCore.handle was called from inside itself")
    handling = true
    defer { handling = false }
    self.now = now
    let before = state.match
    process(input)
    drawNonceAhead()
    if state.match != before { outputs.append(.show) }
    if endedNow, let end = state.end {
      endedNow = false
      outputs.append(.ended(end))
    }
    defer { outputs.removeAll(keepingCapacity: true) }
    return outputs
  }

  private mutating func process(_ input: PlayerInput) {
    switch input {
    case .evidenceSaved(let path):
      reduce(.evidenceSaved(path: path))
      if state.evidencePending, case .ended(.cheated(let reason)) = state.phase {
        state.evidencePending = false
        finish(.cheated(state.match.context.notice ?? reason))
      }
      return
    case .notice(let text):
      reduce(.notice(text))
      return
    case .tick:
      reduce(.tick(now: now))
      return
    default:
      break
    }
    if case .ended = state.phase { return }
    switch input {
    case .start:
      guard case .idle = state.phase else { return }
      state.pacer = Pacer(now: now)
      state.phase = .connecting
      emit(.connect)
    case .startAfterLoss:
      guard case .idle = state.phase else { return }
      state.pacer = Pacer(now: now)
      guard configuration.reconnects else {
        state.phase = .connecting
        emit(.connect)
        return
      }
      state.phase = .reconnecting(PlayerState.Outage(since: now, attempt: 1, trying: true))
      reconnecting(1)
      schedule(.giveUp, at: configuration.policy.givesUp(lostAt: now, closingSince: nil))
      emit(.connect)
    case .connected: connected()
    case .connectFailed(let why): connectFailed(why)
    case .message(let message): received(message)
    case .brokeProtocol(let violation):
      guard state.link != nil else { return }
      violated(violation)
    case .closed(let why):
      guard state.link != nil else { return }
      lost(why)
    case .timerFired(let timer):
      guard state.timers.removeValue(forKey: timer) != nil else { return }
      fired(timer)
    case .command(let command): perform(command)
    case .nonce(let nonce, let weapon): reduce(.commit(weapon, nonce: nonce))
    case .nonceDrawn(let nonce): state.nextNonce.drawn(nonce)
    case .evidenceSaved, .notice, .tick: break
    }
  }

  // MARK: - The connection

  private mutating func connected() {
    let outage: PlayerState.Outage?
    switch state.phase {
    case .connecting: outage = nil
    case .reconnecting(let lost) where lost.trying:
      outage = lost
      state.pacer.reconnected(now: now)
    default: return
    }
    let link = PlayerState.Link(keepalive: newKeepalive(), connectedAt: now)
    reduce(.connection(.connected))
    if followsLobby {
      state.phase = .following(
        link,
        LobbyFollowing(
          name: configuration.name, takesChallenges: configuration.takesChallenges,
          outage: outage))
      submit(configuration.greeting(id: nextID()))
    } else {
      state.phase = .awaitingWelcome(link, outage: outage)
      // A seat is taken back with its token (one the lobby gave, in the lobby's room); a
      // spectator has none, and watches again.
      if let token = state.match.token {
        submit(configuration.greeting(id: nextID(), resume: token, room: state.match.room))
      } else {
        submit(configuration.greeting(id: nextID(), resume: configuration.resume))
      }
    }
    stepKeepalive()
  }

  /// Whether this session follows the lobby now (or will, on its next connection): a
  /// lobby follower the server has not seated.
  private var followsLobby: Bool {
    configuration.role == .lobby && state.match.token == nil
  }

  private func newKeepalive() -> Keepalive {
    Keepalive(
      intervalMillis: configuration.keepaliveMillis,
      silenceLimitMillis: 2 * configuration.keepaliveMillis, now: now)
  }

  private mutating func connectFailed(_ why: String) {
    switch state.phase {
    case .connecting:
      finish(.couldNotConnect(why))
    case .reconnecting(var outage) where outage.trying:
      outage.trying = false
      outage.attempt += 1
      state.phase = .reconnecting(outage)
      reconnecting(outage.attempt)
      schedule(.reconnect, at: now + waitBefore(outage.attempt))
    default:
      break
    }
  }

  /// The connection is gone (closed by the server, the network, or by this core): taken
  /// back with the seat's token under the policy, or the end of the session.
  private mutating func lost(_ why: String?) {
    guard let link = state.link else { return }
    var outage: PlayerState.Outage?
    var seatMayWait = false
    if case .awaitingWelcome(_, let replacing) = state.phase { outage = replacing }
    if case .following(_, let following) = state.phase {
      outage = following.outage
      seatMayWait = following.seatMayWait
    }
    cancel(.keepalive)
    cancel(.pacing)
    // A spectator has no token and watches again without one; so does a lobby follower.
    let canResume =
      state.match.token != nil || configuration.role == .spectator || followsLobby
    guard !state.quitting, configuration.reconnects, canResume else {
      finish(state.quitting ? .left : .closed(why))
      return
    }
    let policy = configuration.policy
    if let said = link.closingSaidAt {
      if state.closingSince == nil || said - link.connectedAt > policy.closingGraceMillis {
        state.closingSince = now
      }
    } else {
      state.closingSince = nil
    }
    if let since = state.closingSince, now - since >= policy.closingPatienceMillis {
      finish(.gaveUp(closingGivenUp))
      return
    }
    var next = outage ?? PlayerState.Outage(since: now, attempt: 0, trying: false)
    next.seatMayWait = next.seatMayWait || seatMayWait
    next.attempt += 1
    next.trying = false
    state.phase = .reconnecting(next)
    reconnecting(next.attempt)
    schedule(.reconnect, at: now + waitBefore(next.attempt))
    schedule(.giveUp, at: policy.givesUp(lostAt: next.since, closingSince: state.closingSince))
  }

  /// Says that try `attempt` to reach the server again is under way, or next.
  private mutating func reconnecting(_ attempt: Int) {
    reduce(.connection(.reconnecting(attempt: attempt)))
    if followsLobby { emit(.lobby(.reconnecting(attempt: attempt))) }
  }

  private func waitBefore(_ attempt: Int) -> Int64 {
    configuration.policy.wait(beforeAttempt: attempt, closing: state.closingSince != nil)
  }

  private mutating func fired(_ timer: PlayerTimer) {
    switch timer {
    case .keepalive:
      stepKeepalive()
    case .pacing:
      guard state.link != nil else { return }
      carryOut(state.pacer.tick(now: now))
    case .reconnect:
      guard case .reconnecting(var outage) = state.phase, !outage.trying else { return }
      outage.trying = true
      state.phase = .reconnecting(outage)
      emit(.connect)
    case .giveUp:
      let since: Int64
      switch state.phase {
      case .reconnecting(let outage): since = outage.since
      case .awaitingWelcome(_, let outage?):
        since = outage.since
        emit(.close)
      case .following(_, let following):
        guard let outage = following.outage else { return }
        since = outage.since
        emit(.close)
      default: return
      }
      if let closing = state.closingSince,
        now - closing >= configuration.policy.closingPatienceMillis
      {
        finish(.gaveUp(closingGivenUp))
        return
      }
      finish(
        .gaveUp(
          "gave up reconnecting after \((now - since) / 1_000) s; check that the server is "
            + "running"))
    case .retry:
      // Only on a connection: the next one checks the first view anyway.
      guard state.link != nil else { return }
      reduce(.retryUnsaved)
    }
  }

  /// The end of waiting for a server that kept saying it is closing, in the player's words.
  private var closingGivenUp: String {
    "gave up: the server has kept saying it is closing each time it was reached again, for "
      + "\(configuration.policy.closingPatienceMillis / 1_000) s; try again later, or ask its "
      + "host whether it is being stopped"
  }

  /// The keepalive's next step: a `ping` due, the server taken for lost, or the timer
  /// for the next step.
  private mutating func stepKeepalive() {
    while var link = state.link {
      let step = link.keepalive.step(at: now)
      if case .ping = step {
        let id = nextID()
        link.keepalive.pingSent(id: id)
        setLink(link)
        submit(.ping(id: id))
        continue
      }
      setLink(link)
      switch step {
      case .lost(let silent):
        emit(.close)
        lost(
          "the server stopped answering (nothing for \(silent / 1_000) s, pings unanswered)")
      case .wait(let until):
        scheduleNoLater(.keepalive, at: until)
      case .ping:
        break
      }
      return
    }
  }

  // MARK: - What the server says

  private mutating func received(_ raw: ServerMessage) {
    guard var link = state.link else { return }
    link.keepalive.heard(at: now)
    setLink(link)
    if case .error(let error, let re?) = raw, error.code == .rateLimited, !error.fatal,
      let output = state.pacer.refused(re: re, now: now)
    {
      // Dropped for coming too fast, and sent again by the pacer: nothing was lost.
      carryOut(output)
      return
    }
    if case .following(_, let following) = state.phase {
      receivedInLobby(raw, link: link, following: following)
      return
    }
    var welcomed = false
    if case .seated = state.phase { welcomed = true }
    let outcome = ServerIntake.outcome(
      of: raw, state: state.match, welcomed: welcomed, firstAfterWelcome: link.firstAfterWelcome)
    if case .action(.welcome) = outcome, case .welcome(_, _, _, let rate) = raw {
      carryOut(state.pacer.announced(rate, now: now))
    }
    if case .state = raw {
      link.firstAfterWelcome = false
      setLink(link)
    }
    switch outcome {
    case .action(let action):
      if case .welcome = action {
        link.firstAfterWelcome = true
        state.phase = .seated(link)
        cancel(.giveUp)
      }
      if case .serverError(let error) = action, error.code == .timeout, welcomed {
        // The server heard nothing for a while and took this client for gone: it was
        // stopped (Ctrl-Z) or asleep. The connection is lost, not refused.
        emit(.close)
        lost(
          "the server heard nothing from this terminal for a while (was it stopped, or "
            + "asleep?)")
        return
      }
      if case .serverError(var error) = action, error.fatal || !welcomed {
        // A refused hello (a full room, no such room, a bad name…) ends the session as a
        // fatal error does: there is nothing to wait for on this connection.
        error.fatal = true
        reduce(.serverError(error))
        emit(.close)
        finish(.refused(error))
        return
      }
      if case .serverError(let error) = action, error.code == .closing {
        if link.closingSaidAt == nil {
          link.closingSaidAt = now
          setLink(link)
        }
        reduce(.serverClosing(closesAt: now + Int64(error.seconds ?? 0) * 1_000))
        return
      }
      reduce(action)
    case .violation(let violation):
      violated(violation)
    case .pong(let id):
      if let trip = link.keepalive.heard(at: now, pong: id) {
        setLink(link)
        reduce(.roundTrip(millis: Double(trip)))
      }
    }
  }

  /// What the server says to a lobby follower: its views and challenges shown, a patch
  /// out of step answered with `lobbyResync`, and a seat taken on the same connection.
  private mutating func receivedInLobby(
    _ raw: ServerMessage, link: PlayerState.Link, following: LobbyFollowing
  ) {
    var link = link
    var following = following
    if case .pong(let id) = raw {
      if let trip = link.keepalive.heard(at: now, pong: id) {
        reduce(.roundTrip(millis: Double(trip)))
      }
      state.phase = .following(link, following)
      return
    }
    let replacing = following.outage != nil
    let step = following.receive(raw)
    state.phase = .following(link, following)
    if replacing, following.outage == nil { cancel(.giveUp) }
    switch step {
    case .nothing:
      break
    case .closing(let seconds, let thenCloses):
      if link.closingSaidAt == nil {
        link.closingSaidAt = now
        state.phase = .following(link, following)
      }
      let closesAt = now + Int64(seconds) * 1_000
      reduce(.serverClosing(closesAt: closesAt))
      emit(.lobby(.closing(seconds: seconds, closesAt: closesAt)))
      if thenCloses {
        emit(.close)
        lost("the server is closing")
      }
    case .news(let news):
      emit(.lobby(news))
    case .resync:
      submit(.lobbyResync(id: nextID()))
    case .seated(let room, let seat, let token):
      // The match is played on this connection: its first state may repeat the view.
      link.firstAfterWelcome = true
      state.phase = .seated(link)
      cancel(.giveUp)
      if case .welcome(_, _, _, let rate) = raw {
        carryOut(state.pacer.announced(rate, now: now))
      }
      reduce(.welcome(room: room, seat: seat, token: token))
      emit(.lobby(.seated(room: room)))
    case .refused(let error):
      reduce(.serverError(error))
      emit(.close)
      finish(.refused(error))
    case .timedOut:
      emit(.close)
      lost(
        "the server heard nothing from this terminal for a while (was it stopped, or asleep?)")
    case .violation(let violation):
      violated(violation)
    }
  }

  /// The server broke the protocol: the connection ends, and the session with it.
  private mutating func violated(_ violation: String) {
    emit(.close)
    // The connection is gone before the violation is judged: nothing more is sent.
    state.phase = .ended(.brokeProtocol(violation))
    // In a fair room, a round committed in that can now never be checked is a lie.
    reduce(.brokeProtocol(violation))
    if case .ended(.brokeProtocol) = state.phase { finish(.brokeProtocol(violation)) }
  }

  // MARK: - The match

  private mutating func perform(_ command: PlayerCommand) {
    switch command {
    case .pick(let weapon): reduce(.choose(weapon))
    case .rematch: reduce(.rematch)
    case .leave where !followsLobby:
      reduce(.quit)
      // Between connections there is nobody to tell.
      if state.link == nil { finish(.left) }
    case .leave, .hangUp:
      // A lobby follower has no seat to give up: closing is leaving.
      state.quitting = true
      if state.link != nil { emit(.close) }
      finish(.left)
    case .challenge(let name, let bestOf, let ruleset, let fair):
      guard state.lobby != nil else { return }
      submit(.challenge(name: name, bestOf: bestOf, ruleset: ruleset, fair: fair, id: nextID()))
    case .accept(let challenge):
      guard state.lobby != nil else { return }
      submit(.accept(challenge: challenge, id: nextID()))
    case .decline(let challenge, let forTheEvening):
      guard state.lobby != nil else { return }
      submit(.decline(challenge: challenge, block: forTheEvening, id: nextID()))
    case .askRecord(let match):
      guard case .following(let link, var following) = state.phase else { return }
      let id = nextID()
      following.ask(record: match, id: id)
      state.phase = .following(link, following)
      submit(.match(match: match, id: id))
    case .enterTournament:
      guard case .following(let link, var following) = state.phase else { return }
      following.enter()
      state.phase = .following(link, following)
      submit(.enter(id: nextID()))
    case .withdrawFromTournament:
      guard state.lobby != nil else { return }
      submit(.withdraw(id: nextID()))
    }
  }

  /// Reduces `action` into the match and carries out what the reducer returned.
  private mutating func reduce(_ action: ClientAction) {
    let effects = ClientReducer().reduce(into: &state.match, effectsOf: action)
    for effect in effects { perform(effect) }
  }

  private mutating func perform(_ effect: ClientEffect) {
    switch effect {
    case .send(let message):
      // Without a connection nothing is numbered: the match's state says what to send on
      // the next one.
      guard state.link != nil else { return }
      switch message {
      case .choose(let round, let weapon):
        submit(.choose(round: round, weapon: weapon, id: nextID()))
      case .commit(let round, let digest):
        submit(.commit(round: round, digest: digest, id: nextID()))
      case .reveal(let round, let weapon, let nonce):
        submit(.reveal(round: round, weapon: weapon, nonce: nonce, id: nextID()))
      case .rematch:
        submit(.rematch(id: nextID()))
      }
    case .makeCommitment(let weapon):
      // With a nonce drawn ahead the pick only hashes; otherwise the driver makes one now.
      if let nonce = state.nextNonce.take() {
        reduce(.commit(weapon, nonce: nonce))
      } else {
        emit(.makeNonce(weapon))
      }
    case .keepSeat(let room, let token):
      // A player who left keeps no seat, whatever the server says before the close (a
      // rematch's first state): a program started again would ask for a seat given up.
      guard !state.quitting, state.keptSeat != .kept(room: room, token: token) else { return }
      state.keptSeat = .kept(room: room, token: token)
      emit(.keepSeat(room: room, token: token))
    case .forgetSeat:
      forgetSeat()
    case .retryLater:
      schedule(.retry, at: now + Self.retryMillis)
    case .matchReady:
      emit(.matchReady)
    case .keepEvidence(let evidence):
      // Written once, whatever else the player does meanwhile; then the match is left.
      state.quitting = true
      emit(.keepEvidence(evidence))
      let reason =
        state.match.context.notice
        ?? "the server cheated in round \(evidence.round): \(evidence.reason)"
      if state.link != nil {
        submit(.leave(id: nil))
        emit(.close)
      }
      // Over, but said only once the evidence is written (``PlayerInput/evidenceSaved``).
      state.phase = .ended(.cheated(reason))
      state.timers = [:]
      state.evidencePending = true
    case .saveRecord:
      if let record = state.match.ownRecord(finishedAt: now) { emit(.saveRecord(record)) }
    case .leave:
      state.quitting = true
      forgetSeat()
      submit(.leave(id: nil))
    }
  }

  /// A player seated in a fair room has the nonce of its next commitment drawn as soon as
  /// it has none: on its first view, and right after each commitment is sent (while it
  /// waits for the server), so that no pick waits on the secure generator.
  private mutating func drawNonceAhead() {
    guard case .seated = state.phase, let view = state.match.view, view.fair, view.you != nil,
      state.nextNonce.asks()
    else { return }
    emit(.drawNonce)
  }

  private mutating func forgetSeat() {
    guard state.keptSeat != .forgotten else { return }
    state.keptSeat = .forgotten
    emit(.forgetSeat)
  }

  private mutating func finish(_ end: PlayerEnd) {
    state.phase = .ended(end)
    state.timers = [:]
    endedNow = true
    reduce(.connection(.closed(end.reason)))
  }

  // MARK: - Sending

  private mutating func nextID() -> Int {
    state.lastID += 1
    return state.lastID
  }

  /// `message` goes to the server as soon as the pace allows; without a connection it is
  /// dropped (the match's state says what to send again on the next one).
  private mutating func submit(_ message: ClientMessage) {
    guard state.link != nil else { return }
    carryOut(state.pacer.submit(message, now: now))
  }

  private mutating func carryOut(_ output: Pacer.Output) {
    if var link = state.link {
      for message in output.send {
        if case .ping = message {} else { link.keepalive.sent(at: now) }
        emit(.send(message))
      }
      setLink(link)
    }
    for message in output.givenUp {
      let notice = state.pacer.givenUpNotice(message)
      reduce(.notice(notice.prefix(1).uppercased() + notice.dropFirst() + "."))
      emit(.say(notice))
    }
    if let at = output.wakeAt { scheduleNoLater(.pacing, at: at) }
  }

  private mutating func setLink(_ link: PlayerState.Link) {
    switch state.phase {
    case .awaitingWelcome(_, let outage): state.phase = .awaitingWelcome(link, outage: outage)
    case .following(_, let following): state.phase = .following(link, following)
    case .seated: state.phase = .seated(link)
    default: break
    }
  }

  // MARK: - Outputs and timers

  private mutating func emit(_ output: PlayerOutput) {
    outputs.append(output)
  }

  private mutating func schedule(_ timer: PlayerTimer, at: Int64) {
    guard state.timers[timer] != at else { return }
    state.timers[timer] = at
    emit(.schedule(timer, at: at))
  }

  /// Schedules `timer` unless it is already due no later than `at` (it then steps again
  /// and asks for the rest).
  private mutating func scheduleNoLater(_ timer: PlayerTimer, at: Int64) {
    if let due = state.timers[timer], due <= at { return }
    schedule(timer, at: at)
  }

  private mutating func cancel(_ timer: PlayerTimer) {
    guard state.timers.removeValue(forKey: timer) != nil else { return }
    emit(.cancel(timer))
  }
}
