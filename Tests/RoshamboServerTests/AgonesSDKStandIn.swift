import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A stand-in for the Agones SDK server (the sidecar), which cannot be had on these
/// machines: the REST endpoints the game calls, as Agones documents them (`POST /ready`,
/// `POST /health`, `POST /shutdown`, `PUT /metadata/label`, and the beta Counters'
/// `PATCH /v1beta1/counters/{name}` with `{"count": "N"}`), answering `{}` and recording
/// each call in order; anything else is `404`.
///
/// Invariant: `calls` holds every request received, in the order they arrived.
final class AgonesSDKStandIn: Sendable {
  struct Call: Equatable, Sendable {
    var method: String
    var path: String
    var body: String
    /// "PATCH /v1beta1/counters/players".
    var line: String { "\(method) \(path)" }
  }

  let port: Int
  private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  private let channel: any Channel
  private let recorded: NIOLockedValueBox<[Call]>

  /// Listens on 127.0.0.1:`port` (0: a free one).
  init(port: Int = 0) throws {
    let recorded = NIOLockedValueBox<[Call]>([])
    self.recorded = recorded
    channel = try ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap {
          channel.pipeline.addHandler(Handler(recorded: recorded))
        }
      }
      .bind(host: "127.0.0.1", port: port).wait()
    self.port = channel.localAddress?.port ?? port
  }

  var calls: [Call] { recorded.withLockedValue { $0 } }

  func close() {
    try? channel.close().wait()
    try? group.syncShutdownGracefully()
  }

  private final class Handler: ChannelInboundHandler, @unchecked Sendable {
    // `@unchecked Sendable`: used only on its channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private let recorded: NIOLockedValueBox<[Call]>
    private var head: HTTPRequestHead?
    private var body = ""

    init(recorded: NIOLockedValueBox<[Call]>) { self.recorded = recorded }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      switch unwrapInboundIn(data) {
      case .head(let head):
        self.head = head
        body = ""
      case .body(let buffer):
        body += String(buffer: buffer)
      case .end:
        guard let head else { return }
        let call = Call(method: head.method.rawValue, path: head.uri, body: body)
        let known =
          ["POST /ready", "POST /health", "POST /shutdown", "PUT /metadata/label"].contains(
            call.line) || (call.method == "PATCH" && call.path.hasPrefix("/v1beta1/counters/"))
        recorded.withLockedValue { $0.append(call) }
        let answer = known ? "{}" : #"{"error":"Not Found"}"#
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "\(answer.utf8.count)")
        headers.add(name: "Connection", value: "close")
        context.write(
          wrapOutboundOut(
            .head(
              HTTPResponseHead(version: .http1_1, status: known ? .ok : .notFound, headers: headers)
            )),
          promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
          channel.close(promise: nil)
        }
      }
    }
  }
}
