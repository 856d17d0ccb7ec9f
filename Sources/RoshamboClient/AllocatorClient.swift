import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboTLS

/// Asks Agones' allocator service for a game server over HTTPS (mutual TLS: the
/// allocator checks the player's client certificate, the player checks the allocator's
/// against its CA): one `POST /gameserverallocation` per try, retried when another
/// allocation clashed with it.
///
/// Invariant: every connection it opens is closed before it returns, and an answer is
/// read up to ``maxAnswer`` bytes, within ``timeLimit`` (10 s unless told).
public enum AllocatorClient {
  static let maxAnswer = 64 * 1024
  public static let timeLimit = TimeAmount.seconds(10)
  static let tries = 3

  /// The server the allocator chose for `allocation`, asked of `host`:`port` with `tls`
  /// (a client context trusting the allocator's CA, with the player's certificate).
  public static func allocate(
    _ allocation: FleetAllocation, host: String, port: Int, tls: TLSContext,
    timeLimit: TimeAmount = AllocatorClient.timeLimit,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws(AllocatorFailure) -> FleetAllocation.Allocated {
    var failure = AllocatorFailure(.unreachable, "the allocator was not asked")
    for _ in 0..<tries {
      let answer: (status: Int, body: [UInt8])
      do {
        answer = try await post(
          allocation.requestBody(), host: host, port: port, tls: tls, timeLimit: timeLimit,
          group: group)
      } catch let error as TLSError {
        throw AllocatorFailure(
          .unreachable, "cannot reach the allocator at \(host):\(port): \(error.message)")
      } catch let error as AllocatorFailure {
        throw error
      } catch {
        let failure = ConnectionFailure(error, host: host, address: "\(host):\(port)")
        throw AllocatorFailure(.unreachable, "the allocator: " + failure.sentence)
      }
      guard answer.status == 200 else {
        failure = allocation.failure(status: answer.status, body: answer.body)
        if failure.kind == .contention { continue }
        throw failure
      }
      return try allocation.allocated(from: answer.body)
    }
    throw failure
  }

  /// One HTTPS POST: the status and the body.
  private static func post(
    _ body: String, host: String, port: Int, tls: TLSContext, timeLimit: TimeAmount,
    group: any EventLoopGroup
  ) async throws -> (status: Int, body: [UInt8]) {
    let loop = group.next()
    let answered = loop.makePromise(of: (status: Int, body: [UInt8]).self)
    let channel: any Channel
    do {
      channel = try await ClientPipeline.bootstrap(group: loop)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(
              try TLSHandler(context: tls, serverName: host))
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            try channel.pipeline.syncOperations.addHandler(AnswerReader(answered: answered))
          }
        }
        .connect(host: host, port: port).get()
    } catch {
      answered.fail(error)
      throw error
    }
    let timeout = loop.scheduleTask(in: timeLimit) {
      let seconds = timeLimit.nanoseconds / 1_000_000_000
      answered.fail(
        AllocatorFailure(.unreachable, "the allocator did not answer within \(seconds) s"))
      channel.close(promise: nil)
    }
    defer {
      timeout.cancel()
      channel.close(promise: nil)
    }
    var headers = HTTPHeaders()
    headers.add(name: "Host", value: port == 443 ? host : "\(host):\(port)")
    headers.add(name: "Content-Type", value: "application/json")
    headers.add(name: "Content-Length", value: "\(body.utf8.count)")
    let head = HTTPRequestHead(
      version: .http1_1, method: .POST, uri: "/gameserverallocation", headers: headers)
    channel.write(HTTPClientRequestPart.head(head), promise: nil)
    channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    return try await answered.futureResult.get()
  }

  /// Collects one response, at most ``maxAnswer`` bytes of body.
  private final class AnswerReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let answered: EventLoopPromise<(status: Int, body: [UInt8])>
    private var status = 0
    private var body: [UInt8] = []

    init(answered: EventLoopPromise<(status: Int, body: [UInt8])>) { self.answered = answered }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        status = Int(head.status.code)
      case .body(var buffer):
        guard body.count + buffer.readableBytes <= AllocatorClient.maxAnswer else {
          answered.fail(
            AllocatorFailure(.badAnswer, "the allocator's answer is longer than 64 KiB"))
          context.close(promise: nil)
          return
        }
        body += buffer.readBytes(length: buffer.readableBytes) ?? []
      case .end:
        answered.succeed((status, body))
        context.close(promise: nil)
      }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      answered.fail(error)
      context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
      answered.fail(AllocatorFailure(.badAnswer, "the allocator closed the connection unanswered"))
    }
  }
}
