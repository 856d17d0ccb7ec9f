import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RoshamboGame
import RoshamboJournal
import RoshamboServer
import ServiceLifecycle

/// Ships finished matches from the journal's outbox (``JournalThread/unshipped(limit:)``) to
/// the ``SharedHistory``, on a task of its own, never on the game's loop: the oldest
/// first, up to ``batch`` at a time; once the history has stored a batch, the batch leaves
/// the outbox. While the history cannot be reached it waits (0.5 s, doubling to 30 s)
/// and tries again; play never waits for it, and the matches wait in the journal.
///
/// In a fleet it also carries the hub's name offers to the fleet's name book, and reads
/// back what changed there (every ``leadersEvery``, and after each offer) for the hub.
///
/// Invariant: a match leaves the outbox only after the history acknowledged it, so a
/// crash at any point sends it again at worst (which the history stores once); offers
/// that could not be sent wait for the next try, in order.
final class HistoryShipper: HistoryShipping {
  static let batch = 100
  /// How often an empty outbox is looked at again.
  static let idle = Duration.milliseconds(250)
  static let firstRetry = Duration.milliseconds(500)
  static let longestRetry = Duration.seconds(30)
  /// How long one batch may take before the history counts as unreachable (its pool
  /// otherwise waits for a connection as long as the database is away, saying nothing).
  static let patience = Duration.seconds(5)
  /// How often the fleet's leaderboard is read again for the lobby (and after each batch).
  static let leadersEvery = Duration.seconds(5)

  private let history: SharedHistory
  private let journal: JournalThread
  private let logger: Logger
  private let metrics: ServerMetrics
  /// Why the history cannot be reached, while it cannot (one warning an outage).
  private let problem = NIOLockedValueBox<String?>(nil)
  /// Outbox drops already said and counted.
  private let droppedSaid = NIOLockedValueBox(0)
  /// Told the fleet's leaderboard whenever it is read.
  private let leaders: @Sendable ([LobbyView.Leader]) -> Void
  /// The different rated opponents a player needs to be listed.
  private let listedOpponents: Int
  /// The hub's offers to the fleet's name book, and where the rows read go.
  private let nameOffers: FleetNameOffers
  private let fleetNames: @Sendable ([FleetName]) -> Void
  private let nameLapseMillis: Int64?

  /// Ships `journal`'s outbox to `history` for the server `context` describes.
  init(history: SharedHistory, journal: JournalThread, context: HistoryContext) {
    self.leaders = context.leaders
    self.listedOpponents = context.listedOpponents
    self.nameOffers = context.nameOffers
    self.fleetNames = context.fleetNames
    self.nameLapseMillis = context.nameLapseMillis
    self.history = history
    self.journal = journal
    self.logger = context.logger
    self.metrics = context.metrics
  }

  /// Ships until the group's graceful shutdown (or the task's cancellation), then closes
  /// the history's connections; what was not shipped stays in the outbox for the next
  /// start.
  package func run() async throws {
    await cancelWhenGracefulShutdown { await self.ship() }
    await history.close()
  }

  /// Reads the fleet's leaderboard, for the lobby.
  private func readLeaders() async throws {
    let (history, listedOpponents) = (self.history, self.listedOpponents)
    let board = try await within(Self.patience) {
      try await history.leaderboard(limit: LobbyView.maxLeaders, listedOpponents: listedOpponents)
    }
    leaders(board)
  }

  /// Sends what the hub offered the fleet's name book (put back if it cannot be), then
  /// reads what changed there since `version`, for the hub; returns the version read to.
  private func shareNames(serverID: String, after version: Int64) async throws -> Int64 {
    let offers = nameOffers.take()
    if !offers.isEmpty {
      let (history, lapse) = (self.history, nameLapseMillis)
      let now = Int64(Date().timeIntervalSince1970 * 1_000)
      do {
        try await within(Self.patience) {
          try await history.offer(offers, serverID: serverID, now: now, lapseMillis: lapse)
        }
      } catch {
        nameOffers.putBack(offers)
        throw error
      }
    }
    var version = version
    while true {
      let (history, after) = (self.history, version)
      let (rows, through) = try await within(Self.patience) {
        try await history.names(after: after)
      }
      if !rows.isEmpty { fleetNames(rows) }
      guard through > version else { return version }
      version = through
    }
  }

