import Logging
import NIOCore
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// The hub's world on its event loop (``HubWorld``): owns the ``HubRunner`` (and through
/// it the ``HubCore``), one table of timers keyed by ``HubTimer``, the journal and the
/// connections' writer; turns what happens into ``HubInput`` values for the runner and
/// carries out each ``HubOutput`` it is handed. It decides nothing about the game.
///
/// Invariants: everything here runs on `loop`; the core handles one input at a time (an
/// input that arrives while outputs are carried out, such as a commit that finished
/// inline, is queued by the runner and handled after them). Not `Sendable`: other
/// threads reach it through ``HubHandle``.
final class HubDriver: HubWorld {
  let loop: any EventLoop
  private let runner: HubRunner<HubDriver>
  var core: HubCore { runner.core }
  let journal: (any HubJournal)?
  let logger: Logger
  let clock: @Sendable () -> Int64
  private let writer: FrameWriter
  /// The connections the hub has heard from, by id.
  private var links: [Int: ConnectionLink] = [:]
  private var timers: [HubTimer: Scheduled<Void>] = [:]
  /// Who waits for everything sealed to be committed and sent (``shutdown()``).
  private var idleWaiters: [EventLoopPromise<Void>] = []
  private var drainEnded: EventLoopPromise<Void>?
  /// Readings and a snapshot under way: a shutdown waits for them.
  private var journalWork: [Int: EventLoopFuture<Void>] = [:]
  private var journalWorkStarted = 0
  /// When the batch in flight was handed to the journal (for the metrics).
  private var sealedAt = NIODeadline.now()
  private var committingActions = 0
  /// Where the host's sentences go (``HostNews``), if anywhere.
  var hostNews: (@Sendable (String) -> Void)?
  /// Where each view to every follower goes for the board (`--board`), if anywhere.
  var board: (@Sendable (SentLobbyView) -> Void)? {
    didSet { if let board, let lastBoardView { board(lastBoardView) } }
  }
  /// The last view to every follower made for the board: a board that comes after it
  /// starts from it.
  private var lastBoardView: SentLobbyView?
  /// Where the answers to the board's requests for records go (`--board`), if anywhere.
  var boardRecords: (@Sendable (BoardRecordAnswer) -> Void)?
  /// Where the name offers for the fleet's name book wait, in a fleet.
  var nameOffers: FleetNameOffers?
  /// How long the loop stalls and what ran in the stalls, when asked for.
  let stalls: LoopStallMonitor?
  var stallLog: Scheduled<Void>?
  var lagProbe: Scheduled<Void>?
  /// Where the hub counts what happens (nil in tests of the hub alone).
  var metrics: ServerMetrics? {
    didSet { writer.metrics = metrics }
  }

  init(
    loop: any EventLoop, core: HubCore, journal: (any HubJournal)?, logger: Logger,
    profileStalls: Bool = false, now: @escaping @Sendable () -> Int64
  ) {
    self.loop = loop
    self.runner = HubRunner(core)
    self.journal = journal
    self.logger = logger
    self.clock = now
    self.writer = FrameWriter(logger: logger, loop: loop)
    self.stalls = profileStalls ? LoopStallMonitor() : nil
  }

  // MARK: - Inputs

  /// Hands `input` to the core, then carries out what it returns; while that runs, a new
  /// input waits its turn (``HubRunner``).
  func handle(_ input: HubInput) {
    runner.handle(input, in: self)
  }

  var now: Int64 { clock() }

  /// The core's handling, timed as `send` (and a `hello`'s alone, for the stall profile).
  func handling(_ input: HubInput, _ handle: () -> [HubOutput]) -> [HubOutput] {
    let began = stalls == nil ? nil : NIODeadline.now()
    let outputs = timed(.send, handle)
    if let began, case .received(.hello, _) = input {
      stalls?.recordHello(nanoseconds: (NIODeadline.now() - began).nanoseconds)
    }
    return outputs
  }

