import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboHub
import RoshamboServer
import ServiceLifecycle

/// The party's board (`roshambo-server --board PORT`): a read-only web page for a TV,
/// served over plain HTTP/1.1 on a port of its own, with its files in the binary and the
/// lobby's public view as Server-Sent Events at `/events`. A part of the server's
/// `ServiceGroup`: it stops after the drain, telling its viewers the server is closing.
///
/// Invariant: it runs on a loop of its own, never the game's; the hub only hands it each
/// view it sends its followers (one hop), so viewers, slow or many, cost the game
/// nothing more; at most `viewers` streams and `viewers + 16` connections are open.
public final class BoardServer: Sendable {
  public let port: Int
  private let channel: any Channel
  private let group: MultiThreadedEventLoopGroup
  private let stream: NIOLoopBound<BoardStream>

  private init(
    port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup,
    stream: NIOLoopBound<BoardStream>
  ) {
    self.port = port
    self.channel = channel
    self.group = group
    self.stream = stream
  }

  /// Binds the board on `host:port` for `server`'s lobby (configured with
  /// `feedsBoard`), with room for `viewers` streams.
  public static func start(
    host: String, port: Int, viewers: Int, server: GameServer, logger: Logger
  ) async throws -> BoardServer {
    try await start(host: host, port: port, viewers: viewers, logger: logger) { sink in
      server.watchLobby(sink)
    }
  }

  /// Binds the board; `watch` is handed where the lobby's views go.
  static func start(
    host: String, port: Int, viewers: Int, logger: Logger,
    watch: (@escaping @Sendable (SentLobbyView) -> Void) -> Void
  ) async throws -> BoardServer {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let stream = try await loop.submit {
      NIOLoopBound(BoardStream(loop: loop, viewers: viewers), eventLoop: loop)
    }.get()
    let channel: any Channel
    do {
      channel = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .serverChannelOption(.backlog, value: 64)
        // Past 256 KiB waiting to go out a viewer does not read: the next event drops it.
        .childChannelOption(
          .writeBufferWaterMark, value: .init(low: 64 * 1024, high: 256 * 1024)
        )
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            guard stream.value.connectionOpened(channel) else {
              throw ChannelError.inputClosed
            }
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
              withPipeliningAssistance: false, withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(
              IdleStateHandler(readTimeout: .seconds(10)))
            try channel.pipeline.syncOperations.addHandler(BoardHandler(stream: stream.value))
          }
        }
        .bind(host: host, port: port).get()
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    watch { view in loop.execute { stream.value.received(view) } }
    let bound = channel.localAddress?.port ?? port
    logger.info("board listening", metadata: ["address": "\(host):\(bound)"])
    return BoardServer(port: bound, channel: channel, group: group, stream: stream)
  }

  /// Tells every viewer the server is closing, ends their streams and stops listening.
  func close() async {
    let stream = self.stream
    try? await stream.eventLoop.submit { stream.value.shutDown() }.get()
    try? await channel.close()
    try? await group.shutdownGracefully()
  }

  /// How many streams are open now (for tests).
  func viewerCount() async throws -> Int {
    let stream = self.stream
    return try await stream.eventLoop.submit { stream.value.viewerCount }.get()
  }
}

extension BoardServer: Service {
  /// Shows until the group's shutdown reaches it (after the drain), then says so.
  public func run() async throws {
    try? await gracefulShutdown()
    await close()
  }
}
