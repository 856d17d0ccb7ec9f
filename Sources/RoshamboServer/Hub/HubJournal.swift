import NIOCore
import RoshamboGame

/// The journal as the hub sees it: where accepted actions become durable before anyone
/// is sent their result, and what the lobby reads back (standings, kept matches). The
/// server's core links no database; `RoshamboJournal`'s `JournalThread` is the one
/// implementation, over SQLite on a thread of its own.
///
/// Invariant: commits run one at a time in the order asked, and a commit's future
/// succeeds only once its rows are durable; every future completes off the hub's loop,
/// which hops back to it.
package protocol HubJournal: AnyObject, Sendable {
  /// The journal's file, for messages.
  var path: String { get }

  /// Commits `actions` (and the matches they finished) on the journal's thread;
  /// `snapshotAfter`: later rows go to the table a snapshot being written replays.
  func commit(_ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool)
    -> EventLoopFuture<JournalCommitTiming>

  /// Commits on the caller's thread if the journal is free and recent commits were quick;
  /// nil (nothing done) otherwise, and the caller uses ``commit(_:matches:snapshotAfter:)``.
  func commitNowIfQuick(_ actions: [LobbyAction], matches: [FinishedMatch], snapshotAfter: Bool)
    -> Result<JournalCommitTiming, any Error>?

  /// The leaderboard's top, in its order, and the latest matches (without their rounds).
  func standings(leaders: Int, recent: Int) -> EventLoopFuture<
    ([LobbyView.Leader], [FinishedMatch])
  >

  /// The kept match numbered `id` (nil: none).
  func match(id: Int64) -> EventLoopFuture<FinishedMatch?>

  /// The lobby exactly as the journal holds it, and the number of its last row (after a
  /// failed commit).
  func reload(defaults: RoomState.Settings) -> EventLoopFuture<(LobbyState, Int64)>

  /// One small write at `at` (ms), to learn whether the journal can be written again.
  func probe(at: Int64) -> EventLoopFuture<Void>

  /// Writes `lobby`, the lobby after row `through` (committed), as the journal's new
  /// starting point, a step at a time between commits.
  func writeSnapshot(_ lobby: LobbyState, through: Int64) -> EventLoopFuture<Void>

  /// How long each task other than a commit held the journal since ``resetOtherWork()``.
  var otherWork: LoopStallMonitor.Histogram { get }
  func resetOtherWork()

  /// The journal's size on disk, bytes (for the metrics).
  var bytesOnDisk: Int { get }
  /// Finished matches waiting to be shipped to the shared history (for the metrics).
  var historyWaiting: Int { get }

  /// Waits for what was asked, then closes.
  func close() async throws
}

/// How long a commit waited for the journal's thread, and how long it took there, µs.
package struct JournalCommitTiming: Sendable {
  package var waitedMicros = 0
  package var tookMicros: Int

  package init(waitedMicros: Int = 0, tookMicros: Int) {
    self.waitedMicros = waitedMicros
    self.tookMicros = tookMicros
  }
}
