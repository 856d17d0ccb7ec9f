import Logging
import NIOCore
import RoshamboGame
import RoshamboProtocol

/// The single writer of the game. It turns requests into lobby actions, reduces each
/// with ``HubReduction`` (the rules once, then what to do about them as
/// ``HubEffect`` values: journal it, send rooms' states, start or stop clocks, log),
/// keeps the ``Sessions``, and flushes as the ``CommitStateMachine`` says: seals a
/// ``JournalBatch``, has the ``JournalThread`` commit it (on this loop while that is
/// quick), then sends what the ``Broadcaster`` prepared for it.
///
/// Invariants: everything here runs on `loop` (one serial executor; the journal has its
/// own thread); an accepted action is journaled before any connection is sent its
/// result, and when the journal cannot be written the lobby goes back to exactly what it
/// holds and nothing of the failed commit is sent. Not `Sendable`: other threads reach
/// it through ``HubHandle``.
final class GameHub {
  let loop: any EventLoop
  private(set) var lobby: LobbyState
  let journal: (any HubJournal)?
  let logger: Logger
  let now: @Sendable () -> Int64
  var sessions = Sessions()
  let outbox = Outbox()
  let batch = JournalBatch()
  private let broadcaster: Broadcaster
  private var timers: RoomTimers!
  private let snapshots: SnapshotWriter?
  private let retryMillis: Int64
  private var flushScheduled = false
  private var commits = CommitStateMachine<Flight>()
  private var probe: Scheduled<Void>?
  /// The number of the journal's last row once everything sealed is committed.
  private var journaledThrough: Int64
  /// Who waits for everything sealed to be committed and sent (``shutdown()``).
  private var idleWaiters: [EventLoopPromise<Void>] = []
  /// When the lobby's followers get their next view, and the leaderboard it shows.
  var feed = LobbyFeed()
  private var lobbyFlush: Scheduled<Void>?
  private var leadersTimer: Scheduled<Void>?
  /// The leaderboard's reading under way, if one is (a shutdown waits for it).
  private var leadersReading: EventLoopFuture<Void>?
  /// The tournament's plan, each entrant's connection and this round's tokens (the
  /// journal keeps only their hashes), and the timer that starts the next round.
  var tournamentPlan = TournamentPlan(
    kind: nil, settings: .init(), players: 0, startMillis: 60_000, pauseMillis: 3_000)
  var tournamentLinks: [String: ConnectionLink] = [:]
  /// The address each entrant entered from (the per-address bound on entries counts it).
  var entryAddresses: [String: String] = [:]
  var tournamentTokens: [String: String] = [:]
  var tournamentTimer: Scheduled<Void>?
  /// Entrants whose connection dropped while entries are open: when their entry goes.
  var entryGrace: [String: Scheduled<Void>] = [:]
  /// Entrants whose entry lapsed while they were away, not yet told.
  var lapsedEntries: Set<String> = []
  /// What a new follower is told once their first lobby view is on its way, by connection.
  var noticesAfterFirstView: [Int: (ConnectionLink, ProtocolError)] = [:]
  /// When that timer closes entries or pairs the next round (ms since 1970): the lobby
  /// and the tournament's rooms show it.
  var tournamentStartsAt: Int64? {
    didSet {
      guard tournamentStartsAt != oldValue else { return }
      broadcaster.tournamentStartsAt = tournamentStartsAt
      feed.lobbyChanged()
      scheduleFlush()
    }
  }
  /// Challenges waiting for an answer, and the timers that expire them.
  var challenges = ChallengeBoard()
  var challengeTimers: [Int: Scheduled<Void>] = [:]
  /// Reads of match records under way, by a number of their own (see
  /// ``sendRecord(of:origin:)``).
  var recordReadings: [Int: EventLoopFuture<Void>] = [:]
  var recordReadingsStarted = 0
  /// Whether the hub is stopping: no new reading of the leaderboard.
  private(set) var stopping = false
  /// Whether the server is draining before it stops, who waits for it to end, and when
  /// it gives up waiting for matches (see ``beginDrain(withinMillis:)``).
  var drain = DrainStateMachine()
  var drainEnded: EventLoopPromise<Void>?
  var drainTimer: Scheduled<Void>?
  /// Whether matches were recorded since the leaderboard was last read, and when that was.
  private var leadersStale = true
  private var leadersReadAt: Int64?
  /// The fleet's leaderboard, when a shared history is configured: shown instead of the
  /// journal's own (``sharedLeadersRead(_:)``).
  private var sharedLeaders: [LobbyView.Leader]?
  /// The server's name for people (the one it announces), shown in the lobby's title.
  var serverName: String?
  /// Where the host's sentences go (``HostNews``), if anywhere.
  var news: (@Sendable (String) -> Void)?

  /// A sealed batch on its way to the disk, and what it sends once it is durable.
  struct Flight {
    var batch: JournalBatch.Sealed
    var deliveries: [Broadcaster.Delivery]
    /// The lobby after this batch, when a snapshot is due: written once it is committed.
    var snapshot: LobbyState?
    /// The number of the journal's row this batch ends with.
    var through: Int64
    var sealedAt = NIODeadline.now()
  }
  /// How long the loop stalls and what ran in the stalls, when asked for.
  let stalls: LoopStallMonitor?

