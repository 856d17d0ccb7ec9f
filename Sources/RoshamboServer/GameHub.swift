import Foundation
import Logging
import NIOCore
import Redux
import RoshamboGame
import RoshamboProtocol

/// A connection as the hub knows it: an id and the channel to write frames to.
struct ConnectionLink: Sendable, Hashable {
  let id: Int
  let channel: any Channel

  static func == (lhs: ConnectionLink, rhs: ConnectionLink) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The single writer of the game: the lobby store, who is connected where, the timers,
/// the journal, and the broadcast of each change.
///
/// Invariants: everything here runs on `loop` (one serial executor, no locks); an
/// accepted action is journaled before any connection is sent its result, and when the
/// journal cannot be written the lobby goes back to exactly what it holds and nothing of
/// the failed commit is sent; state leaves only through `RoomState.view(for:)`, encoded
/// once per audience; what waits for a connection that does not read is bounded (its
/// newest state and a few control messages). Not `Sendable`: other threads reach it
/// through ``HubHandle``.
final class GameHub {
  private struct Member {
    var link: ConnectionLink
    var room: String
    var seat: Seat?
    /// What the lobby stores for this player's resume token (players only).
    var token: String?
  }

  /// What waits for a connection that cannot take more now: its newest `state` (older
  /// ones are skipped; `seq` still only rises) and the other messages in order.
  private struct Backlog {
    var control: [ByteBuffer] = []
    var state: ByteBuffer?
  }

  /// Whether the journal can be written.
  private enum Saving {
    case healthy
    /// A commit failed: client actions are answered `unavailable` until a probe succeeds.
    case failing(retry: Scheduled<Void>?)
  }

  /// The most non-state messages kept for a connection that does not read; past it the
  /// connection is closed.
  static let backlogLimit = 32

  private struct Audience {
    var seats: [Seat: ConnectionLink] = [:]
    var spectators: Set<ConnectionLink> = []
  }

  private enum Outgoing {
    case message(ConnectionLink, ServerMessage)
    /// The room's latest state to everyone in it (sent once per flush).
    case roomState(String)
    /// The room's latest state to one connection only.
    case stateTo(ConnectionLink, String)
    case close(ConnectionLink)
  }

  let loop: any EventLoop
  private var store: Store<LobbyState, LobbyAction>
  private let journal: Journal?
  private let logger: Logger
  private let now: @Sendable () -> Int64
  private var members: [Int: Member] = [:]
  private var audiences: [String: Audience] = [:]
  private var outbox: [Outgoing] = []
  private var pendingActions: [LobbyAction] = []
  private var pendingMatches: [FinishedMatch] = []
  /// Who sent the actions waiting to be committed, to answer them if the commit fails.
  private var pendingOrigins: [(link: ConnectionLink, id: Int?)] = []
  /// Connections whose membership rests on actions not committed yet.
  private var joinedInBatch: Set<Int> = []
  private var backlogs: [Int: Backlog] = [:]
  private var saving = Saving.healthy
  private let retryMillis: Int64
  private var flushScheduled = false
  private let compactionInterval: Int
  private var journaledSinceCompaction = 0
  /// The snapshot being written, if one is.
  private var compaction: EventLoopFuture<Void>?
  private var deadlineTimers: [String: (deadline: Int64, task: Scheduled<Void>)] = [:]
  private var graceTimers: [String: Scheduled<Void>] = [:]

  init(
    loop: any EventLoop, lobby: LobbyState, journal: Journal?, logger: Logger,
    compactionInterval: Int = 10_000, retryMillis: Int64 = 1_000,
    now: @escaping @Sendable () -> Int64
  ) {
    self.loop = loop
    self.compactionInterval = compactionInterval
    self.retryMillis = max(1, retryMillis)
    self.store = Store(initialState: lobby, reducer: LobbyReducer())
    self.journal = journal
    self.logger = logger
    self.now = now
  }

  var lobby: LobbyState { store.state }

  /// The journal, for tests that make it fail.
  var journalForTests: Journal? { journal }

  // MARK: - Start and stop

  /// After a restart no connection is attached: every seat that was connected starts its
  /// grace now, spectators are gone, and every deadline and grace is scheduled again.
  func restore() {
    reconcile()
  }

