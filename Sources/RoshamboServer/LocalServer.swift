import Logging
import ServiceLifecycle

/// The server `roshambo play --vs-bot` and the arena's own run play on: the server's core
/// run inside another program, on 127.0.0.1 with a free port, no journal and no LAN
/// announcement. The players still play over a real TLS connection; the core links no
/// database, so `swift run roshambo` on a fresh clone builds no server executable first.
///
/// Invariant: once ``start(certificate:key:)`` returns, the server is listening on
/// ``port`` and its service group runs; ``stop()`` shuts the group down (it keeps
/// nothing, so at once) and returns once it has.
public final class LocalServer: Sendable {
  public let port: Int
  private let group: ServiceGroup
  /// The group's run, on a task of its own beside the game's screen.
  private let running: Task<Void, Never>

  private init(server: GameServer, logger: Logger) {
    port = server.port
    let group = server.serviceGroup(logger: logger)
    self.group = group
    running = Task { try? await group.run() }
  }

  /// What went wrong starting the server, in the player's words.
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Starts the server with the certificate and key given, its configuration changed by
  /// `adjust` (the arena's own server lifts the rate limit; `play --vs-bot`'s changes
  /// nothing).
  public static func start(
    certificate: String, key: String, adjust: (inout ServerConfiguration) -> Void = { _ in }
  ) async throws -> LocalServer {
    var configuration = ServerConfiguration(
      certificateChainFile: certificate, privateKeyFile: key, dataDirectory: nil)
    configuration.host = "127.0.0.1"
    configuration.port = 0
    adjust(&configuration)
    var logger = Logger(label: "roshambo.local-server")
    // The game screen owns the terminal: only what stops the server would be worth saying,
    // and that comes back as the error thrown here.
    logger.logLevel = .critical
    do {
      return LocalServer(
        server: try await GameServer.bind(configuration, logger: logger), logger: logger)
    } catch {
      throw Failure(description: "the local server did not start: \(error)")
    }
  }

  /// Stops the server.
  public func stop() async {
    await group.triggerGracefulShutdown()
    await running.value
  }
}
