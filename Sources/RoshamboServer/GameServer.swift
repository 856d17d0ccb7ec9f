import Foundation
import Logging
import NIOCore
import NIOPosix
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Synchronization

/// A running Roshambo server: TLS listener, connections, the hub and its journal.
///
/// Invariant: `stop()` stops accepting, makes everything durable, and closes every
/// connection with close_notify before it returns.
public final class GameServer: Sendable {
  public let port: Int
  public let host: String
  /// The SHA-256 fingerprint of the certificate the server presents.
  public let fingerprint: String
  /// Warnings found while starting (for example a key readable by others).
  public let warnings: [String]
  private let group: MultiThreadedEventLoopGroup
  private let listener: any Channel
  private let hub: HubHandle
  private let connections: Connections

  /// Live connections, so `stop()` can close each one properly.
  final class Connections: Sendable {
    private let state = Mutex<(nextID: Int, open: [Int: any Channel])>((1, [:]))

    /// Registers a new channel; returns its id and how many are open with it.
    func add(_ channel: any Channel) -> (id: Int, count: Int) {
      state.withLock { state in
        let id = state.nextID
        state.nextID += 1
        state.open[id] = channel
        return (id, state.open.count)
      }
    }

    func remove(_ id: Int) { _ = state.withLock { $0.open.removeValue(forKey: id) } }
    var all: [any Channel] { state.withLock { Array($0.open.values) } }
  }

  private init(
    port: Int, host: String, fingerprint: String, warnings: [String],
    group: MultiThreadedEventLoopGroup, listener: any Channel, hub: HubHandle,
    connections: Connections
  ) {
    self.port = port
    self.host = host
    self.fingerprint = fingerprint
    self.warnings = warnings
    self.group = group
    self.listener = listener
    self.hub = hub
    self.connections = connections
  }

  /// Loads the TLS context and the journal, rebuilds the lobby, and starts listening.
  public static func start(
    _ configuration: ServerConfiguration, logger: Logger,
    now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
  ) async throws -> GameServer {
    let tls = try TLSContext(
      .server(
        certificateChainFile: configuration.certificateChainFile,
        privateKeyFile: configuration.privateKeyFile, allowTLS12: configuration.allowTLS12))
    let fingerprint = try Fingerprint.sha256(ofPEMFile: configuration.certificateChainFile)
    let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
    let hubLoop = group.next()
    let hub: HubHandle
    do {
      // The journal is opened on the hub's loop and never leaves it.
      hub = try await hubLoop.submit {
        var lobby = LobbyState(defaults: configuration.roomSettings)
        var journal: Journal?
        if let directory = configuration.dataDirectory {
          let opened = try Journal(directory: directory)
          let loaded = try opened.load(defaults: configuration.roomSettings)
          lobby = loaded.lobby
          try opened.compact(lobby)
          journal = opened
          logger.info(
            "journal loaded",
            metadata: [
              "path": "\(opened.path)", "rooms": "\(lobby.rooms.count)",
              "actions": "\(loaded.actions)",
            ])
        }
        let hub = GameHub(
          loop: hubLoop, lobby: lobby, journal: journal, logger: logger,
          compactionInterval: max(1, configuration.journalCompactionInterval), now: now)
        hub.restore()
        return HubHandle(hub)
      }.get()
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    let connections = Connections()
    let limits = configuration.limits
    let listener: any Channel
    do {
      listener = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .serverChannelOption(.backlog, value: 1024)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelInitializer { channel in
          let (id, count) = connections.add(channel)
          channel.closeFuture.whenComplete { _ in connections.remove(id) }
          return channel.eventLoop.makeCompletedFuture {
            let handlers: [any ChannelHandler] = [
              try TLSHandler(context: tls),
              IdleStateHandler(readTimeout: .seconds(limits.idleTimeoutSeconds)),
              ByteToMessageHandler(FrameDecoder()),
              ConnectionHandler(
                id: id, hub: hub, limits: limits, admitted: count <= limits.maxConnections,
                logger: logger),
            ]
            try channel.pipeline.syncOperations.addHandlers(handlers)
          }
        }
        .bind(host: configuration.host, port: configuration.port).get()
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    return GameServer(
      port: listener.localAddress?.port ?? configuration.port, host: configuration.host,
      fingerprint: fingerprint, warnings: tls.warnings, group: group, listener: listener, hub: hub,
      connections: connections)
  }

  /// Stops accepting, makes everything durable, closes every connection with
  /// close_notify, and stops the event loops.
  public func stop() async throws {
    try? await listener.close()
    try await hub.submit { $0.shutdown() }.flatMap { $0 }.get()
    for channel in connections.all {
      try? await channel.close()
    }
    try await group.shutdownGracefully()
  }

  /// The lobby as the hub holds it now (for tests and tools).
  public func lobby() async throws -> LobbyState {
    try await hub.submit { $0.lobby }.get()
  }
}
