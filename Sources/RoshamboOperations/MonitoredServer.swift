import Logging
import NIOCore
import RoshamboProtocol
import RoshamboServer
import ServiceLifecycle

/// A game server with what its host watches and runs it through: its metrics kept in
/// Prometheus' way, the operations endpoint (`/metrics`, `/livez`, `/readyz`) when the
/// configuration names an address, and the link to Agones' SDK server when Agones runs
/// it. Each is a part of the server's one `ServiceGroup`, in the place its role gives it.
///
/// Invariant: the endpoint and the Agones link's reports stop after the drain and before
/// the hub (what they ask of the hub's loop is answered); Agones hears `Shutdown` after the
/// journal has closed.
public final class MonitoredServer: Sendable {
  public let server: GameServer
  public let metrics: PrometheusMetrics
  /// The operations endpoint, if the configuration asked for one.
  public let operations: OperationsEndpoint?
  /// Tells Agones how the server is, when Agones runs it.
  public let agones: AgonesLink?

  private init(
    server: GameServer, metrics: PrometheusMetrics, operations: OperationsEndpoint?,
    agones: AgonesLink?
  ) {
    self.server = server
    self.metrics = metrics
    self.operations = operations
    self.agones = agones
  }

  /// Binds the server (``GameServer/bind(_:logger:storage:metrics:now:)``) counting into
  /// Prometheus' registry, then the operations endpoint; nothing is served until
  /// ``serviceGroup(alongside:logger:)`` runs. If the endpoint cannot be bound, the server
  /// is stopped again and the error thrown.
  public static func bind(
    _ configuration: ServerConfiguration, logger: Logger, storage: (any ServerStorage)? = nil
  ) async throws -> MonitoredServer {
    let metrics = PrometheusMetrics(
      version: RoshamboVersion.number, protocolVersion: WireProtocol.version,
      commit: configuration.sourceCommit)
    let server = try await GameServer.bind(
      configuration, logger: logger, storage: storage, metrics: metrics.server)
    var operations: OperationsEndpoint?
    if let address = configuration.operationsAddress {
      let probes = OperationsEndpoint.Probes(
        sample: { server.sampleMetrics() },
        readiness: {
          server.unreadiness().map { $0.map(OperationsEndpoint.Health.unready) ?? .ready }
        })
      do {
        operations = try await OperationsEndpoint.start(
          host: address.host, port: address.port, group: server.eventLoops, metrics: metrics,
          probes: probes,
          requestTimeout: .milliseconds(configuration.limits.operationsRequestTimeoutMillis),
          logger: logger)
      } catch {
        await server.discard(logger: logger)
        throw error
      }
    }
    let agones = configuration.agonesPort.map { sdkPort in
      AgonesLink(
        port: sdkPort, version: RoshamboVersion.number, logger: logger,
        probe: { await server.liveReport() })
    }
    return MonitoredServer(server: server, metrics: metrics, operations: operations, agones: agones)
  }

  /// One element when Agones sets this GameServer to `Shutdown`: drain and stop, as on
  /// SIGTERM. Never an element when the server does not run under Agones.
  public var shutdownRequests: AsyncStream<Void> {
    agones?.shutdownRequests ?? AsyncStream { _ in }
  }

  /// The server's parts with the endpoint and the Agones link in their places
  /// (``GameServer/services(alongside:observers:farewells:)``).
  public func services(
    alongside: [ServiceGroupConfiguration.ServiceConfiguration] = []
  ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
    server.services(alongside: alongside, observers: observers, farewells: farewells)
  }

  /// One `ServiceGroup` running ``services(alongside:)``, with `watching` (the board)
  /// among the parts that watch the game: they stop after the drain, before the hub.
  public func serviceGroup(
    alongside: [ServiceGroupConfiguration.ServiceConfiguration] = [],
    watching: [(name: String, service: any Service)] = [], logger: Logger
  ) -> ServiceGroup {
    server.serviceGroup(
      alongside: alongside, observers: observers + watching, farewells: farewells,
      logger: logger)
  }

  private var observers: [(name: String, service: any Service)] {
    var observers: [(name: String, service: any Service)] = []
    if let operations { observers.append(("operations endpoint", operations)) }
    if let agones { observers.append(("Agones link", agones)) }
    return observers
  }

  private var farewells: [(name: String, service: any Service)] {
    agones.map { [("Agones farewell", AgonesFarewell(link: $0))] } ?? []
  }
}
