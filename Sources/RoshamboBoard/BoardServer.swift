import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboHub
import RoshamboServer
import ServiceLifecycle

/// The party's board (`roshambo-server --board PORT`): a read-only web page for a TV,
/// served over plain HTTP/1.1 on a port of its own, with its files in the binary and the
/// lobby's public view as Server-Sent Events at `/events`, and each kept match's replay
/// page (`/match/N`, its record at `/match/N.json`, asked of the hub). A part of the
/// server's `ServiceGroup`: it stops after the drain, telling its viewers the server is
/// closing.
///
/// Invariant: it runs on a loop of its own, never the game's, and never opens the
/// journal; the hub only hands it each view it sends its followers and each answer to
/// its requests for records (one hop each), so viewers, slow or many, cost the game
/// nothing more; at most `viewers` streams and `viewers + 16` connections are open.
public final class BoardServer: Sendable {
  public let port: Int
  private let channel: any Channel
  private let group: MultiThreadedEventLoopGroup
  private let stream: NIOLoopBound<BoardStream>
  private let records: NIOLoopBound<BoardRecords>
  /// Whether what the hub hands over still goes to the board's loop: false once it
  /// closes, so that nothing is scheduled on a loop that has shut down (the hub goes on
  /// after the board, and sent it views while it stopped).
  private let open: NIOLockedValueBox<Bool>

  private init(
    port: Int, channel: any Channel, group: MultiThreadedEventLoopGroup,
    stream: NIOLoopBound<BoardStream>, records: NIOLoopBound<BoardRecords>,
    open: NIOLockedValueBox<Bool>
  ) {
    self.port = port
    self.channel = channel
    self.group = group
    self.stream = stream
    self.records = records
    self.open = open
  }

  /// Binds the board on `host:port` for `server`'s lobby (configured with
  /// `feedsBoard`), with room for `viewers` streams.
  public static func start(
    host: String, port: Int, viewers: Int, server: GameServer, logger: Logger
  ) async throws -> BoardServer {
    try await start(
      host: host, port: port, viewers: viewers, logger: logger,
      watch: { sink in server.watchLobby(sink) },
      records: (
        ask: { request, match in server.askRecordForBoard(request: request, match: match) },
        answers: { sink in server.answerBoardRecords(sink) }
      ))
  }

  /// Binds the board; `watch` is handed where the lobby's views go, `records.answers`
  /// where the answers to the board's requests for records (`records.ask`) go.
  static func start(
    host: String, port: Int, viewers: Int, logger: Logger,
    watch: (@escaping @Sendable (SentLobbyView) -> Void) -> Void,
    records link: (
      ask: @Sendable (_ request: Int, _ match: Int64) -> Void,
      answers: (@escaping @Sendable (BoardRecordAnswer) -> Void) -> Void
    ),
    recordTimeout: TimeAmount = BoardRecordReply.timeout
  ) async throws -> BoardServer {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let stream = try await loop.submit {
      NIOLoopBound(BoardStream(loop: loop, viewers: viewers), eventLoop: loop)
    }.get()
    // As many as the connections that are not streams.
    let ask = link.ask
    let records = try await loop.submit {
      NIOLoopBound(
        BoardRecords(loop: loop, capacity: 16, timeout: recordTimeout, ask: ask),
        eventLoop: loop)
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
            try channel.pipeline.syncOperations.addHandler(
              BoardHandler(stream: stream.value, records: records.value))
          }
        }
        .bind(host: host, port: port).get()
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    let open = NIOLockedValueBox(true)
    // Under the lock, so that the loop cannot shut down between the check and the hop.
    watch { view in open.withLockedValue { if $0 { loop.execute { stream.value.received(view) } } }
    }
    link.answers { answer in
      open.withLockedValue { if $0 { loop.execute { records.value.answered(answer) } } }
    }
    let bound = channel.localAddress?.port ?? port
    logger.info("board listening", metadata: ["address": "\(host):\(bound)"])
    return BoardServer(
      port: bound, channel: channel, group: group, stream: stream, records: records, open: open)
  }

  /// Tells every viewer the server is closing, ends their streams and stops listening.
  func close() async {
    let (stream, records) = (self.stream, self.records)
    try? await stream.eventLoop.submit {
      records.value.shutDown()
      stream.value.shutDown()
    }.get()
    try? await channel.close()
    open.withLockedValue { $0 = false }
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
