import Logging
import NIOCore
import RoshamboGame
import RoshamboJournal
import RoshamboOperations
import RoshamboServer
import ServiceLifecycle

/// A server bound for a test (with its operations parts, as `roshambo-server` binds it)
/// and run in its service group on a task of the test's: the test reads it as a
/// ``GameServer`` and stops it through the group.
///
/// Invariant: once ``stop()`` or ``drainAndStop(within:started:)`` returns, the group has
/// stopped every part (a second call returns at once).
@dynamicMemberLookup
final class ServedServer: Sendable {
  let server: GameServer
  let monitored: MonitoredServer
  private let group: ServiceGroup
  private let running: Task<Void, any Error>

  private init(_ monitored: MonitoredServer, logger: Logger) {
    self.monitored = monitored
    server = monitored.server
    let group = monitored.serviceGroup(logger: logger)
    self.group = group
    running = Task { try await group.run() }
  }

  /// Binds a server (``MonitoredServer/bind(_:logger:storage:)``) and runs its group.
  static func start(
    _ configuration: ServerConfiguration, logger: Logger, storage: (any ServerStorage)? = nil
  ) async throws -> ServedServer {
    ServedServer(
      try await MonitoredServer.bind(configuration, logger: logger, storage: storage),
      logger: logger)
  }

  subscript<T>(dynamicMember path: KeyPath<GameServer, T>) -> T { server[keyPath: path] }

  var operations: OperationsEndpoint? { monitored.operations }
  var metrics: PrometheusMetrics { monitored.metrics }
  var shutdownRequests: AsyncStream<Void> { monitored.shutdownRequests }

  func lobby() async throws -> LobbyState { try await server.lobby() }

  func withJournal<T: Sendable>(_ body: @escaping @Sendable (Journal) throws -> T)
    async throws -> T
  {
    try await server.withJournal(body)
  }

  func holdGameLoop(for duration: TimeAmount) { server.holdGameLoop(for: duration) }

  /// Stops it through the group's graceful shutdown, without a drain, and waits until
  /// every part has stopped.
  func stop() async throws {
    await group.triggerGracefulShutdown()
    try await running.value
  }

  /// Asks it to stop with a drain of at most `limit`
  /// (``GameServer/requestStop(drainingWithin:started:)``), and waits until every part has
  /// stopped.
  func drainAndStop(
    within limit: Duration, started: @escaping @Sendable (Int) -> Void = { _ in }
  ) async throws {
    server.requestStop(drainingWithin: limit, started: started)
    try await running.value
  }
}
