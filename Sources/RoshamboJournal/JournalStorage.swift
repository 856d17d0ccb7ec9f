import Logging
import NIOCore
import RoshamboGame
import RoshamboServer

/// A server's storage in SQLite: the journal in the configuration's data directory, on a
/// thread of its own (``JournalThread``), and, when the configuration names a shared
/// history and this storage was made with a way to reach one (`RoshamboHistory`), the
/// shipping of finished matches there.
///
/// Invariant: the journal is loaded and compacted on its own thread before the server
/// sees it, so the lobby returned is the journal's last row's.
public struct JournalStorage: ServerStorage {
  /// Makes the shipper of finished matches from `journal` to the history at the address.
  package typealias HistoryStarter =
    @Sendable (HistoryAddress, JournalThread, HistoryContext) -> any HistoryShipping

  private let history: HistoryStarter?

  /// The journal only: a configured shared history is not shipped to.
  public init() { history = nil }

  package init(history: @escaping HistoryStarter) { self.history = history }

  public func open(_ configuration: ServerConfiguration, logger: Logger) async throws
    -> OpenedStorage
  {
    guard let directory = configuration.dataDirectory else {
      preconditionFailure("JournalStorage.open needs a data directory")
    }
    let defaults = configuration.roomSettings
    let (journal, opened) = try await JournalThread.open(
      directory: directory, keepMatches: configuration.keepMatches,
      quickCommitMicros: configuration.journalInlineCommitMicros,
      shipsHistory: configuration.historyAddress != nil,
      maxOutbox: configuration.maxHistoryOutbox, durability: configuration.durability,
      listedOpponents: configuration.listedOpponents, keepsTail: configuration.journalTail
    ) { journal in
      let loaded = try journal.load(defaults: defaults)
      try journal.compact(loaded.lobby)
      return (loaded.lobby, loaded.actions, journal.lastSeq, journal.warnings)
    }
    let (lobby, actions, last, warnings) = opened
    logger.info(
      "journal loaded",
      metadata: [
        "path": "\(journal.path)", "rooms": "\(lobby.rooms.count)", "actions": "\(actions)",
      ])
    var shipping: (@Sendable (HistoryContext) -> any HistoryShipping)?
    if let address = configuration.historyAddress, let history {
      shipping = { context in history(address, journal, context) }
    }
    return OpenedStorage(
      journal: journal, lobby: lobby, lastRow: last, warnings: warnings, history: shipping)
  }
}

extension GameServer {
  /// The journal's thread, when the server keeps its journal in SQLite.
  package var journalThread: JournalThread? { journal as? JournalThread }

  /// Runs `body` with the journal on its own thread (a test seam for faults).
  package func withJournal<T: Sendable>(_ body: @escaping @Sendable (Journal) throws -> T)
    async throws -> T
  {
    guard let journal = journal as? JournalThread else {
      preconditionFailure("withJournal needs a server with a journal in SQLite")
    }
    return try await journal.submit(body).get()
  }

  /// Moves a damaged journal in `directory` aside (kept, renamed) and starts a new one
  /// from its last good state; returns a sentence saying what was done.
  public static func recoverJournal(
    directory: String, defaults: RoomState.Settings, keepMatches: Int = 10_000
  ) throws -> String {
    let (movedTo, lobby, problem) = try Journal.recover(
      directory: directory, defaults: defaults, keepMatches: keepMatches)
    return "moved the damaged journal to \(movedTo) (kept); started a new one with "
      + "\(lobby.rooms.count) rooms from the last good state"
      + (problem.map { "; what was not carried over: \($0)" } ?? "")
  }
}
