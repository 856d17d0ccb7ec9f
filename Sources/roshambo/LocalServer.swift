import Logging
import RoshamboServer

/// The server `roshambo play --vs-bot` plays on: the server's core run inside this
/// program, on 127.0.0.1 with a free port, no journal and no LAN announcement. The player
/// still plays over a real TLS connection; the program links no database, so `swift run
/// roshambo` on a fresh clone builds no server executable first.
///
/// Invariant: once ``start(certificate:key:)`` returns, the server is listening on
/// ``port``; ``stop()`` stops it (it keeps nothing, so at once).
final class LocalServer: Sendable {
  let port: Int
  private let server: GameServer

  private init(server: GameServer) {
    self.server = server
    port = server.port
  }

  /// What went wrong starting the server, in the player's words.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Starts the server with the certificate and key given.
  static func start(certificate: String, key: String) async throws -> LocalServer {
    var configuration = ServerConfiguration(
      certificateChainFile: certificate, privateKeyFile: key, dataDirectory: nil)
    configuration.host = "127.0.0.1"
    configuration.port = 0
    var logger = Logger(label: "roshambo.local-server")
    // The game screen owns the terminal: only what stops the server would be worth saying,
    // and that comes back as the error thrown here.
    logger.logLevel = .critical
    do {
      return LocalServer(server: try await GameServer.start(configuration, logger: logger))
    } catch {
      throw Failure(description: "the local server did not start: \(error)")
    }
  }

  /// Stops the server.
  func stop() async {
    try? await server.stop()
  }
}
