import Logging
import NIOCore
import RoshamboGame

/// Decides when the journal is folded into a snapshot, and keeps at most one being
/// written: the journal writes it without stopping the game (``HubJournal/writeSnapshot(_:through:)``),
/// while later actions go on being journaled after its row.
///
/// Invariant: at most one snapshot is being written; it is the lobby after the journal's
/// row it names (taken when that row's batch was sealed, written only once that batch
/// was committed), so replaying the later rows onto it gives the lobby.
final class SnapshotWriter {
  private let journal: any HubJournal
  private let loop: any EventLoop
  private let logger: Logger
  private let interval: Int
  private var sinceLast = 0
  /// The snapshot being written, if one is.
  private(set) var inProgress: EventLoopFuture<Void>?
  /// Told when each snapshot was begun and finished (the stall profile).
  var finished: ((_ began: NIODeadline) -> Void)?

  /// A snapshot is due after `interval` actions, or 10 per room if that is more.
  init(journal: any HubJournal, loop: any EventLoop, logger: Logger, interval: Int) {
    self.journal = journal
    self.loop = loop
    self.logger = logger
    self.interval = interval
  }

  /// `count` more actions are sealed for a commit in a lobby of `rooms` rooms: whether a
  /// snapshot is due (and none is being written).
  func due(after count: Int, rooms: Int) -> Bool {
    sinceLast += count
    // A snapshot costs in proportion to the rooms; taking one at most every 10 actions
    // per room keeps its cost per action flat as the lobby grows.
    guard sinceLast >= max(interval, 10 * rooms), inProgress == nil else { return false }
    sinceLast = 0
    return true
  }

  /// Writes `lobby`, the lobby after row `through` (which is committed).
  func write(_ lobby: LobbyState, through: Int64) {
    let promise = loop.makePromise(of: Void.self)
    inProgress = promise.futureResult
    let began = NIODeadline.now()
    let journal = self.journal
    journal.writeSnapshot(lobby, through: through)
      .hop(to: loop)
      .assumeIsolated().whenComplete { result in
        if case .failure(let error) = result {
          self.logger.error(
            "snapshot failed; the journal keeps every action and grows until one succeeds",
            metadata: ["error": "\(error)", "path": "\(journal.path)"])
        }
        self.inProgress = nil
        self.finished?(began)
        promise.succeed()
      }
  }
}