  private var stallLog: Scheduled<Void>?
  /// Samples the loop's lag for the metrics.
  private var lagProbe: Scheduled<Void>?
  /// Where the hub counts what happens (set by the server; nil in tests of the hub alone).
  var metrics: ServerMetrics? {
    didSet { broadcaster.metrics = metrics }
  }

  /// `journaledThrough` is the number of the journal's last row (0 without a journal).
  init(
    loop: any EventLoop, lobby: LobbyState, journal: (any HubJournal)?,
    journaledThrough: Int64 = 0, logger: Logger, compactionInterval: Int = 10_000,
    retryMillis: Int64 = 1_000, profileStalls: Bool = false,
    now: @escaping @Sendable () -> Int64
  ) {
    self.journaledThrough = journaledThrough
    self.loop = loop
    self.lobby = lobby
    let stalls = profileStalls ? LoopStallMonitor() : nil
    self.stalls = stalls
    self.retryMillis = max(1, retryMillis)
    self.journal = journal
    self.logger = logger
    self.now = now
    self.broadcaster = Broadcaster(logger: logger, loop: loop)
    self.snapshots = journal.map {
      SnapshotWriter(journal: $0, loop: loop, logger: logger, interval: compactionInterval)
    }
    snapshots?.finished = stalls.map { monitor in { monitor.recordSnapshot(began: $0) } }
    timers = RoomTimers(loop: loop, now: now) { [unowned self] action in
      perform(action)
    }
  }

  // MARK: - Start and stop

  /// After a restart no connection is attached: every seat that was connected starts its
  /// grace now, spectators are gone, and every deadline and grace is scheduled again.
  func restore() {
    resumeTournament()
    readLeaders()
    if let stalls {
      stalls.start(on: loop)
      logStalls()
    }
    if metrics != nil { probeLag() }
    reconcile()
  }

  /// Samples how late the loop runs what is due, every ``ServerMetrics/lagProbeInterval``.
  private func probeLag() {
    let due = NIODeadline.now() + ServerMetrics.lagProbeInterval
    lagProbe = loop.assumeIsolated().scheduleTask(deadline: due) {
      self.metrics?.loopLag.recordNanoseconds(max(0, (NIODeadline.now() - due).nanoseconds))
      self.probeLag()
    }
  }

  /// Logs the stall profile every 10 s, at debug level.
  private func logStalls() {
    stallLog = loop.assumeIsolated().scheduleTask(in: .seconds(10)) {
      if let stalls = self.stalls { self.logger.debug("\(stalls.profile)") }
      self.logStalls()
    }
  }

  /// Makes the lobby agree with the connections the hub holds: a seat marked connected
  /// with no connection starts its grace, spectators nobody holds are removed (a room left
  /// empty goes away), and every deadline and grace is scheduled. Run after a restart and
  /// when the journal can be written again after failing.
  private func reconcile() {
    let at = now()
    for (name, room) in lobby.rooms {
      let audience = sessions.audience(of: name)
      for (seat, held) in room.seats where !held.hasLeft && held.connected {
        if audience?.seats[seat] == nil { perform(.room(name, .disconnected(seat: seat, at: at))) }
      }
      let watching = audience?.spectators.count ?? 0
      for _ in 0..<max(0, room.spectators - watching) { perform(.room(name, .spectatorLeft)) }
    }
    timers.scheduleAll(lobby)
    flush()
  }

  /// Makes everything pending durable and sends it; the future completes once it is,
  /// and a snapshot being written has been written too.
  func shutdown() -> EventLoopFuture<Void> {
    stopping = true
    endDrainNow()
    flush()
    timers.cancelAll()
    tournamentTimer?.cancel()
    for timer in entryGrace.values { timer.cancel() }
    for timer in challengeTimers.values { timer.cancel() }
    challengeTimers.removeAll()
    lobbyFlush?.cancel()
    leadersTimer?.cancel()
    stalls?.stop()
    stallLog?.cancel()
    lagProbe?.cancel()
    let idle: EventLoopFuture<Void>
    switch commits.shutdownRequested() {
    case .finished(let cancelProbe):
      if cancelProbe { probe?.cancel() }
      idle = loop.makeSucceededVoidFuture()
    case .wait(let cancelProbe):
      if cancelProbe { probe?.cancel() }
      let promise = loop.makePromise(of: Void.self)
      idleWaiters.append(promise)
      idle = promise.futureResult
    }
    // A snapshot being written, and a reading of the leaderboard, finish first: nothing
    // of the journal's may come back to a loop that has stopped.
    let reading = EventLoopFuture.andAllComplete(
      [leadersReading].compactMap { $0 } + recordReadings.values, on: loop)
    return idle.assumeIsolated().flatMap {
      self.snapshots?.inProgress ?? self.loop.makeSucceededVoidFuture()
    }.flatMap { reading }.nonisolated()
  }

  // MARK: - From connections