  /// Makes the lobby agree with the connections the hub holds: a seat marked connected
  /// with no connection starts its grace, spectators nobody holds are removed (a room left
  /// empty goes away), and every deadline and grace is scheduled. Run after a restart and
  /// when the journal can be written again after failing.
  private func reconcile() {
    let at = now()
    for (name, room) in store.state.rooms {
      let audience = audiences[name]
      for (seat, held) in room.seats where !held.hasLeft && held.connected {
        if audience?.seats[seat] == nil, perform(.room(name, .disconnected(seat: seat, at: at))) {
          publish(name)
        }
      }
      let watching = audience?.spectators.count ?? 0
      for _ in 0..<max(0, room.spectators - watching) {
        if perform(.room(name, .spectatorLeft)) { publish(name) }
      }
    }
    for (name, room) in store.state.rooms {
      for (seat, held) in room.seats where !held.hasLeft && !held.connected {
        if let ends = held.graceEndsAt { scheduleGrace(room: name, seat: seat, endsAt: ends) }
      }
      scheduleDeadline(room)
    }
    flush()
  }

  /// Makes everything pending durable and sends it; the future completes once a
  /// snapshot being written has been written too.
  func shutdown() -> EventLoopFuture<Void> {
    flush()
    for timer in deadlineTimers.values { timer.task.cancel() }
    for timer in graceTimers.values { timer.cancel() }
    if case .failing(let retry) = saving { retry?.cancel() }
    return compaction ?? loop.makeSucceededVoidFuture()
  }

  // MARK: - From connections

  func receive(_ message: ClientMessage, from link: ConnectionLink) {
    switch message {
    case .hello(let version, let name, let role, let room, let resume, let id):
      hello(link, version: version, name: name, role: role, room: room, resume: resume, id: id)
    case .choose(let round, let weapon, let id):
      guard let (room, seat) = seat(of: link, re: id) else { break }
      logger.debug(
        "chose",
        metadata: [
          "conn": "\(link.id)", "room": "\(room)", "seat": "\(seat.rawValue)", "round": "\(round)",
        ])
      if perform(
        .room(room, .chose(seat: seat, round: round, weapon: weapon, at: now())), re: id,
        replyTo: link)
      {
        publish(room)
      }
    case .rematch(let id):
      guard let (room, seat) = seat(of: link, re: id) else { break }
      if perform(.room(room, .rematchRequested(seat: seat, at: now())), re: id, replyTo: link) {
        publish(room)
      }
    case .leave(let id):
      guard let member = members.removeValue(forKey: link.id) else {
        reply(link, .notPlaying("You have not joined a room."), re: id)
        break
      }
      forget(member)
      let action: RoomAction = member.seat.map { .left(seat: $0, at: now()) } ?? .spectatorLeft
      if perform(.room(member.room, action), re: id, replyTo: link) { publish(member.room) }
      logger.info("left", metadata: ["conn": "\(link.id)", "room": "\(member.room)"])
      outbox.append(.close(link))
      scheduleFlush()
    case .ping(let id):
      outbox.append(.message(link, .pong(id: id)))
      scheduleFlush()
    }
  }

  /// The connection is gone: its seat starts its grace, or its spectator leaves.
  func detach(_ link: ConnectionLink) {
    backlogs[link.id] = nil
    joinedInBatch.remove(link.id)
    guard let member = members.removeValue(forKey: link.id) else { return }
    forget(member)
    let at = now()
    if let seat = member.seat {
      if perform(.room(member.room, .disconnected(seat: seat, at: at))),
        let ends = store.state.rooms[member.room]?.seats[seat]?.graceEndsAt
      {
        scheduleGrace(room: member.room, seat: seat, endsAt: ends)
      }
      logger.info("disconnected", metadata: ["conn": "\(link.id)", "room": "\(member.room)"])
    } else {
      perform(.room(member.room, .spectatorLeft))
    }
    publish(member.room)
  }

