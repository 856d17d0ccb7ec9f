import Logging
import NIOCore
import NIOPosix
import RoshamboGame

/// Folds the journal into a snapshot without stopping the game: the lobby (a value) is
/// encoded on NIO's thread pool, then written in small steps, one per turn of the hub's
/// loop with I/O in between, while later actions go on being journaled after its row.
///
/// Invariant: at most one snapshot is being written; it is the lobby after the journal's
/// row it names, so replaying the later rows onto it gives the lobby.
final class SnapshotWriter {
  private let journal: Journal
  private let loop: any EventLoop
  private let logger: Logger
  private let interval: Int
  private let stalls: LoopStallMonitor?
  private var sinceLast = 0
  /// The snapshot being written, if one is.
  private(set) var inProgress: EventLoopFuture<Void>?

  /// A snapshot is due after `interval` actions, or 10 per room if that is more.
  init(
    journal: Journal, loop: any EventLoop, logger: Logger, interval: Int,
    stalls: LoopStallMonitor? = nil
  ) {
    self.journal = journal
    self.stalls = stalls
    self.loop = loop
    self.logger = logger
    self.interval = interval
  }

  /// `count` more actions are committed; `lobby` is the state after them. Starts a
  /// snapshot when one is due and none is being written.
  func committed(_ count: Int, lobby: LobbyState) {
    sinceLast += count
    // A snapshot costs in proportion to the rooms; taking one at most every 10 actions
    // per room keeps its cost per action flat as the lobby grows.
    guard sinceLast >= max(interval, 10 * lobby.rooms.count), inProgress == nil else { return }
    sinceLast = 0
    let through = journal.lastSeq
    let promise = loop.makePromise(of: Void.self)
    inProgress = promise.futureResult
    NIOThreadPool.singleton.runIfActive(eventLoop: loop) { Journal.snapshotParts(lobby) }
      .assumeIsolated().whenComplete { result in
        switch result {
        case .success(let parts):
          self.write(self.journal.beginSnapshot(parts, through: through), promise)
        case .failure(let error):
          self.failed(error, promise)
        }
      }
  }

  private func write(_ snapshot: Journal.PendingSnapshot, _ promise: EventLoopPromise<Void>) {
    var snapshot = snapshot
    do {
      let more =
        try stalls?.measure(.snapshot) { try journal.writeNextPart(of: &snapshot) }
        ?? journal.writeNextPart(of: &snapshot)
      if more {
        // The next step in a later turn of the loop, after the sockets have been read:
        // a task queued with `execute` would run in this same turn, before any I/O.
        loop.assumeIsolated().scheduleTask(in: .milliseconds(1)) { self.write(snapshot, promise) }
        return
      }
    } catch {
      failed(error, promise)
      return
    }
    inProgress = nil
    promise.succeed()
  }

  private func failed(_ error: any Error, _ promise: EventLoopPromise<Void>) {
    logger.error(
      "snapshot failed; the journal keeps every action and grows until one succeeds",
      metadata: ["error": "\(error)", "path": "\(journal.path)"])
    inProgress = nil
    promise.succeed()
  }
}