  /// After a restart: the lobby agrees with the (no) connections, the tournament goes on,
  /// and `releasing` names lose their holder.
  func restore(releasing: [String] = []) {
    if let stalls {
      stalls.start(on: loop)
      logStalls()
    }
    if metrics != nil { probeLag() }
    handle(.start(releasing: releasing))
  }

  func receive(_ message: ClientMessage, from link: ConnectionLink) {
    if links[link.id] == nil { links[link.id] = link }
    handle(.received(message, from: link.peer))
  }

  /// The connection refused itself fatally: the error and the close go out after what
  /// the hub answered it before, in order.
  func refuseAfterAnswers(_ link: ConnectionLink, _ error: ProtocolError, re: Int?) {
    if links[link.id] == nil { links[link.id] = link }
    handle(.refused(link.peer, error, re: re))
  }

  func detach(_ link: ConnectionLink) {
    writer.forget(link.id)
    guard links.removeValue(forKey: link.id) != nil else { return }
    handle(.closed(link.peer))
  }

  /// The connection can take more: what waited for it goes out.
  func writable(_ link: ConnectionLink) {
    writer.writable(link)
  }

  func sharedLeadersRead(_ leaders: [LobbyView.Leader]) {
    handle(.sharedLeadersRead(leaders))
  }

  /// The board asked for match `match`'s record, as its request `request`.
  func boardAskedForRecord(request: Int, match: Int64) {
    handle(.boardAskedForRecord(request: request, match: match))
  }

  func fleetNamesRead(_ rows: [FleetName]) {
    handle(.fleetNamesRead(rows))
  }

  /// Starts the drain, ending in `withinMillis` at the latest; returns how many matches
  /// are under way and a future that completes once the drain is over.
  func beginDrain(withinMillis: Int64) -> (running: Int, ended: EventLoopFuture<Void>) {
    let promise = drainEnded ?? loop.makePromise(of: Void.self)
    drainEnded = promise
    let running = core.state.matchesUnderWay
    handle(.drainRequested(withinMillis: withinMillis))
    return (running, promise.futureResult)
  }

  /// The host insisted: the drain ends now.
  func endDrainNow() {
    handle(.drainCut)
  }

  /// Makes everything pending durable and sends it; the future completes once it is, and
  /// what the journal was asked meanwhile (a snapshot, a reading) has finished.
  func shutdown() -> EventLoopFuture<Void> {
    let idle = loop.makePromise(of: Void.self)
    idleWaiters.append(idle)
    handle(.shutdown)
    stalls?.stop()
    stallLog?.cancel()
    lagProbe?.cancel()
    return idle.futureResult.assumeIsolated().flatMap {
      EventLoopFuture.andAllComplete(Array(self.journalWork.values), on: self.loop)
    }.nonisolated()
  }

  // MARK: - Readings

  var lobby: LobbyState { core.state.lobby }
  var backlogCount: Int { writer.backlogCount }
  var unreadiness: String? { core.unreadiness(now: now) }

  // MARK: - Outputs

  func deliver(_ deliveries: [Delivery]) {
    timed(.send) { writer.deliver(deliveries, links: links) }
    for delivery in deliveries {
      if let answer = delivery.boardRecord { boardRecords?(answer) }
      guard let view = delivery.sentLobbyView else { continue }
      lastBoardView = view
      board?(view)
    }
  }

  func cancel(_ timer: HubTimer) {
    timers.removeValue(forKey: timer)?.cancel()
  }

  func writeSnapshot(_ lobby: LobbyState, through: Int64) {
    guard let journal else { return }
    let began = NIODeadline.now()
    track(journal.writeSnapshot(lobby, through: through)) { result in
      self.stalls?.recordSnapshot(began: began)
      self.handle(.snapshotWritten(result))
    }
  }

  func readStandings(leaders: Int, recent: Int) {
    guard let journal else { return }
    track(journal.standings(leaders: leaders, recent: recent)) { result in
      self.handle(.standingsRead(result))
    }
  }