  private func hello(
    _ link: ConnectionLink, version: Int, name: String, role: ClientMessage.Role, room: String?,
    resume: String?, id: Int?
  ) {
    guard members[link.id] == nil else {
      reply(link, .badMessage("hello was already accepted on this connection."), re: id)
      return
    }
    guard version == WireProtocol.version else {
      reply(
        link,
        ProtocolError(
          code: "unsupported_protocol",
          message: "This server speaks protocol \(WireProtocol.version), not \(version).",
          fatal: true),
        re: id)
      return
    }
    if let token = resume {
      resumeSeat(link, token: token, id: id)
    } else if role == .spectator, let room {
      guard perform(.spectate(room: room), re: id, replyTo: link) else { return }
      members[link.id] = Member(link: link, room: room, seat: nil, token: nil)
      joinedInBatch.insert(link.id)
      audiences[room, default: Audience()].spectators.insert(link)
      outbox.append(.message(link, .welcome(room: room, seat: nil, token: nil)))
      publish(room)
      logger.info("spectating", metadata: ["conn": "\(link.id)", "room": "\(room)"])
    } else {
      let token = ResumeToken.make()
      let stored = ResumeToken.stored(token)
      let target = store.state.roomForJoin(requested: room)
      guard
        perform(.join(room: room, name: name, token: stored, at: now()), re: id, replyTo: link),
        let seat = store.state.rooms[target]?.seat(holding: stored)
      else { return }
      attach(link, room: target, seat: seat, token: stored)
      joinedInBatch.insert(link.id)
      outbox.append(.message(link, .welcome(room: target, seat: seat, token: token)))
      publish(target)
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
      reply(
        link,
        ProtocolError(
          code: "bad_token",
          message:
            "That resume token holds no seat (the match may have ended); join again without it.",
          fatal: true),
        re: id)
      return
    }
    let reconnecting = store.state.rooms[room]?.seats[seat]?.connected == false
    if reconnecting {
      guard perform(.room(room, .reconnected(seat: seat, at: now())), re: id, replyTo: link)
      else { return }
      joinedInBatch.insert(link.id)
    }
    if let old = audiences[room]?.seats[seat], old != link {
      // The same player on a new connection: the old one is stale.
      members[old.id] = nil
      outbox.append(.close(old))
    }
    attach(link, room: room, seat: seat, token: stored)
    graceTimers.removeValue(forKey: "\(room)#\(seat.rawValue)")?.cancel()
    // The welcome first: a room's state goes out at its last place in the outbox.
    outbox.append(.message(link, .welcome(room: room, seat: seat, token: token)))
    if reconnecting {
      publish(room)
    } else {
      outbox.append(.stateTo(link, room))
      scheduleFlush()
    }
    logger.info(
      "resumed", metadata: ["conn": "\(link.id)", "room": "\(room)", "seat": "\(seat.rawValue)"])
  }

  private func attach(_ link: ConnectionLink, room: String, seat: Seat, token: String) {
    members[link.id] = Member(link: link, room: room, seat: seat, token: token)
    audiences[room, default: Audience()].seats[seat] = link
  }

  private func forget(_ member: Member) {
    let link = member.link
    if let seat = member.seat {
      if audiences[member.room]?.seats[seat] == link { audiences[member.room]?.seats[seat] = nil }
    } else {
      audiences[member.room]?.spectators.remove(link)
    }
    if let audience = audiences[member.room], audience.seats.isEmpty, audience.spectators.isEmpty {
      audiences[member.room] = nil
    }
  }

