import NIOCore
import NIOHTTP1
import NIOPosix

/// Follows the SDK server's `GET /watch/gameserver`: a response that never ends, one
/// JSON line per change to this GameServer (``WatchedGameServer``).
///
/// Invariant: `follow` returns (or throws) once the stream ends, fails, or the task is
/// cancelled, and then holds no connection.
enum GameServerWatch {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Connects to 127.0.0.1:`port` and calls `update` with each GameServer the stream
  /// shows, until it ends (returns) or fails (throws).
  static func follow(
    port: Int, group: any EventLoopGroup,
    update: @escaping @Sendable (WatchedGameServer) -> Void
  ) async throws {
    let loop = group.next()
    let ended = loop.makePromise(of: Void.self)
    let channel: any Channel
    do {
      channel = try await ClientBootstrap(group: loop)
        .connectTimeout(.seconds(5))
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(
              LineReader(update: update, ended: ended))
          }
        }
        .connect(host: "127.0.0.1", port: port).get()
    } catch {
      ended.fail(error)
      throw error
    }
    var headers = HTTPHeaders()
    headers.add(name: "Host", value: "127.0.0.1:\(port)")
    headers.add(name: "Accept", value: "application/json")
    let head = HTTPRequestHead(
      version: .http1_1, method: .GET, uri: "/watch/gameserver", headers: headers)
    channel.write(HTTPClientRequestPart.head(head), promise: nil)
    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    try await withTaskCancellationHandler {
      try await ended.futureResult.get()
    } onCancel: {
      channel.close(promise: nil)
    }
    try? await channel.close()
  }

  /// Splits the response's body into lines and reads each as a GameServer.
  private final class LineReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let update: @Sendable (WatchedGameServer) -> Void
    private let ended: EventLoopPromise<Void>
    private var pending: [UInt8] = []

    init(update: @escaping @Sendable (WatchedGameServer) -> Void, ended: EventLoopPromise<Void>) {
      self.update = update
      self.ended = ended
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        guard head.status == .ok else {
          fail(context, "the SDK server answered /watch/gameserver with \(head.status.code)")
          return
        }
      case .body(var buffer):
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          if let server = WatchedGameServer(line: pending[..<newline]) { update(server) }
          pending.removeSubrange(...newline)
        }
        if pending.count > WatchedGameServer.maxLine {
          fail(context, "the SDK server sent a line of more than 1 MiB")
        }
      case .end:
        if let server = WatchedGameServer(line: pending) { update(server) }
        ended.succeed()
        context.close(promise: nil)
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      ended.fail(error)
      context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
      ended.fail(Failure(description: "the SDK server closed /watch/gameserver"))
    }

    private func fail(_ context: ChannelHandlerContext, _ why: String) {
      ended.fail(Failure(description: why))
      context.close(promise: nil)
    }
  }
}
