import Logging
import NIOCore
import Redux
import RoshamboGame
import RoshamboProtocol

/// The single writer of the game: a store of the lobby whose middleware does the rest.
/// An action goes through the ``Gatekeeper`` (the rules, once; a refusal is answered
/// and swallowed), the ``HubReducer``, then the ``JournalBatch`` (recorded for the next
/// commit), the ``EventLog``, the ``RoomTimers`` and the ``Outbox`` (its room's state
/// to send). The hub itself turns requests into actions, keeps the ``Sessions``, and
/// flushes: seals a batch, has the ``JournalThread`` commit it (on this loop while that
/// is quick), then sends what the ``Broadcaster`` prepared for it.
///
/// Invariants: everything here runs on `loop` (one serial executor; the journal has its
/// own thread); an accepted action is journaled before any connection is sent its
/// result, and when the journal cannot be written the lobby goes back to exactly what it
/// holds and nothing of the failed commit is sent. Not `Sendable`: other threads reach
/// it through ``HubHandle``.
final class GameHub {
  let loop: any EventLoop
  private var store: Store<LobbyState, HubAction>!
  private let journal: JournalThread?
  private let logger: Logger
  private let now: @Sendable () -> Int64
  private var sessions = Sessions()
  private let outbox = Outbox()
  private let batch: JournalBatch
  private let broadcaster: Broadcaster
  private var gatekeeper: Gatekeeper!
  private var timers: RoomTimers!
  private let snapshots: SnapshotWriter?
  private let retryMillis: Int64
  private var flushScheduled = false
  /// The sealed batch being committed, and what it sends once it is durable.
  private var inFlight: InFlight?
  /// The number of the journal's last row once everything sealed is committed.
  private var journaledThrough: Int64
  /// Whether the lobby is being reloaded after a failed commit (nothing is sent).
  private var reloading = false
  /// Who waits for everything sealed to be committed and sent (``shutdown()``).
  private var idleWaiters: [EventLoopPromise<Void>] = []

  private struct InFlight {
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

  /// `journaledThrough` is the number of the journal's last row (0 without a journal).
  init(
    loop: any EventLoop, lobby: LobbyState, journal: JournalThread?,
    journaledThrough: Int64 = 0, logger: Logger, compactionInterval: Int = 10_000,
    retryMillis: Int64 = 1_000, profileStalls: Bool = false,
    now: @escaping @Sendable () -> Int64
  ) {
    self.journaledThrough = journaledThrough
    self.loop = loop
    let stalls = profileStalls ? LoopStallMonitor() : nil
    self.stalls = stalls
    self.retryMillis = max(1, retryMillis)
    self.journal = journal
    self.logger = logger
    self.now = now
    self.batch = JournalBatch(now: now)
    self.broadcaster = Broadcaster(logger: logger)
    self.snapshots = journal.map {
      SnapshotWriter(journal: $0, loop: loop, logger: logger, interval: compactionInterval)
    }
    snapshots?.finished = stalls.map { monitor in { monitor.recordSnapshot(began: $0) } }
    gatekeeper = Gatekeeper(logger: logger) { [unowned self] origin, error in
      reply(origin.link, error, re: origin.re)
    }
    timers = RoomTimers(loop: loop, now: now) { [unowned self] action in
      store.dispatch(action)
      scheduleFlush()
    }
    store = Store(
      initialState: lobby, reducer: HubReducer(),
      middleware: [
        gatekeeper.middleware, batch.middleware, EventLog(logger: logger).middleware,
        timers.middleware, outbox.middleware,
      ])
  }

  var lobby: LobbyState { store.state }

  // MARK: - Start and stop

  /// After a restart no connection is attached: every seat that was connected starts its
  /// grace now, spectators are gone, and every deadline and grace is scheduled again.
  func restore() {
    if let stalls {
      stalls.start(on: loop)
      logStalls()
    }
    reconcile()
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
    for (name, room) in store.state.rooms {
      let audience = sessions.audience(of: name)
      for (seat, held) in room.seats where !held.hasLeft && held.connected {
        if audience?.seats[seat] == nil { perform(.room(name, .disconnected(seat: seat, at: at))) }
      }
      let watching = audience?.spectators.count ?? 0
      for _ in 0..<max(0, room.spectators - watching) { perform(.room(name, .spectatorLeft)) }
    }
    timers.scheduleAll(store.state)
    flush()
  }