  func readRecord(reading: Int, match: Int64) {
    guard let journal else { return }
    track(journal.match(id: match)) { self.handle(.recordRead(reading: reading, $0)) }
  }

  func reload(defaults: RoomState.Settings) {
    guard let journal else { return }
    track(journal.reload(defaults: defaults)) { self.handle(.reloaded($0)) }
  }

  func probe(at: Int64) {
    guard let journal else { return }
    track(journal.probe(at: at)) { result in
      let succeeded = if case .success = result { true } else { false }
      self.handle(.probed(succeeded: succeeded))
    }
  }

  func news(_ sentence: String) {
    hostNews?(sentence)
  }

  func offerNames(_ offers: [NameOffer]) {
    nameOffers?.append(offers)
  }

  func drained() {
    drainEnded?.succeed()
    drainEnded = nil
  }

  func idle() {
    let waiters = idleWaiters
    idleWaiters.removeAll()
    for waiter in waiters { waiter.succeed() }
  }

  /// The flush runs once what the loop has queued now has run, so busy moments commit
  /// many actions in one transaction; every other timer at its moment.
  func schedule(_ timer: HubTimer, at: Int64) {
    if case .flush = timer {
      loop.assumeIsolated().execute { self.handle(.timerFired(.flush)) }
      return
    }
    timers.removeValue(forKey: timer)?.cancel()
    timers[timer] = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, at - now))) {
      self.timers[timer] = nil
      self.handle(.timerFired(timer))
    }
  }

  /// Commits here when asked to and the journal is quick now (cheaper than two hops
  /// between threads), else on the journal's thread.
  func commit(_ commit: JournalCommit) {
    guard let journal else { return }
    sealedAt = NIODeadline.now()
    committingActions = commit.actions.count
    if commit.inline,
      let done = timed(
        .commit,
        {
          journal.commitNowIfQuick(
            commit.actions, matches: commit.matches, snapshotAfter: commit.snapshotAfter)
        })
    {
      committed(done, matches: commit.matches.count, onJournalThread: false)
      return
    }
    let matches = commit.matches.count
    journal.commit(commit.actions, matches: commit.matches, snapshotAfter: commit.snapshotAfter)
      .hop(to: loop).assumeIsolated().whenComplete {
        self.committed($0, matches: matches, onJournalThread: true)
      }
  }

  private func committed(
    _ result: Result<JournalCommitTiming, any Error>, matches: Int, onJournalThread: Bool
  ) {
    if case .success(let timing) = result {
      let sealToSendMicros = Int((NIODeadline.now() - sealedAt).nanoseconds / 1_000)
      if let metrics, committingActions > 0 {
        metrics.commitSeconds.recordMicroseconds(timing.tookMicros)
        metrics.actionsPerCommit.record(committingActions)
        metrics.journalWait.recordMicroseconds(timing.waitedMicros)
        metrics.commitToSend.recordMicroseconds(sealToSendMicros)
      }
      stalls?.recordCommit(
        actions: committingActions, matches: matches, waitedMicros: timing.waitedMicros,
        commitMicros: timing.tookMicros, sealToSendMicros: sealToSendMicros)
    }
    handle(.committed(result.map { _ in }.mapError(failure), onJournalThread: onJournalThread))
  }

  /// Runs `body` once `future` (the journal's) completes, back on this loop; a shutdown
  /// waits for it.
  private func track<T: Sendable>(
    _ future: EventLoopFuture<T>, _ body: @escaping (Result<T, JournalFailure>) -> Void
  ) {
    journalWorkStarted += 1
    let number = journalWorkStarted
    let back = future.hop(to: loop)
    journalWork[number] = back.map { _ in }.recover { _ in }
    back.assumeIsolated().whenComplete { result in
      self.journalWork[number] = nil
      body(result.mapError(self.failure))
    }
  }

  private func failure(_ error: any Error) -> JournalFailure {
    JournalFailure("\(error) (journal \(journal?.path ?? "-"))")
  }
}