  private func seat(of link: ConnectionLink, re: Int?) -> (String, Seat)? {
    guard let member = members[link.id] else {
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

  /// Applies `action` if the rules accept it: dispatch, journal, timers, logs. A refusal
  /// goes back to `link` as an error (stale timer events are dropped silently).
  @discardableResult
  private func perform(
    _ action: LobbyAction, re: Int? = nil, replyTo link: ConnectionLink? = nil
  ) -> Bool {
    if case .failing = saving {
      // Nothing may run ahead of the journal: timers and dropped connections are
      // reconciled once it can be written again.
      if let link { reply(link, .unavailable(), re: re) }
      return false
    }
    if let refusal = store.state.refusal(for: action) {
      if case .stale = refusal { return false }
      if let link {
        reply(link, ProtocolError(refusal), re: re)
        logger.info("refused", metadata: ["conn": "\(link.id)", "code": "\(refusal.code)"])
      }
      return false
    }
    let name: String
    switch action {
    case .join(let room, _, _, _): name = store.state.roomForJoin(requested: room)
    case .spectate(let room), .room(let room, _): name = room
    }
    let before = store.state.rooms[name]
    store.dispatch(action)
    pendingActions.append(action)
    if let link { pendingOrigins.append((link, re)) }
    if let room = store.state.rooms[name] {
      if room.history.count > before?.history.count ?? 0, let result = room.history.last {
        // Resolved: the picks are public now.
        logger.info(
          "round",
          metadata: [
            "room": "\(name)", "round": "\(result.round)",
            "weapons": "\(result.weapons.map { $0?.rawValue ?? "none" })",
            "winner": "\(result.winner?.rawValue ?? 0)",
          ])
      }
      if room.phase == .over, before?.phase != .over {
        let match = FinishedMatch(room: room, at: now())
        pendingMatches.append(match)
        logger.info(
          "match over",
          metadata: ["room": "\(name)", "winner": "\(match.winner)", "score": "\(match.scores)"])
      }
      scheduleDeadline(room)
    }
    scheduleFlush()
    return true
  }

  private func reply(_ link: ConnectionLink, _ error: ProtocolError, re: Int?) {
    outbox.append(.message(link, .error(error, re: re)))
    if error.fatal { outbox.append(.close(link)) }
    scheduleFlush()
  }

  private func publish(_ room: String) {
    outbox.append(.roomState(room))
    scheduleFlush()
  }

  // MARK: - Timers

  private func scheduleDeadline(_ room: RoomState) {
    guard let deadline = room.deadline, room.phase == .choosing else {
      deadlineTimers.removeValue(forKey: room.name)?.task.cancel()
      return
    }
    if deadlineTimers[room.name]?.deadline == deadline { return }
    deadlineTimers[room.name]?.task.cancel()
    let name = room.name
    let round = room.round
    let task = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, deadline - now()))) {
      self.deadlineTimers[name] = nil
      if self.perform(.room(name, .deadlinePassed(round: round, at: max(self.now(), deadline)))) {
        self.publish(name)
      }
    }
    deadlineTimers[name] = (deadline, task)
  }