  /// Makes everything pending durable and sends it; the future completes once it is,
  /// and a snapshot being written has been written too.
  func shutdown() -> EventLoopFuture<Void> {
    flush()
    timers.cancelAll()
    stalls?.stop()
    stallLog?.cancel()
    if case .failing(let retry) = gatekeeper.saving { retry?.cancel() }
    let idle: EventLoopFuture<Void>
    if inFlight == nil, !reloading {
      idle = loop.makeSucceededVoidFuture()
    } else {
      let promise = loop.makePromise(of: Void.self)
      idleWaiters.append(promise)
      idle = promise.futureResult
    }
    return idle.assumeIsolated().flatMap {
      self.snapshots?.inProgress ?? self.loop.makeSucceededVoidFuture()
    }.nonisolated()
  }

  // MARK: - From connections

  func receive(_ request: PlayerRequest, from link: ConnectionLink) {
    switch request {
    case .hello(let version, let name, let role, let room, let resume, let fair, let id):
      hello(
        link, version: version, name: name, role: role, room: room, resume: resume, fair: fair,
        id: id)
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
      let commitment = store.state.rooms[room]?.seats[seat]?.commitment
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
      guard let (room, seat) = seat(of: link, re: id) else { break }
      perform(
        .room(room, .rematchRequested(seat: seat, at: now())), origin: Origin(link: link, re: id))
    case .leave(let id):
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
    resume: String?, fair: Bool?, id: Int?
  ) {
    guard sessions[link.id] == nil else {
      reply(link, .badMessage("hello was already accepted on this connection."), re: id)
      return
    }
    guard version == WireProtocol.version else {
      reply(link, .unsupportedProtocol(version), re: id)
      return
    }
    let origin = Origin(link: link, re: id)
    if let token = resume {
      resumeSeat(link, token: token, id: id)
    } else if role == .spectator, let room {
      guard perform(.spectate(room: room), origin: origin) else { return }
      sessions.attachSpectator(link, room: room)
      batch.joined.insert(link.id)
      outbox.append(.message(link, .welcome(room: room, seat: nil, token: nil)))
      logger.info("spectating", metadata: ["conn": "\(link.id)", "room": "\(room)"])
    } else {
      let target = store.state.roomForJoin(requested: room)
      if fair == nil, store.state.settingsForJoin(requested: room, fair: false).fair {
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
          origin: origin),
        let seat = store.state.rooms[target]?.seat(holding: stored)
      else { return }
      sessions.attach(link, room: target, seat: seat, token: stored, resumeToken: token)
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

  private func resumeSeat(_ link: ConnectionLink, token: String, id: Int?) {
    let stored = ResumeToken.stored(token)
    guard let (room, seat) = store.state.locate(token: stored) else {
      reply(link, .badToken(), re: id)
      return
    }
    let reconnecting = store.state.rooms[room]?.seats[seat]?.connected == false
    var (target, held) = (room, seat)
    if reconnecting {
      guard
        perform(
          .room(room, .reconnected(seat: seat, at: now())), origin: Origin(link: link, re: id))
      else { return }
      batch.joined.insert(link.id)
      // Back alone in a quick-match room, the player may have been paired elsewhere.
      if let moved = store.state.locate(token: stored), moved.room != room {
        (target, held) = moved
        outbox.append(.roomState(target))
      }
    }
    if let old = sessions.audience(of: target)?.seats[held], old != link {
      // The same player on a new connection: the old one is stale.
      sessions.remove(old.id)
      outbox.append(.close(old))
    }
    sessions.attach(link, room: target, seat: held, token: stored, resumeToken: token)
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

  /// Dispatches `action`; returns whether the rules accepted it (it is then in the
  /// batch the next flush commits, and its room's state in the outbox).
  @discardableResult
  private func perform(_ action: LobbyAction, origin: Origin? = nil) -> Bool {
    let recorded = batch.actions.count
    // A player left alone in a quick-match room may be moved (``followMovedPlayers``):
    // keep the room as it was, to show them how its match ended first.
    var quickRoomBefore: RoomState?
    if case .room(let name, let roomAction) = action, LobbyState.isQuickMatchRoom(name) {
      switch roomAction {
      case .left, .graceExpired: quickRoomBefore = store.state.rooms[name]
      default: break
      }
    }
    store.dispatch(.lobby(action, origin: origin))
    scheduleFlush()
    let accepted = batch.actions.count > recorded
    if accepted, var room = quickRoomBefore, case .room(_, let roomAction) = action {
      room.applyAccepted(roomAction)
      followMovedPlayers(from: room)
    }
    return accepted
  }

  /// Quick match may move a player left alone in `room` (as the last action left it) to
  /// the room of the player waiting (``LobbyState``): their connection follows, with the
  /// old room's last state, then a new `welcome` (the same token) before the new room's.
  private func followMovedPlayers(from room: RoomState) {
    guard let audience = sessions.audience(of: room.name) else { return }
    for (seat, link) in audience.seats {
      guard let member = sessions[link.id], let token = member.token,
        let resumeToken = member.resumeToken,
        store.state.rooms[room.name]?.seats[seat]?.token != token,
        let (target, newSeat) = store.state.locate(token: token)
      else { continue }
      outbox.append(.message(link, .state(seq: room.version, view: room.view(for: seat))))
      sessions.remove(link.id)
      sessions.attach(link, room: target, seat: newSeat, token: token, resumeToken: resumeToken)
      batch.joined.insert(link.id)
      outbox.append(.message(link, .welcome(room: target, seat: newSeat, token: resumeToken)))
      outbox.append(.roomState(target))
      logger.info(
        "moved by quick match",
        metadata: [
          "conn": "\(link.id)", "from": "\(room.name)", "room": "\(target)",
          "seat": "\(newSeat.rawValue)",
        ])
    }
  }

  private func reply(_ link: ConnectionLink, _ error: ProtocolError, re: Int?) {
    outbox.append(.message(link, .error(error, re: re)))
    if error.fatal { outbox.append(.close(link)) }
    scheduleFlush()
  }

  // MARK: - Save, then send

  private func scheduleFlush() {
    guard !flushScheduled else { return }
    flushScheduled = true
    // Runs after whatever else is queued on the loop now, so busy moments commit many
    // actions in one transaction.
    loop.assumeIsolated().execute { self.flush() }
  }

  /// Seals what is pending into a batch and commits it (on the journal's thread when the
  /// disk is slow); what it sends goes out once the commit succeeds. One batch is in
  /// flight at a time: meanwhile the next one gathers (group commit), so a slow disk
  /// makes batches bigger, not the loop slower. `mayCommitHere`: false while a committed
  /// batch's frames wait to go out (they must go before this one's).
  private func flush(mayCommitHere: Bool = true) {
    flushScheduled = false
    guard inFlight == nil, !reloading else { return }
    let deliveries = timed(.send) {
      broadcaster.prepare(outbox.take(), lobby: store.state, sessions: sessions)
    }
    guard let journal, !batch.isEmpty else {
      batch.clear()
      timed(.send) { broadcaster.deliver(deliveries) }
      wakeIdleWaiters()
      return
    }
    let sealed = batch.seal()
    journaledThrough += Int64(sealed.actions.count)
    let snapshot =
      snapshots?.due(after: sealed.actions.count, rooms: store.state.rooms.count) == true
      ? store.state : nil
    inFlight = InFlight(
      batch: sealed, deliveries: deliveries, snapshot: snapshot, through: journaledThrough)
    // On a quick disk the commit is cheaper than two hops between threads; on a slow one
    // (or while a snapshot step holds the journal) it goes to the journal's thread.
    // A snapshot will include this batch: the journal sends later rows to its other table.
    let snapshotAfter = snapshot != nil
    if mayCommitHere,
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

  /// The batch in flight is durable (or not): send what it sends, and commit the next.
  /// After a commit on the journal's thread the next batch is handed to it first, so the
  /// disk works on it while this loop sends (a commit on this loop would only delay it).
  private func committed(
    _ result: Result<JournalThread.CommitTiming, any Error>, onJournalThread: Bool
  ) {
    guard let flight = inFlight else { return }
    inFlight = nil
    switch result {
    case .success(let timing):
      if let lobby = flight.snapshot { snapshots?.write(lobby, through: flight.through) }
      // (Only a batch with actions: what needs no commit goes out after this one's.)
      if onJournalThread, !batch.isEmpty { flush(mayCommitHere: false) }
      timed(.send) { broadcaster.deliver(flight.deliveries) }
      stalls?.recordCommit(
        actions: flight.batch.actions.count, matches: flight.batch.matches.count,
        waitedMicros: timing.waitedMicros, commitMicros: timing.tookMicros,
        sealToSendMicros: Int((NIODeadline.now() - flight.sealedAt).nanoseconds / 1_000))
      flush()
    case .failure(let error):
      journalFailed(error, flight)
    }
  }

  private func wakeIdleWaiters() {
    guard inFlight == nil, !reloading, !idleWaiters.isEmpty else { return }
    let waiters = idleWaiters
    idleWaiters.removeAll()
    for waiter in waiters { waiter.succeed() }
  }

  private func timed<T>(_ step: LoopStallMonitor.Step, _ body: () throws -> T) rethrows -> T {
    if let stalls { try stalls.measure(step, body) } else { try body() }
  }

  /// The commit failed: nothing of it is sent but errors and closes, its senders and
  /// those of everything gathered since are answered `unavailable`, and the lobby goes
  /// back to exactly what the journal holds (read on the journal's thread; nothing is
  /// sent meanwhile); client actions are then refused until a probe write succeeds
  /// (``retrySaving()``).
  private func journalFailed(_ error: any Error, _ flight: InFlight) {
    logger.critical(
      """
      journal write failed: nothing of it was sent and play is paused; it resumes by itself \
      once the journal can be written (check free space on the data directory's disk)
      """,
      metadata: ["error": "\(error)", "path": "\(journal?.path ?? "")"])
    gatekeeper.saving = .failing(retry: nil)
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
    guard let journal else { return }
    reloading = true
    let defaults = store.state.defaults
    journal.submit { journal in (try journal.load(defaults: defaults).lobby, journal.lastSeq) }
      .hop(to: loop).assumeIsolated().whenComplete { result in
        self.reloading = false
        switch result {
        case .success(let (lobby, last)):
          self.store.dispatch(.restore(lobby))
          self.journaledThrough = last
        case .failure(let error):
          self.logger.critical(
            "cannot reload the journal after a failed write",
            metadata: ["error": "\(error)", "path": "\(journal.path)"])
        }
        self.dropMembersTheLobbyDoesNotHold(answered: answered)
        self.scheduleRetry()
        self.flush()
      }
  }

  /// Anyone whose seat the saved lobby does not give them is no longer in a room.
  private func dropMembersTheLobbyDoesNotHold(answered: Set<Int>) {
    for (id, member) in sessions.members {
      let room = store.state.rooms[member.room]
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

  private func scheduleRetry() {
    let task = loop.assumeIsolated().scheduleTask(in: .milliseconds(retryMillis)) {
      self.retrySaving()
    }
    gatekeeper.saving = .failing(retry: task)
  }

  /// Tries one small write on the journal's thread; when it succeeds play resumes: the
  /// lobby is reconciled with the connections (seats whose connection went meanwhile
  /// start their grace) and the timers are scheduled again.
  private func retrySaving() {
    guard let journal else { return }
    let at = now()
    journal.submit { try $0.probe(at: at) }.hop(to: loop).assumeIsolated().whenComplete {
      result in
      guard case .success = result else { return self.scheduleRetry() }
      self.gatekeeper.saving = .healthy
      self.logger.notice(
        "journal writes succeed again; play resumes", metadata: ["path": "\(journal.path)"])
      self.reconcile()
    }
  }

}