  /// The history has `batch`: it leaves the outbox.
  private func acknowledge(_ batch: [FinishedMatch]) async throws {
    let ids = batch.compactMap(\.id)
    try await journal.submit { try $0.acknowledgeShipped(ids) }.get()
    metrics.matchesShipped.increment(by: batch.count)
    let recovered = problem.withLockedValue { problem in
      defer { problem = nil }
      return problem != nil
    }
    if recovered {
      logger.notice(
        "shipping matches to the shared history again",
        metadata: ["history": "\(history.address)"])
    }
  }

  /// Sets the gauge of matches waiting; says and counts matches dropped from the outbox
  /// since the last time (one warning each time the journal drops some).
  private func publishOutbox() {
    let level = journal.outboxLevel
    metrics.historyWaiting.set(level.waiting)
    let dropped = level.dropped
    let new = droppedSaid.withLockedValue { said in
      defer { said = dropped }
      return dropped - said
    }
    guard new > 0 else { return }
    metrics.historyDropped.increment(by: new)
    logger.warning(
      """
      \(new) of the oldest finished matches waiting for the shared history were dropped from \
      the journal's outbox, which holds at most \(level.bound) while PostgreSQL cannot \
      be reached; they stay in this server's journal (roshambo-server history) but will not \
      reach the shared history. Bring PostgreSQL back to stop the loss
      """, metadata: ["history": "\(history.address)"])
  }

  /// What `body` returns, or a ``HistoryError`` if it takes longer than `limit` (it is
  /// cancelled).
  @discardableResult
  private func within<T: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
  ) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
      group.addTask { try await body() }
      group.addTask {
        try await Task.sleep(for: limit)
        return nil
      }
      let first = try await group.next() ?? nil
      group.cancelAll()
      guard let first else {
        throw HistoryError(
          "no answer within \(limit.components.seconds) s (is PostgreSQL running, and the "
            + "address right?)")
      }
      return first
    }
  }

  private func ship() async {
    var migrated = false
    var serverID = ""
    var wait = Self.firstRetry
    var leadersRead: ContinuousClock.Instant?
    var namesVersion: Int64 = 0
    while !Task.isCancelled {
      publishOutbox()
      do {
        if !migrated {
          serverID = try await journal.submit { try $0.serverID() }.get()
          try await within(Self.patience) { try await self.history.migrate() }
          migrated = true
        }
        let batch = try await journal.unshipped(limit: Self.batch).get()
        let leadersDue = leadersRead.map { .now - $0 >= Self.leadersEvery } ?? true
        if nameOffers.isWaiting || leadersDue {
          namesVersion = try await shareNames(serverID: serverID, after: namesVersion)
        }
        if batch.isEmpty && !leadersDue {
          try? await Task.sleep(for: Self.idle)
          continue
        }
        if !batch.isEmpty {
          let history = self.history
          let id = serverID
          try await within(Self.patience) { try await history.store(batch, serverID: id) }
          try await acknowledge(batch)
        }
        // After the batch is stored, so the board counts it.
        try await readLeaders()
        leadersRead = .now
        wait = Self.firstRetry
      } catch {
        if Task.isCancelled { break }
        let explained = SharedHistory.explain(error)
        let first = problem.withLockedValue { problem in
          defer { problem = explained }
          return problem == nil
        }
        metrics.historyFailures.increment()
        if first {
          logger.warning(
            """
            cannot ship finished matches to the shared history: \(explained); play goes on, \
            and the matches wait in the journal until it is back (retrying up to every \
            \(Self.longestRetry.components.seconds) s)
            """, metadata: ["history": "\(history.address)"])
        }
        publishOutbox()
        try? await Task.sleep(for: wait)
        wait = min(wait * 2, Self.longestRetry)
      }
    }
  }
}
