import Foundation
import GRDB
import NIOCore
import NIOPosix
import RoshamboGame
import RoshamboServer

/// The journal on a thread of its own, so the hub's loop never waits for a slow disk:
/// writes (commits, snapshot parts, probes) and reads after start run there, one at a
/// time in the order asked, and their results come back as futures. While the disk is
/// fast and the thread idle, the hub may commit on its own loop instead
/// (``commitNowIfQuick(_:)``): a hop to another thread and back costs more than such a
/// commit. Snapshots are encoded on a second thread at lower priority, so on a 2-core
/// machine they cannot take the CPU the game needs.
///
/// Invariant: the `Journal` is only touched while holding the box's lock, so one thread
/// at a time uses it, and in the order the hub asked.
package final class JournalThread: HubJournal {
  let loop: any EventLoop
  package let path: String
  /// The journal's history outbox: how many matches wait, how many were dropped.
  package let outboxLevel: OutboxLevel
  /// The different rated opponents a player needs to be on the lobby's leaderboard.
  package let listedOpponents: Int
  private let group: MultiThreadedEventLoopGroup
  private let box: JournalBox
  /// The journal's low-priority work: encoding snapshots, checkpoints (one thread, `nice`
  /// 10).
  private let encoder: NIOThreadPool
  /// Commits averaging under this many µs may run on the hub's loop; 0: never.
  private let quickCommitMicros: Int
  private let reader = Reader()

  /// The connection of ``read(_:)``, opened on first use: through the journal's own VFS
  /// (the process's lock, the WAL's index in its memory), and refusing to write
  /// (`query_only`). Not opened read-only: SQLite passes a read-only file's locks on to
  /// the system, where they would change the lock the process holds on the journal.
  ///
  /// `@unchecked Sendable`: `database` is only touched on the low-priority thread (one).
  private final class Reader: @unchecked Sendable {
    private var database: DatabaseQueue?

    func connection(path: String) throws -> DatabaseQueue {
      if let database { return database }
      var configuration = Configuration()
      configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA query_only = 1") }
      let opened = try DatabaseQueue(
        path: Journal.uri(path, vfs: Journal.serverVFS), configuration: configuration)
      database = opened
      return opened
    }
  }

  /// Opens the journal in `directory` on a new thread; `prepare` runs there first, with
  /// the journal (loading, compacting at start). With `keepsTail` and durability
  /// `process`, commits go through the journal's tail (``JournalTail``).
  static func open<T: Sendable>(
    directory: String, keepMatches: Int, quickCommitMicros: Int, shipsHistory: Bool = false,
    maxOutbox: Int = Journal.defaultMaxOutbox, durability: JournalDurability = .process,
    checkpointInterval: Int = Journal.defaultCheckpointInterval,
    walFrameLimit: Int = Journal.defaultWALFrameLimit,
    listedOpponents: Int = Glicko2Rating.listedOpponents, keepsTail: Bool = true,
    prepare: @escaping @Sendable (Journal) throws -> T
  ) async throws -> (JournalThread, T) {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let encoder = NIOThreadPool(numberOfThreads: 1)
    encoder.start()
    _ = try? await encoder.runIfActive {
      // Lower this thread's priority: a snapshot or a checkpoint may wait, the game may
      // not. (On Linux a thread has its own nice value, and `who` 0 is the calling one.)
      _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }
    do {
      let (box, prepared) = try await loop.submit {
        let box = JournalBox(
          try Journal(
            directory: directory, keepMatches: keepMatches, shipsHistory: shipsHistory,
            maxOutbox: maxOutbox, background: encoder, durability: durability,
            checkpointInterval: checkpointInterval, walFrameLimit: walFrameLimit,
            keepsTail: keepsTail && durability == .process),
          loop: loop)
        return (box, try box.withJournal(prepare))
      }.get()
      let (path, outboxLevel) = box.withJournal { ($0.path, $0.outboxLevel) }
      let thread = JournalThread(
        group: group, loop: loop, box: box, encoder: encoder, path: path,
        outboxLevel: outboxLevel, quickCommitMicros: quickCommitMicros,
        listedOpponents: listedOpponents)
      return (thread, prepared)
    } catch {
      try? await encoder.shutdownGracefully()
      try? await group.shutdownGracefully()
      throw error
    }
  }

  private init(
    group: MultiThreadedEventLoopGroup, loop: any EventLoop, box: JournalBox,
    encoder: NIOThreadPool, path: String, outboxLevel: OutboxLevel, quickCommitMicros: Int,
    listedOpponents: Int
  ) {
    self.listedOpponents = listedOpponents
    self.outboxLevel = outboxLevel
    self.quickCommitMicros = quickCommitMicros
    self.group = group
    self.loop = loop
    self.box = box
    self.encoder = encoder
    self.path = path
  }

  /// Runs `body` with the journal on its thread, after everything asked before it (and
  /// with the matches committed in their rows written to `matches`).
  package func submit<T: Sendable>(_ body: @escaping @Sendable (Journal) throws -> T)
    -> EventLoopFuture<T>
  {
    let box = self.box
    return loop.submit {
      box.settleWaitingMatches()
      return try box.withJournal(body)
    }
  }

  /// Commits `actions` on the journal's thread (`snapshotAfter`: see
  /// ``Journal/append(_:matches:snapshotAfter:)``).
  package func commit(
    _ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool = false
  ) -> EventLoopFuture<JournalCommitTiming> {
    let box = self.box
    let asked = NIODeadline.now()
    return loop.submit {
      let waited = Int((NIODeadline.now() - asked).nanoseconds / 1_000)
      return JournalCommitTiming(
        waitedMicros: waited,
        tookMicros: try box.commit(actions, matches: matches, snapshotAfter: snapshotAfter))
    }
  }

  /// What the journal's thread did besides commits (snapshot steps, loads, probes) since
  /// ``resetOtherWork()``: how long each task took. For the stall profile.
  package var otherWork: LoopStallMonitor.Histogram { box.otherWorkSoFar }

  package func resetOtherWork() { box.resetOtherWork() }

  package var bytesOnDisk: Int {
    ["", "-wal", Journal.tailSuffix].reduce(0) { total, suffix in
      let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size]) as? Int
      return total + (size ?? 0)
    }
  }

  package var historyWaiting: Int { outboxLevel.waiting }

  package func reload(defaults: RoomState.Settings) -> EventLoopFuture<(LobbyState, Int64)> {
    submit { journal in (try journal.load(defaults: defaults).lobby, journal.lastSeq) }
  }

  package func probe(at: Int64) -> EventLoopFuture<Void> {
    submit { try $0.probe(at: at) }
  }

  /// The lobby (a value) is encoded on the low-priority thread, then written on the
  /// journal's own thread a part per step, so commits asked for meanwhile run between the
  /// steps.
  package func writeSnapshot(_ lobby: LobbyState, through: Int64) -> EventLoopFuture<Void> {
    encode { Journal.snapshotParts(lobby) }
      .flatMap { parts in self.submit { $0.beginSnapshot(parts, through: through) } }
      .flatMap { self.steps($0) }
  }

  /// Each step of `snapshot` as its own task on the journal's thread, each followed by a
  /// rest as long as it took (at least ``minimumRest``): the steps take at most half of
  /// that thread, so a commit asked meanwhile finds it free at least as often as not,
  /// and on a 2-core machine a snapshot takes no more than half a core from the game.
  private func steps(_ snapshot: Journal.PendingSnapshot) -> EventLoopFuture<Void> {
    submit { journal -> (Bool, Journal.PendingSnapshot, TimeAmount) in
      let start = NIODeadline.now()
      var snapshot = snapshot
      let more = try journal.writeNextPart(of: &snapshot)
      return (more, snapshot, NIODeadline.now() - start)
    }.flatMap { more, snapshot, took in
      guard more else { return self.loop.makeSucceededVoidFuture() }
      return self.loop.scheduleTask(in: max(took, Self.minimumRest)) {}.futureResult.flatMap {
        self.steps(snapshot)
      }
    }
  }

  /// The shortest rest between two snapshot steps.
  static let minimumRest = TimeAmount.microseconds(200)

  /// Commits on the caller's thread if the journal is free and recent commits were quick;
  /// nil (nothing done) otherwise, and the caller uses ``commit(_:matches:)``.
  package func commitNowIfQuick(
    _ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool = false
  ) -> Result<JournalCommitTiming, any Error>? {
    box.commitIfQuick(
      actions, matches: matches, snapshotAfter: snapshotAfter, under: quickCommitMicros
    )
    .map { $0.map { JournalCommitTiming(tookMicros: $0) } }
  }

  /// `body` on the low-priority thread, through a connection of its own that only reads: in
  /// WAL mode it neither waits for commits nor holds them up (on the journal's own
  /// connection a query of thousands of players would).
  private func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T)
    -> EventLoopFuture<T>
  {
    let (reader, path, encoder, box) = (self.reader, self.path, self.encoder, self.box)
    // Through the journal's thread first: matches a commit left in their rows are in
    // `matches` when the read begins.
    return loop.flatSubmit {
      box.settleWaitingMatches()
      return encoder.runIfActive(eventLoop: self.loop) {
        try reader.connection(path: path).read(body)
      }
    }
  }

  /// The leaderboard's top and the latest matches (without their rounds): what the lobby
  /// shows of the journal.
  package func standings(leaders: Int, recent: Int) -> EventLoopFuture<
    ([LobbyView.Leader], [FinishedMatch])
  > {
    let (path, listed) = (self.path, listedOpponents)
    return read { db in
      (
        try Journal.leaderboard(db, path: path, limit: leaders, listedOpponents: listed),
        try Journal.matches(db, Journal.MatchFilter(limit: recent, withRounds: false))
      )
    }
  }

  /// The oldest matches waiting to be shipped, with their rounds, at most `limit`: read
  /// beside the journal's thread, which commits the game's actions.
  package func unshipped(limit: Int) -> EventLoopFuture<[FinishedMatch]> {
    read { try Journal.matches($0, inOutboxUpTo: limit) }
  }

  /// The kept match numbered `id` (nil: none).
  package func match(id: Int64) -> EventLoopFuture<FinishedMatch?> {
    read { try Journal.match($0, id: id) }
  }

  /// What a tool asked of this journal (``JournalSocket``), answered beside the game.
  func answer(_ question: JournalQuestion) -> EventLoopFuture<JournalAnswer> {
    let path = self.path
    return read { try question.answer(on: $0, path: path) }
  }

  /// Encodes a snapshot's parts on the low-priority thread.
  func encode(_ work: @escaping @Sendable () -> [[UInt8]]) -> EventLoopFuture<[[UInt8]]> {
    encoder.runIfActive(eventLoop: loop, work)
  }

  /// Waits for what was asked, then closes the thread.
  package func close() async throws {
    let box = self.box
    _ = try? await loop.submit { box.settleWaitingMatches() }.get()
    try await encoder.shutdownGracefully()
    try await group.shutdownGracefully()
  }
}