  func receive(_ request: PlayerRequest, from link: ConnectionLink) {
    switch request {
    case .hello(
      let version, let name, let role, let room, let resume, let fair, let challenges,
      let identity, let id):
      hello(
        link, version: version, name: name, role: role, room: room, resume: resume, fair: fair,
        challenges: challenges, identity: identity, id: id)
    case .challenge(let name, let bestOf, let ruleset, let fair, let id):
      if refusedWhileDraining(Origin(link: link, re: id)) { break }
      challenge(
        name, bestOf: bestOf, ruleset: ruleset, fair: fair, origin: Origin(link: link, re: id))
    case .accept(let challenge, let id):
      if refusedWhileDraining(Origin(link: link, re: id)) { break }
      answer(challenge, accept: true, origin: Origin(link: link, re: id))
    case .decline(let challenge, let block, let id):
      answer(challenge, accept: false, block: block, origin: Origin(link: link, re: id))
    case .enter(let id):
      if refusedWhileDraining(Origin(link: link, re: id)) { break }
      enterTournament(Origin(link: link, re: id), withdraw: false)
    case .withdraw(let id):
      enterTournament(Origin(link: link, re: id), withdraw: true)
    case .match(let match, let id):
      sendRecord(of: Int64(match), origin: Origin(link: link, re: id))
    case .choose(let round, let weapon, let id):
      guard let (room, seat) = seat(of: link, re: id) else { break }
      logger.debug(
        "chose",
        metadata: [
          "conn": "\(link.id)", "room": "\(room)", "seat": "\(seat.rawValue)", "round": "\(round)",
        ])
      perform(
        .room(room, .chose(seat: seat, round: round, weapon: weapon, at: now())),
        origin: Origin(link: link, re: id))
    case .commit(let round, let digest, let id):
      guard let (room, seat) = seat(of: link, re: id) else { break }
      perform(
        .room(room, .committed(seat: seat, round: round, digest: digest, at: now())),
        origin: Origin(link: link, re: id))
    case .reveal(let round, let weapon, let nonce, let id):
      guard let (room, seat) = seat(of: link, re: id) else { break }
      // Checked here, outside the reducer: the action carries the result, so replaying
      // the journal needs no hashing and always gives the same room.
      let commitment = lobby.rooms[room]?.seats[seat]?.commitment
      let matches =
        commitment.map {
          Commitment.verify(
            $0, room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
        } ?? false
      perform(
        .room(
          room,
          .revealed(
            seat: seat, round: round, weapon: weapon, nonce: nonce, matches: matches, at: now())),
        origin: Origin(link: link, re: id))
    case .rematch(let id):
      guard let (room, seat) = seat(of: link, re: id),
        !refusedWhileDraining(Origin(link: link, re: id))
      else { break }
      perform(
        .room(room, .rematchRequested(seat: seat, at: now())), origin: Origin(link: link, re: id))
    case .leave(let id):
      if let follower = sessions.followers[link.id], sessions.unfollow(link.id) {
        settle(challenges.reduce(.departed(link.id)))
        tournamentFollowerLeft(follower.name, link: link, dropped: false)
        feed.lobbyChanged()
        outbox.append(.close(link))
        scheduleFlush()
        break
      }
      guard let member = sessions.remove(link.id) else {
        reply(link, .notPlaying("You have not joined a room."), re: id)
        break
      }
      let action: RoomAction = member.seat.map { .left(seat: $0, at: now()) } ?? .spectatorLeft
      perform(.room(member.room, action), origin: Origin(link: link, re: id))
      logger.info("left", metadata: ["conn": "\(link.id)", "room": "\(member.room)"])
      outbox.append(.close(link))
      scheduleFlush()
    }
  }

  /// The connection is gone: its seat starts its grace, or its spectator leaves.
  func detach(_ link: ConnectionLink) {
    broadcaster.forget(link)
    batch.joined.remove(link.id)
    if let follower = sessions.followers[link.id], sessions.unfollow(link.id) {
      settle(challenges.reduce(.departed(link.id)))
      tournamentFollowerLeft(follower.name, link: link, dropped: true)
      feed.lobbyChanged()
      scheduleFlush()
    }
    guard let member = sessions.remove(link.id) else { return }
    if let seat = member.seat {
      perform(.room(member.room, .disconnected(seat: seat, at: now())))
      logger.info("disconnected", metadata: ["conn": "\(link.id)", "room": "\(member.room)"])
    } else {
      perform(.room(member.room, .spectatorLeft))
    }
  }

  /// The connection can take more: what waited for it goes out.
  func writable(_ link: ConnectionLink) {
    broadcaster.writable(link)
  }

  /// How many connections have something waiting (for tests).
  var backlogCount: Int { broadcaster.backlogCount }

  private func hello(
    _ link: ConnectionLink, version: Int, name: String, role: ClientMessage.Role, room: String?,
    resume: String?, fair: Bool?, challenges: Bool, identity: String?, id: Int?
  ) {
    guard sessions[link.id] == nil, sessions.followers[link.id] == nil else {
      reply(link, .badMessage("hello was already accepted on this connection."), re: id)
      return
    }
    guard version == WireProtocol.version else {
      reply(link, .unsupportedProtocol(version), re: id)
      return
    }
    let origin = Origin(link: link, re: id)
    // A resume is by token, which holds the seat; spectators' names act on nothing.
    // A look at the lobby (`who`, `replay N`, `lobby --json`) acts on nothing, so it needs
    // no name of its own: it claims none and is refused none (it is not shown under a name
    // another holds, below).
    if resume == nil, role == .player || (role == .lobby && challenges) {
      if let refusal = nameRefusal(name, identity: identity, role: role) {
        reply(link, refusal, re: id)
        return
      }
      claimName(name, identity: identity)
    }
    if role == .lobby {
      // A new lobby screen replaces the one a closed terminal left; a look does not.
      if challenges { replaceGhosts(of: link, name: name, identity: identity) }
      sessions.follow(
        link, name: name, takesChallenges: challenges, playsFair: fair != nil,
        identity: identity)
      if challenges, tournamentFollowerArrived(link, name: name) { return }
      if challenges, identity != nil {
        entrantReturned(name, link: link)
        tellLapsedEntry(name, link: link)
      }
      feed.followed(by: link)
      feed.lobbyChanged()
      scheduleFlush()
      logger.info(
        "following the lobby", metadata: ["conn": "\(link.id)", "name": "\(LogText.quoted(name))"])
    } else if let token = resume {
      resumeSeat(link, token: token, identity: identity, id: id)
    } else if role == .spectator, let room {
      guard perform(.spectate(room: room), origin: origin) != nil else { return }
      sessions.attachSpectator(link, room: room, name: name, identity: identity)
      batch.joined.insert(link.id)
      outbox.append(.message(link, .welcome(room: room, seat: nil, token: nil)))
      logger.info("spectating", metadata: ["conn": "\(link.id)", "room": "\(room)"])
    } else {
      // A new player would start a new match: a draining server takes none.
      if refusedWhileDraining(origin, fatal: true) { return }
      let target = lobby.roomForJoin(requested: room)
      if fair == nil, lobby.settingsForJoin(requested: room, fair: false).fair {
        reply(
          link,
          ProtocolError(
            code: .fairRoom,
            message: "Room \(target) plays fair (commit–reveal) and this client cannot; "
              + "upgrade to roshambo 1.2 or later, or join another room."),
          re: id)
        return
      }
      let token = ResumeToken.make()
      let stored = ResumeToken.stored(token)
      guard
        perform(
          .join(room: room, name: name, token: stored, fair: fair == true, at: now()),
          origin: origin) != nil,
        let seat = lobby.rooms[target]?.seat(holding: stored)
      else { return }
      sessions.attach(
        link, room: target, seat: seat, name: name, token: stored, resumeToken: token,
        identity: identity)
      batch.joined.insert(link.id)
      outbox.append(.message(link, .welcome(room: target, seat: seat, token: token)))
      logger.info(
        "joined",
        metadata: [
          "conn": "\(link.id)", "room": "\(target)", "seat": "\(seat.rawValue)",
          "name": "\(LogText.quoted(name))",
        ])
    }
  }

  private func resumeSeat(_ link: ConnectionLink, token: String, identity: String?, id: Int?) {
    let stored = ResumeToken.stored(token)
    guard let (room, seat) = lobby.locate(token: stored) else {
      reply(link, .badToken(), re: id)
      return
    }
    let reconnecting = lobby.rooms[room]?.seats[seat]?.connected == false
    var (target, held) = (room, seat)
    if reconnecting {
      guard
        let effects = perform(
          .room(room, .reconnected(seat: seat, at: now())), origin: Origin(link: link, re: id))
      else { return }
      batch.joined.insert(link.id)
      // Back alone in a quick-match room, the player may have been paired elsewhere.
      for case .follow(let move) in effects where move.token == stored {
        (target, held) = (move.to, move.seat)
      }
    }
    if let old = sessions.audience(of: target)?.seats[held], old != link {
      // The same player on a new connection: the old one is stale.
      sessions.remove(old.id)
      outbox.append(.close(old))
    }
    let name = lobby.rooms[target]?.seats[held]?.name ?? ""
    sessions.attach(
      link, room: target, seat: held, name: name, token: stored, resumeToken: token,
      identity: identity)
    // The welcome first: a room's state goes out after every welcome into the room.
    outbox.append(.message(link, .welcome(room: target, seat: held, token: token)))
    if !reconnecting { outbox.append(.stateTo(link, target)) }
    scheduleFlush()
    logger.info(
      "resumed", metadata: ["conn": "\(link.id)", "room": "\(target)", "seat": "\(held.rawValue)"])
  }

  private func seat(of link: ConnectionLink, re: Int?) -> (String, Seat)? {
    guard let member = sessions[link.id] else {
      reply(link, .notPlaying("You have not joined a room; send hello first."), re: re)
      return nil
    }
    guard let seat = member.seat else {
      reply(link, .notPlaying("Spectators watch; they do not play."), re: re)
      return nil
    }
    return (member.room, seat)
  }

  // MARK: - Actions

  /// Reduces `action` and carries out its effects; returns them, or nil when it was
  /// refused (answered to `origin`, if any: a stale timer or connection event is
  /// nobody's mistake and dropped silently), or when play is paused because the journal
  /// cannot be written (answered `unavailable`; timers and dropped connections are
  /// reconciled once it can be written again).
  @discardableResult
  func perform(_ action: LobbyAction, origin: Origin? = nil) -> [HubEffect]? {
    guard commits.acceptsActions else {
      if let origin { reply(origin.link, .unavailable(), re: origin.re) }
      return nil
    }
    switch HubReduction.reduce(&lobby, action) {
    case .failure(let refusal):
      if case .stale = refusal { return nil }
      if let origin {
        reply(origin.link, ProtocolError(refusal), re: origin.re)
        logger.info(
          "refused", metadata: ["conn": "\(origin.link.id)", "code": "\(ErrorCode(refusal))"])
      }
      return nil
    case .success(let effects):
      if origin != nil { metrics?.actionsAccepted.increment() }
      for effect in effects { run(effect, origin: origin) }
      feed.lobbyChanged()
      scheduleFlush()
      return effects
    }
  }

  private func run(_ effect: HubEffect, origin: Origin?) {
    switch effect {
    case .journal(let action): batch.record(action, origin: origin)
    case .recordMatch(let match): batch.record(match)
    case .sendState(let room): outbox.append(.roomState(room))
    case .follow(let move): follow(move)
    case .startDeadline(let room, let round, let at):
      timers.startDeadline(room: room, round: round, at: at)
    case .startGrace(let room, let seat, let at):
      timers.startGrace(room: room, seat: seat, endsAt: at)
    case .cancelTimer(let key): timers.cancel(key)
    case .tournament(let event): tournamentChanged(event)
    case .log(let line): log(line)
    }
  }

  /// The game's log: nothing of a round before it resolves.
  private func log(_ line: GameLogLine) {
    switch line {
    case .round(let room, let result):
      metrics?.roundsResolved.increment()
      logger.info(
        "round",
        metadata: [
          "room": "\(room)", "round": "\(result.round)",
          "weapons": "\(result.weapons.map { $0?.rawValue ?? "none" })",
          "winner": "\(result.winner?.rawValue ?? 0)",
        ])
    case .matchOver(let match):
      if let news, let sentence = HostNews.match(match) { news(sentence) }
      metrics?.matchFinished(forfeit: match.forfeit, fair: match.fair)
      logger.info(
        "match over",
        metadata: [
          "room": "\(match.room)", "winner": "\(LogText.quoted(match.winner))",
          "score": "\(match.scores)",
        ])
    case .graceExpired(let room, let seat):
      logger.info("grace expired", metadata: ["room": "\(room)", "seat": "\(seat.rawValue)"])
    }
  }

  /// Quick match moved a player left alone (``LobbyEvent/Move``): their connection, if
  /// it is here, follows them, with the old room's last state, then a new `welcome` (the
  /// same token) before the new room's state.
  private func follow(_ move: LobbyEvent.Move) {
    guard let link = sessions.audience(of: move.from)?.seats[move.fromSeat],
      let member = sessions[link.id], member.token == move.token,
      let resumeToken = member.resumeToken
    else { return }
    let last = move.lastState
    outbox.append(.message(link, .state(seq: last.version, view: last.view(for: move.fromSeat))))
    sessions.remove(link.id)
    sessions.attach(
      link, room: move.to, seat: move.seat, name: member.name, token: move.token,
      resumeToken: resumeToken, identity: member.identity)
    batch.joined.insert(link.id)
    outbox.append(.message(link, .welcome(room: move.to, seat: move.seat, token: resumeToken)))
    logger.info(
      "moved by quick match",
      metadata: [
        "conn": "\(link.id)", "from": "\(move.from)", "room": "\(move.to)",
        "seat": "\(move.seat.rawValue)",
      ])
  }

  /// The connection refused itself fatally (a flood, a bad frame, silence): the error and
  /// the close go out after what the hub answered it before, in order.
  func refuseAfterAnswers(_ link: ConnectionLink, _ error: ProtocolError, re: Int?) {
    outbox.append(.message(link, .error(error, re: re)))
    outbox.append(.close(link))
    scheduleFlush()
  }

  func reply(_ link: ConnectionLink, _ error: ProtocolError, re: Int?) {
    metrics?.refused(error.code)
    outbox.append(.message(link, .error(error, re: re)))
    if error.fatal { outbox.append(.close(link)) }
    scheduleFlush()
  }

  // MARK: - The lobby's followers

  /// Queues a lobby view when ``LobbyFeed`` says one is due. Called where the outbox is
  /// prepared (a flight sealed, or sent with nothing to commit), so the view is of the
  /// lobby that flight makes durable and goes out with it, never before.
  private func queueLobbyView() {
    switch feed.decide(now: now(), followers: sessions.followers.count) {
    case .nothing:
      break
    case .everyone(let seq):
      outbox.append(.lobby(seq: seq, lobbyView(), to: nil))
      sendNoticesAfterFirstView(to: nil)
    case .newcomers(let links, let seq):
      outbox.append(.lobby(seq: seq, lobbyView(), to: links))
      sendNoticesAfterFirstView(to: links)
      // The change that came with them is still due to everyone else: ask again, which
      // schedules it (newcomers are served now, so this cannot recurse further).
      queueLobbyView()
    case .later(let at):
      guard lobbyFlush == nil else { break }
      lobbyFlush = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, at - now()))) {
        self.lobbyFlush = nil
        self.scheduleFlush()
      }
    }
  }

  /// The notices waiting for the first lobby view of `links` (nil: every follower's).
  private func sendNoticesAfterFirstView(to links: [ConnectionLink]?) {
    guard !noticesAfterFirstView.isEmpty else { return }
    for id in links.map({ $0.map(\.id) }) ?? Array(noticesAfterFirstView.keys) {
      guard let (link, notice) = noticesAfterFirstView.removeValue(forKey: id),
        sessions.followers[id] != nil
      else { continue }
      outbox.append(.afterLobbyViews(link, .error(notice, re: nil)))
    }
  }

  /// A lobby view's encoded size paces the next (``LobbyFeed/bytesPerSecond``).
  private func noteLobbyViewSize(_ deliveries: [Broadcaster.Delivery]) {
    guard let frame = deliveries.last(where: \.spread)?.frame else { return }
    feed.lastViewBytes = frame.readableBytes
  }

  /// The shared history's leaderboard was read: the lobby shows it (the recent matches
  /// stay this server's, which its players can replay).
  func sharedLeadersRead(_ leaders: [LobbyView.Leader]) {
    sharedLeaders = leaders
    guard leaders != feed.leaders, !stopping else { return }
    feed.leaders = leaders
    feed.lobbyChanged()
    scheduleFlush()
  }

  /// What a scrape samples of the hub: who is seated, watching and following, and the
  /// rooms by phase.
  func metricsSnapshot() -> ServerMetrics.Snapshot {
    var snapshot = ServerMetrics.Snapshot()
    for member in sessions.members.values {
      if member.seat == nil { snapshot.spectators += 1 } else { snapshot.playersSeated += 1 }
    }
    snapshot.lobbyFollowers = sessions.followers.count
    for room in lobby.rooms.values { snapshot.roomsByPhase[room.phase.rawValue, default: 0] += 1 }
    return snapshot
  }

  /// What Agones' allocator routes by (``FleetListing/Report``): players seated, rooms,
  /// the quick-match player waiting, and the rooms players named (all of them: which
  /// fit Agones' List is ``FleetListing``'s choice, the newest first; a flood of rooms
  /// cannot hide a later one behind the order of a dictionary).
  func fleetReport() -> FleetListing.Report {
    let players = sessions.members.values.count { $0.seat != nil }
    let named = Set(lobby.rooms.keys.lazy.filter { !LobbyState.isReservedRoomName($0) })
    let waiting = lobby.quickMatchRoom.map { lobby.rooms[$0]?.hasPlayerWaiting ?? false } ?? false
    return FleetListing.Report(
      players: players, rooms: lobby.rooms.count, waiting: waiting ? 1 : 0, namedRooms: named)
  }

  /// Why the server is not ready for players now, or nil: stopping, or the journal
  /// cannot be written (play is paused until it can).
  var unreadiness: String? {
    if let seconds = drain.secondsLeft(now: now()), !stopping {
      return "the server is draining: it closes in \(seconds) s at the latest"
    }
    if stopping { return "the server is stopping" }
    if !commits.acceptsActions { return "the journal cannot be written (is the disk full?)" }
    return nil
  }

  /// The lobby as its followers see it now: players, spectators and followers (by name,
  /// at most ``LobbyView/maxPeople``), the rooms, the leaderboard's top.
  private func lobbyView() -> LobbyView {
    // Players, then spectators, then followers, each by name: the first 128 of that
    // order, chosen without sorting everyone.
    let rank = { (status: LobbyView.Status) in
      switch status {
      case .waiting, .playing: 0
      case .watching: 1
      case .idle: 2
      }
    }
    let members = sessions.members.values.lazy.compactMap { member -> LobbyView.Person? in
      guard let seat = member.seat else {
        return LobbyView.Person(name: member.name, status: .watching, room: member.room)
      }
      guard let room = self.lobby.rooms[member.room], let held = room.seats[seat] else {
        return nil
      }
      return LobbyView.Person(
        name: held.name, status: room.phase == .waiting ? .waiting : .playing, room: member.room)
    }
    let followers = distinctFollowers().lazy.map {
      LobbyView.Person(name: $0.name, status: .idle, room: nil, takesChallenges: $0.takesChallenges)
    }
    let people = [AnySequence(members), AnySequence(followers)].joined().smallest(
      LobbyView.maxPeople
    ) { a, b in
      let (rankA, rankB) = (rank(a.status), rank(b.status))
      return rankA != rankB ? rankA < rankB : a.name < b.name
    }
    var view = lobby.view(
      people: people, peopleCount: sessions.members.count + followers.count,
      leaders: feed.leaders, recent: feed.recent)
    view.server = serverName
    if view.tournament != nil {
      view.tournament?.startsAt = tournamentStartsAt
      if view.tournament?.phase == .entry, tournamentPlan.players > 0 {
        view.tournament?.startsWith = tournamentPlan.players
      }
    }
    return view
  }

  /// The lobby's followers, each person once: the same identity under the same name as a
  /// seated player or another follower (a lobby screen and `roshambo who` beside it) is
  /// one person, shown by the connection that can be challenged.
  private func distinctFollowers() -> [Sessions.Follower] {
    var seen = Set<String>()
    for member in sessions.members.values where member.seat != nil {
      if let identity = member.identity { seen.insert(identity + " " + member.name) }
    }
    // A look under a name someone else holds is not shown as them.
    let all = sessions.followers.values.filter {
      $0.takesChallenges || lobby.names.allows($0.name, for: $0.identity)
    }
    let challengersFirst =
      all.lazy.filter(\.takesChallenges) + all.lazy.filter { !$0.takesChallenges }
    return challengersFirst.filter { follower in
      guard let identity = follower.identity else { return true }
      return seen.insert(identity + " " + follower.name).inserted
    }
  }

  /// Reads the leaderboard's top (on the journal's low-priority thread, through a reader
  /// of its own) at start and when matches were recorded since the last reading, at most
  /// every 2 s; so a newcomer's first view has it. Followers see it with their next view.
  private func readLeaders() {
    guard let journal, leadersStale, leadersReading == nil, !stopping else { return }
    let at = now()
    if let last = leadersReadAt, at - last < 2_000 {
      guard leadersTimer == nil else { return }
      leadersTimer = loop.assumeIsolated().scheduleTask(in: .milliseconds(last + 2_000 - at)) {
        self.leadersTimer = nil
        self.readLeaders()
      }
      return
    }
    leadersStale = false
    leadersReadAt = at
    let reading = journal.standings(leaders: LobbyView.maxLeaders, recent: LobbyView.maxRecent)
      .hop(to: loop)
    leadersReading = reading.map { _ in }.recover { _ in }
    reading.assumeIsolated().whenComplete { result in
      self.leadersReading = nil
      guard case .success(let (board, matches)) = result, !self.stopping else { return }
      let leaders =
        self.sharedLeaders
        ?? board.map {
          LobbyView.Leader(
            name: $0.name, won: $0.won, lost: $0.lost, wonByForfeit: $0.byForfeit)
        }
      let recent = matches.compactMap(LobbyView.Recent.init)
      guard leaders != self.feed.leaders || recent != self.feed.recent else { return }
      self.feed.leaders = leaders
      self.feed.recent = recent
      self.feed.lobbyChanged()
      self.scheduleFlush()
    }
  }

  // MARK: - Save, then send

  func scheduleFlush() {
    guard !flushScheduled else { return }
    flushScheduled = true
    // Runs after whatever else is queued on the loop now, so busy moments commit many
    // actions in one transaction.
    loop.assumeIsolated().execute { self.flush() }
  }

  /// Sends what is pending, committing it first if it holds accepted actions (on the
  /// journal's thread when the disk is slow); one batch is in flight at a time:
  /// meanwhile the next one gathers (group commit), so a slow disk makes batches bigger,
  /// not the loop slower. The ``CommitStateMachine`` decides.
  private func flush() {
    flushScheduled = false
    if drain.isDraining { matchesChangedWhileDraining() }
    let hasActions = journal != nil && !batch.isEmpty
    switch commits.flushRequested(hasActions: hasActions) {
    case .wait:
      return
    case .deliverNow(let wakeWaiters):
      queueLobbyView()
      let deliveries = timed(.send) {
        broadcaster.prepare(outbox.take(), lobby: lobby, sessions: sessions)
      }
      noteLobbyViewSize(deliveries)
      batch.clear()
      timed(.send) { broadcaster.deliver(deliveries) }
      if wakeWaiters { self.wakeWaiters() }
    case .commitInline:
      commit(seal(), inline: true)
    }
  }

  /// Seals the batch and what it sends into a flight, now in flight.
  private func seal() -> Flight {
    queueLobbyView()
    let deliveries = timed(.send) {
      broadcaster.prepare(outbox.take(), lobby: lobby, sessions: sessions)
    }
    noteLobbyViewSize(deliveries)
    let sealed = batch.seal()
    journaledThrough += Int64(sealed.actions.count)
    let snapshot =
      snapshots?.due(after: sealed.actions.count, rooms: lobby.rooms.count) == true
      ? lobby : nil
    let flight = Flight(
      batch: sealed, deliveries: deliveries, snapshot: snapshot, through: journaledThrough)
    commits.sealed(flight)
    return flight
  }

  /// Commits `flight`: here when `inline` and the journal is quick now (cheaper than two
  /// hops between threads), else on the journal's thread (a slow disk, or a snapshot
  /// step holding the journal). A snapshot will include this batch: the journal sends
  /// later rows to its other table.
  private func commit(_ flight: Flight, inline: Bool) {
    guard let journal else { return }
    let sealed = flight.batch
    let snapshotAfter = flight.snapshot != nil
    if inline,
      let done = timed(
        .commit,
        {
          journal.commitNowIfQuick(
            sealed.actions, matches: sealed.matches, snapshotAfter: snapshotAfter)
        })
    {
      committed(done, onJournalThread: false)
      return
    }
    journal.commit(sealed.actions, matches: sealed.matches, snapshotAfter: snapshotAfter)
      .hop(to: loop).assumeIsolated().whenComplete { self.committed($0, onJournalThread: true) }
  }

  /// The flight in flight is durable (or not): send what it sends, and commit the next.
  /// After a commit on the journal's thread the next batch is handed to it first, so the
  /// disk works on it while this loop sends (a commit on this loop would only delay it).
  private func committed(
    _ result: Result<JournalCommitTiming, any Error>, onJournalThread: Bool
  ) {
    let timing: JournalCommitTiming
    switch result {
    case .success(let done): timing = done
    case .failure(let error):
      if let flight = commits.commitFailed() { journalFailed(error, flight) }
      return
    }
    let flight: Flight
    switch commits.commitSucceeded(
      onJournalThread: onJournalThread, hasActions: !batch.isEmpty)
    {
    case .none:
      return
    case .deliver(let done):
      flight = done
    case .pipeline(let done):
      flight = done
      // (Only a batch with actions: what needs no commit goes out after this one's.)
      commit(seal(), inline: false)
    }
    if let lobby = flight.snapshot { snapshots?.write(lobby, through: flight.through) }
    if !flight.batch.matches.isEmpty {
      leadersStale = true
      readLeaders()
    }
    timed(.send) { broadcaster.deliver(flight.deliveries) }
    let sealToSendMicros = Int((NIODeadline.now() - flight.sealedAt).nanoseconds / 1_000)
    if let metrics, !flight.batch.actions.isEmpty {
      metrics.commitSeconds.recordMicroseconds(timing.tookMicros)
      metrics.actionsPerCommit.record(flight.batch.actions.count)
      metrics.journalWait.recordMicroseconds(timing.waitedMicros)
      metrics.commitToSend.recordMicroseconds(sealToSendMicros)
    }
    stalls?.recordCommit(
      actions: flight.batch.actions.count, matches: flight.batch.matches.count,
      waitedMicros: timing.waitedMicros, commitMicros: timing.tookMicros,
      sealToSendMicros: sealToSendMicros)
    flush()
  }

  private func wakeWaiters() {
    let waiters = idleWaiters
    idleWaiters.removeAll()
    for waiter in waiters { waiter.succeed() }
  }

  /// Runs `body`, counting its time as `step` in the stall profile and the metrics.
  private func timed<T>(_ step: LoopStallMonitor.Step, _ body: () throws -> T) rethrows -> T {
    guard stalls != nil || metrics != nil else { return try body() }
    let start = NIODeadline.now()
    defer {
      let nanoseconds = (NIODeadline.now() - start).nanoseconds
      stalls?.add(step, micros: Int(nanoseconds / 1_000))
      metrics?.hubStep[step]?.recordNanoseconds(nanoseconds)
    }
    return try body()
  }

  /// The commit failed: nothing of it is sent but errors and closes, its senders and
  /// those of everything gathered since are answered `unavailable`, and the lobby goes
  /// back to exactly what the journal holds (read on the journal's thread; nothing is
  /// sent meanwhile); client actions are then refused until a probe write succeeds
  /// (``probeJournal()``).
  private func journalFailed(_ error: any Error, _ flight: Flight) {
    logger.critical(
      """
      journal write failed: nothing of it was sent and play is paused; it resumes by itself \
      once the journal can be written (check free space on the data directory's disk)
      """,
      metadata: ["error": "\(error)", "path": "\(journal?.path ?? "")"])
    broadcaster.deliver(flight.deliveries.filter(\.survivesFailedCommit))
    // Every state and welcome in the outbox came from what was not saved.
    outbox.keepOnlyErrorsAndCloses()
    let unsaved = batch.seal()
    var answered: Set<Int> = []
    for origin in flight.batch.origins + unsaved.origins {
      answered.insert(origin.link.id)
      outbox.append(.message(origin.link, .error(.unavailable(), re: origin.re)))
    }
    for id in flight.batch.joined.union(unsaved.joined) { sessions.remove(id) }
    // Followers those actions seated are back in the lobby, told why nothing happened.
    for follower in flight.batch.seatedFollowers + unsaved.seatedFollowers
    where sessions[follower.link.id] == nil {
      sessions.follow(
        follower.link, name: follower.name, takesChallenges: follower.takesChallenges,
        playsFair: follower.playsFair)
      feed.followed(by: follower.link)
      feed.lobbyChanged()
      if answered.insert(follower.link.id).inserted {
        outbox.append(.message(follower.link, .error(.unavailable(), re: nil)))
      }
    }
    guard let journal else { return }
    let defaults = lobby.defaults
    journal.reload(defaults: defaults)
      .hop(to: loop).assumeIsolated().whenComplete { result in
        switch result {
        case .success(let (lobby, last)):
          self.lobby = lobby
          self.journaledThrough = last
        case .failure(let error):
          self.logger.critical(
            "cannot reload the journal after a failed write",
            metadata: ["error": "\(error)", "path": "\(journal.path)"])
        }
        self.dropMembersTheLobbyDoesNotHold(answered: answered)
        if self.commits.reloaded() == .scheduleProbe { self.scheduleProbe() }
        self.flush()
      }
  }

  /// Anyone whose seat the saved lobby does not give them is no longer in a room.
  private func dropMembersTheLobbyDoesNotHold(answered: Set<Int>) {
    for (id, member) in sessions.members {
      let room = lobby.rooms[member.room]
      let holds =
        if let seat = member.seat {
          room?.seats[seat].map { !$0.hasLeft && $0.token == member.token } ?? false
        } else {
          room != nil
        }
      if !holds {
        sessions.remove(id)
        if !answered.contains(id) {
          outbox.append(.message(member.link, .error(.unavailable(), re: nil)))
        }
      }
    }
  }

  private func scheduleProbe() {
    probe = loop.assumeIsolated().scheduleTask(in: .milliseconds(retryMillis)) {
      self.probeJournal()
    }
  }

  /// Tries one small write on the journal's thread; when it succeeds play resumes: the
  /// lobby is reconciled with the connections (seats whose connection went meanwhile
  /// start their grace) and the timers are scheduled again.
  private func probeJournal() {
    guard let journal, commits.probeDue() else { return }
    let at = now()
    journal.probe(at: at).hop(to: loop).assumeIsolated().whenComplete {
      result in
      let succeeded = if case .success = result { true } else { false }
      switch self.commits.probeFinished(succeeded: succeeded) {
      case .none:
        break
      case .scheduleProbe:
        self.scheduleProbe()
      case .resume:
        self.logger.notice(
          "journal writes succeed again; play resumes", metadata: ["path": "\(journal.path)"])
        self.reconcile()
        // A tournament round whose start was not saved is started again.
        self.resumeTournament()
      }
    }
  }
}