  private func scheduleGrace(room: String, seat: Seat, endsAt: Int64) {
    let key = "\(room)#\(seat.rawValue)"
    graceTimers[key]?.cancel()
    graceTimers[key] = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, endsAt - now())))
    {
      self.graceTimers[key] = nil
      if self.perform(.room(room, .graceExpired(seat: seat, at: max(self.now(), endsAt)))) {
        self.logger.info(
          "grace expired", metadata: ["room": "\(room)", "seat": "\(seat.rawValue)"])
        self.publish(room)
      }
    }
  }

  // MARK: - Save, then send

  private func scheduleFlush() {
    guard !flushScheduled else { return }
    flushScheduled = true
    // Runs after whatever else is queued on the loop now, so busy moments commit many
    // actions in one transaction.
    loop.assumeIsolated().execute { self.flush() }
  }

  /// Folds the journal into a snapshot without stopping the game: every reduced action
  /// is journaled at this point, so the state now is the lobby after the journal's last
  /// row. The state (a value) is encoded on another thread; the hub then writes it in
  /// small steps, one per turn of the loop with I/O in between, while later actions go
  /// on being journaled after that row.
  private func compact() {
    guard let journal else { return }
    let through = journal.lastSeq
    let lobby = store.state
    journaledSinceCompaction = 0
    let promise = loop.makePromise(of: Void.self)
    compaction = promise.futureResult
    let bound = NIOLoopBound((hub: self, journal: journal), eventLoop: loop)
    let loop = self.loop
    DispatchQueue.global(qos: .utility).async {
      let parts = Journal.snapshotParts(lobby)
      loop.execute {
        let (hub, journal) = bound.value
        hub.writeSnapshot(journal.beginSnapshot(parts, through: through), in: journal, promise)
      }
    }
  }

  private func writeSnapshot(
    _ snapshot: Journal.PendingSnapshot, in journal: Journal, _ promise: EventLoopPromise<Void>
  ) {
    var snapshot = snapshot
    do {
      if try journal.writeNextPart(of: &snapshot) {
        // The next step in a later turn of the loop, after the sockets have been read:
        // a task queued with `execute` would run in this same turn, before any I/O.
        loop.assumeIsolated().scheduleTask(in: .milliseconds(1)) {
          self.writeSnapshot(snapshot, in: journal, promise)
        }
        return
      }
    } catch {
      snapshotFailed(error, promise: promise)
      return
    }
    compaction = nil
    promise.succeed()
  }

  private func snapshotFailed(_ error: any Error, promise: EventLoopPromise<Void>) {
    logger.error(
      "snapshot failed; the journal keeps every action and grows until one succeeds",
      metadata: ["error": "\(error)", "path": "\(journal?.path ?? "")"])
    compaction = nil
    promise.succeed()
  }

  private func flush() {
    flushScheduled = false
    if !pendingActions.isEmpty || !pendingMatches.isEmpty {
      do {
        try journal?.append(pendingActions, matches: pendingMatches)
        journaledSinceCompaction += pendingActions.count
        // A snapshot costs in proportion to the rooms; taking one at most every 10
        // actions per room keeps its cost per action flat as the lobby grows.
        let interval = max(compactionInterval, 10 * store.state.rooms.count)
        if journaledSinceCompaction >= interval, compaction == nil {
          compact()
        }
      } catch {
        journalFailed(error)
      }
      pendingActions.removeAll(keepingCapacity: true)
      pendingMatches.removeAll()
      pendingOrigins.removeAll(keepingCapacity: true)
      joinedInBatch.removeAll(keepingCapacity: true)
    }
    let items = outbox
    outbox.removeAll(keepingCapacity: true)
    // A room's state goes out once, at its last place in the outbox: after every
    // welcome queued for that room, so no connection sees a state before its welcome.
    var lastPlace: [String: Int] = [:]
    for (index, item) in items.enumerated() {
      if case .roomState(let room) = item { lastPlace[room] = index }
    }
    for (index, item) in items.enumerated() {
      switch item {
      case .message(let link, let message):
        send(link, message)
      case .roomState(let room):
        if lastPlace[room] == index { broadcast(room) }
      case .stateTo(let link, let room):
        guard let state = store.state.rooms[room] else { continue }
        let seat = members[link.id]?.seat
        send(link, .state(seq: state.version, view: state.view(for: seat)))
      case .close(let link):
        link.channel.close(promise: nil)
      }
    }
  }

  /// The commit failed: nothing of it is sent, its senders are answered `unavailable`,
  /// and the lobby goes back to exactly what the journal holds; client actions are then
  /// refused until a probe write succeeds (``retrySaving()``).
  private func journalFailed(_ error: any Error) {
    logger.critical(
      """
      journal write failed: nothing of it was sent and play is paused; it resumes by itself \
      once the journal can be written (check free space on the data directory's disk)
      """,
      metadata: ["error": "\(error)", "path": "\(journal?.path ?? "")"])
    // Only errors, pongs and closes may still go out: every state and welcome in the
    // outbox came from what was not saved.
    outbox.removeAll { item in
      switch item {
      case .message(_, .error), .message(_, .pong), .close: false
      default: true
      }
    }
    var answered: Set<Int> = []
    for (link, id) in pendingOrigins {
      answered.insert(link.id)
      outbox.append(.message(link, .error(.unavailable(), re: id)))
    }
    for id in joinedInBatch {
      if let member = members.removeValue(forKey: id) { forget(member) }
    }
    if let journal {
      do {
        let loaded = try journal.load(defaults: store.state.defaults)
        store = Store(initialState: loaded.lobby, reducer: LobbyReducer())
      } catch {
        logger.critical(
          "cannot reload the journal after a failed write",
          metadata: ["error": "\(error)", "path": "\(journal.path)"])
      }
    }
    // Anyone whose seat the saved lobby does not give them is no longer in a room.
    for (id, member) in members {
      let room = store.state.rooms[member.room]
      let holds =
        if let seat = member.seat {
          room?.seats[seat].map { !$0.hasLeft && $0.token == member.token } ?? false
        } else {
          room != nil
        }
      if !holds {
        members[id] = nil
        forget(member)
        if !answered.contains(id) {
          outbox.append(.message(member.link, .error(.unavailable(), re: nil)))
        }
      }
    }
    scheduleRetry()
  }

  private func scheduleRetry() {
    let task = loop.assumeIsolated().scheduleTask(in: .milliseconds(retryMillis)) {
      self.retrySaving()
    }
    saving = .failing(retry: task)
  }

  /// Tries one small write; when it succeeds play resumes: the lobby is reconciled with
  /// the connections (seats whose connection went meanwhile start their grace) and the
  /// timers are scheduled again.
  private func retrySaving() {
    guard let journal else { return }
    do {
      try journal.probe(at: now())
    } catch {
      scheduleRetry()
      return
    }
    saving = .healthy
    logger.notice(
      "journal writes succeed again; play resumes", metadata: ["path": "\(journal.path)"])
    reconcile()
  }

  /// The room's state to everyone in it: one encoding per audience (seat 1, seat 2,
  /// spectators), never one per connection.
  private func broadcast(_ name: String) {
    guard let room = store.state.rooms[name], let audience = audiences[name] else { return }
    for (seat, link) in audience.seats {
      send(link, .state(seq: room.version, view: room.view(for: seat)))
    }
    if !audience.spectators.isEmpty,
      let frame = frame(.state(seq: room.version, view: room.view(for: nil)), room: name)
    {
      for link in audience.spectators { deliver(frame, to: link, conflatable: true) }
    }
  }

  private func send(_ link: ConnectionLink, _ message: ServerMessage) {
    guard let frame = frame(message, room: members[link.id]?.room) else { return }
    if case .state = message {
      deliver(frame, to: link, conflatable: true)
    } else {
      deliver(frame, to: link, conflatable: false)
    }
  }

  /// The message as a frame, or nil (logged as critical) if it would be over the
  /// protocol's limit: a peer could not read it, so it is a server bug never to send.
  private func frame(_ message: ServerMessage, room: String?) -> ByteBuffer? {
    let payload = message.encoded()
    guard payload.count <= WireProtocol.maxFrameLength else {
      logger.critical(
        "a frame over the protocol's limit was not sent (a server bug: please report it)",
        metadata: ["bytes": "\(payload.count)", "room": "\(room ?? "-")"])
      return nil
    }
    return ByteBuffer.frame(payload)
  }

  /// Writes `frame` now if the connection can take it; otherwise keeps it in the
  /// connection's backlog (a state replaces the state there) until ``writable(_:)``.
  private func deliver(_ frame: ByteBuffer, to link: ConnectionLink, conflatable: Bool) {
    if var backlog = backlogs[link.id] {
      if conflatable {
        backlog.state = frame
      } else {
        backlog.control.append(frame)
      }
      guard backlog.control.count <= Self.backlogLimit else {
        backlogs[link.id] = nil
        logger.info("closing a connection that does not read", metadata: ["conn": "\(link.id)"])
        link.channel.close(promise: nil)
        return
      }
      backlogs[link.id] = backlog
    } else if link.channel.isWritable {
      link.channel.writeAndFlush(frame, promise: nil)
    } else {
      backlogs[link.id] = conflatable ? Backlog(state: frame) : Backlog(control: [frame])
    }
  }

  /// The connection can take more: what waited for it goes out, the newest state last.
  func writable(_ link: ConnectionLink) {
    guard let backlog = backlogs.removeValue(forKey: link.id) else { return }
    for frame in backlog.control { link.channel.write(frame, promise: nil) }
    if let state = backlog.state { link.channel.write(state, promise: nil) }
    link.channel.flush()
  }

  /// How many connections have something waiting (for tests).
  var backlogCount: Int { backlogs.count }
}

extension ProtocolError {
  fileprivate static func notPlaying(_ message: String) -> ProtocolError {
    ProtocolError(code: "not_playing", message: message)
  }
}

/// The `Sendable` way to the hub from other event loops: each call hops to the hub's loop.
struct HubHandle: Sendable {
  let loop: any EventLoop
  private let hub: NIOLoopBound<GameHub>

  init(_ hub: GameHub) {
    self.loop = hub.loop
    self.hub = NIOLoopBound(hub, eventLoop: hub.loop)
  }

  func execute(_ body: @escaping @Sendable (GameHub) -> Void) {
    loop.execute { body(self.hub.value) }
  }

  func submit<T: Sendable>(_ body: @escaping @Sendable (GameHub) -> T) -> EventLoopFuture<T> {
    loop.submit { body(self.hub.value) }
  }
}