/// The journal with its lock, and how long its commits have been taking.
///
/// A commit on the hub's loop goes to the journal's tail when it has one (a copy into
/// memory the kernel keeps, under the tail's own lock, so it never waits for this one);
/// the journal's thread writes the tail's rows to the database ``applyDelay`` later.
///
/// After a commit that leaves enough matches unfolded, it folds them into the standings
/// on the journal's thread, a batch per task, so commits asked meanwhile run in between.
/// A commit that ends matches writes them in their action's row; they are written to
/// `matches` ``settleDelay`` later, or before the next read or task if that comes first.
///
/// `@unchecked Sendable`: `journal`, `commitMicros`, `otherWork`, `foldScheduled` and
/// `settleScheduled` are only touched while holding `mutex` (a pthread mutex, so the hub
/// can try it without waiting).
private final class JournalBox: @unchecked Sendable {
  private let journal: Journal
  /// The journal's tail, if it keeps one: appended to without `mutex`.
  private let tail: JournalTail?
  /// The journal's thread.
  private let loop: any EventLoop
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  /// Whether a fold of the standings is queued on the journal's thread.
  private var foldScheduled = false
  /// Whether a settling of matches is queued on the journal's thread.
  private var settleScheduled = false
  /// A moving average of commit durations, µs.
  private var commitMicros = 0.0
  /// How long each task other than a commit held the journal, µs.
  private var otherWork = LoopStallMonitor.Histogram()

