import Logging
import RoshamboGame
import ServiceLifecycle

/// What a server keeps across restarts, opened once when it starts and before its hub:
/// the journal in the configuration's data directory and, beside it, the shipping of
/// finished matches to a shared history. The server's core links no database, so the
/// player's program can run it (`roshambo play --vs-bot`); `RoshamboJournal` provides
/// the storage over SQLite (`JournalStorage`), `RoshamboHistory` the shipping to
/// PostgreSQL.
///
/// Invariant: ``open(_:logger:)`` is called only for a configuration with a data
/// directory, and what it returns holds the lobby exactly as of its journal's last row.
public protocol ServerStorage: Sendable {
  /// Opens (and loads) the journal in `configuration.dataDirectory`.
  func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> OpenedStorage
}

/// A storage once open: the journal, the lobby it held, and how to ship history.
public struct OpenedStorage: Sendable {
  package var journal: any HubJournal
  package var lobby: LobbyState
  /// The number of the journal's last row.
  package var lastRow: Int64
  /// What was found wrong but forgiven (said at start).
  package var warnings: [String]
  /// Makes the shipper of finished matches to the shared history; nil when the
  /// configuration names none (or this storage cannot ship).
  package var history: (@Sendable (HistoryContext) -> any HistoryShipping)?

  package init(
    journal: any HubJournal, lobby: LobbyState, lastRow: Int64, warnings: [String],
    history: (@Sendable (HistoryContext) -> any HistoryShipping)?
  ) {
    self.journal = journal
    self.lobby = lobby
    self.lastRow = lastRow
    self.warnings = warnings
    self.history = history
  }
}

/// What a history shipper is given by the server it ships for.
package struct HistoryContext: Sendable {
  package var logger: Logger
  package var metrics: ServerMetrics
  /// Told the fleet's leaderboard whenever it is read (the lobby shows it).
  package var leaders: @Sendable ([LobbyView.Leader]) -> Void
  /// The different rated opponents a player needs to be on the fleet's leaderboard.
  package var listedOpponents: Int
  /// What the hub offered the fleet's name book, to take there.
  package var nameOffers: FleetNameOffers
  /// Told the rows of the fleet's name book that changed, whenever they are read.
  package var fleetNames: @Sendable ([FleetName]) -> Void
  /// How long a name stays its holder's unused, ms (nil: for ever).
  package var nameLapseMillis: Int64?

  package init(
    logger: Logger, metrics: ServerMetrics,
    leaders: @escaping @Sendable ([LobbyView.Leader]) -> Void = { _ in },
    listedOpponents: Int = Glicko2Rating.listedOpponents,
    nameOffers: FleetNameOffers = FleetNameOffers(),
    fleetNames: @escaping @Sendable ([FleetName]) -> Void = { _ in },
    nameLapseMillis: Int64? = 30 * 86_400_000
  ) {
    self.logger = logger
    self.metrics = metrics
    self.leaders = leaders
    self.listedOpponents = listedOpponents
    self.nameOffers = nameOffers
    self.fleetNames = fleetNames
    self.nameLapseMillis = nameLapseMillis
  }
}

/// Ships finished matches from the journal to a shared history while the server runs: a
/// `Service` that ships until the group's shutdown reaches it (after the drain, before
/// the hub and the journal stop); what was not shipped stays in the journal's outbox for
/// the next start.
package protocol HistoryShipping: Service {}