  init(_ journal: Journal, loop: any EventLoop) {
    self.journal = journal
    tail = journal.tail
    self.loop = loop
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withJournal<T>(_ body: (Journal) throws -> T) rethrows -> T {
    try withLock {
      let start = NIODeadline.now()
      defer { otherWork.record(Int((NIODeadline.now() - start).nanoseconds / 1_000)) }
      return try body(journal)
    }
  }

  /// How long each task other than a commit held the journal since the last reset.
  var otherWorkSoFar: LoopStallMonitor.Histogram { withLock { otherWork } }

  func resetOtherWork() { withLock { otherWork = LoopStallMonitor.Histogram() } }

  func commit(_ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool) throws
    -> Int
  {
    try withLock { try timedCommit(actions, matches: matches, snapshotAfter: snapshotAfter) }
  }

  func commitIfQuick(
    _ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool, under micros: Int
  ) -> Result<Int, any Error>? {
    if let tail, micros > 0 {
      let start = NIODeadline.now()
      let rows = Journal.tailRows(actions, matches: matches)
      if let appended = tail.append(
        rows.actions, finished: rows.finished, matches: matches, snapshotAfter: snapshotAfter)
      {
        if appended.applyIsDue { loop.scheduleTask(in: Self.applyDelay) { self.settle() } }
        return .success(Int((NIODeadline.now() - start).nanoseconds / 1_000))
      }
    }
    guard pthread_mutex_trylock(mutex) == 0 else { return nil }
    defer { pthread_mutex_unlock(mutex) }
    guard commitMicros < Double(micros) else { return nil }
    return Result { try timedCommit(actions, matches: matches, snapshotAfter: snapshotAfter) }
  }

  /// Commits, and returns how long it took, µs (also when it failed, for the average).
  private func timedCommit(
    _ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool
  ) throws -> Int {
    let start = NIODeadline.now()
    func record() -> Int {
      let took = Double((NIODeadline.now() - start).nanoseconds) / 1_000
      // One slow commit is enough to move the next ones off the hub's loop.
      commitMicros = took > commitMicros ? took : commitMicros * 0.9 + took * 0.1
      return Int(took)
    }
    do {
      // A match's row of `matches` (its rating, the outbox) is written right after, on
      // this thread: off the path of the states this commit lets the hub send.
      try journal.append(actions, matches: matches, snapshotAfter: snapshotAfter, settleLater: true)
    } catch {
      _ = record()
      throw error
    }
    if journal.hasUnsettledMatches || tail?.hasPending == true, !settleScheduled {
      // A moment later, not at once: the states this commit lets out reach their
      // players before this thread takes a core for them, and the matches of the next
      // commits settle in the same transaction. A read first settles what waits.
      settleScheduled = true
      loop.scheduleTask(in: Self.settleDelay) { self.settle() }
    }
    if journal.foldIsDue, !foldScheduled {
      foldScheduled = true
      loop.execute { self.fold() }
    }
    if journal.walCatchUpIsDue {
      loop.execute { self.withJournal { try? $0.catchUpWAL() } }
    }
    return record()
  }

  /// How long after a commit that ended matches they are written to `matches`.
  static let settleDelay = TimeAmount.milliseconds(10)
  /// How long after the first row the hub copied into the tail its rows are written to the
  /// database (a read or task first writes them at once). The rows are durable in the
  /// tail meanwhile; a longer wait makes fewer, larger transactions, and each one takes a
  /// core the game may want (PERFORMANCE.md, "The journal's tail").
  static let applyDelay = TimeAmount.milliseconds(100)

  /// Writes the tail's rows to the database and the matches the last commits left in
  /// their rows to `matches` now, if any wait (before a read, so that it sees them).
  func settleWaitingMatches() {
    withJournal { journal in
      if (try? journal.applyTail()) == true, journal.walCatchUpIsDue { try? journal.catchUpWAL() }
      if journal.hasUnsettledMatches { try? journal.settleMatches() }
    }
  }

  /// Writes the tail's rows to the database, then the matches the last commits left in
  /// their rows to `matches` (a failure leaves them for the settling after the next
  /// commit, or the journal's next opening).
  private func settle() {
    // A few matches a task, so that commits asked meanwhile wait for one step at most.
    let (more, foldDue) = withJournal { journal -> (Bool, Bool) in
      do {
        if try journal.applyTail(), journal.walCatchUpIsDue { try journal.catchUpWAL() }
        try journal.settleSomeMatches()
      } catch {
        settleScheduled = false
        return (false, false)
      }
      let more = journal.hasUnsettledMatches
      if !more { settleScheduled = false }
      guard journal.foldIsDue, !foldScheduled else { return (more, false) }
      foldScheduled = true
      return (more, true)
    }
    if more { loop.execute { self.settle() } }
    if foldDue { loop.execute { self.fold() } }
  }

  /// Folds a batch of matches into the standings, and queues the next batch if more wait
  /// (a failure leaves them for the fold after the next commit).
  private func fold() {
    let more = withJournal { (try? $0.foldStandings()) ?? false }
    if more {
      loop.execute { self.fold() }
    } else {
      withLock { foldScheduled = false }
    }
  }

  private func withLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}
