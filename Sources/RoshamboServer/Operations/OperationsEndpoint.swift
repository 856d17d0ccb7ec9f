import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The operations port: plain HTTP/1.1 on an address of its own (never the game's TLS
/// port), for a host's monitoring. `GET /metrics` is the Prometheus text of
/// ``ServerMetrics``; `GET /livez` says whether the process and the hub's loop answer;
/// `GET /readyz` whether the server takes players now (listening, the journal writable,
/// not stopping). Anything else is 404 (405 for another method).
///
/// Invariant: what a client of this port sends never reaches the game: a request is
/// answered from its own connection's loop and a sample taken on the hub's, at most
/// ``maxConnections`` connections are open at once, and one that has not sent a
/// complete request within its request timeout (10 s by default) is closed, however
/// slowly it keeps sending.
public final class OperationsEndpoint: Sendable {
  /// Health as the endpoint reports it.
  public enum Health: Sendable, Equatable {
    case ready
    /// Not ready, and why.
    case unready(String)
  }

  /// What the endpoint asks the server at each request.
  public struct Probes: Sendable {
    /// Samples the hub into the metrics (on the hub's loop); fails if it does not answer.
    var sample: @Sendable () -> EventLoopFuture<Void>
    /// Whether the server takes players now.
    var readiness: @Sendable () -> EventLoopFuture<Health>
  }

  static let maxConnections = 32

  public let port: Int
  private let channel: any Channel

  private init(port: Int, channel: any Channel) {
    self.port = port
    self.channel = channel
  }

  static func start(
    host: String, port: Int, group: any EventLoopGroup, metrics: ServerMetrics,
    probes: Probes, requestTimeout: TimeAmount = .seconds(10), logger: Logger
  ) async throws -> OperationsEndpoint {
    let open = NIOLockedValueBox(0)
    let channel = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .serverChannelOption(.backlog, value: 64)
      .childChannelInitializer { channel in
        let admitted = open.withLockedValue { count -> Bool in
          guard count < Self.maxConnections else { return false }
          count += 1
          return true
        }
        guard admitted else {
          return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed)
        }
        channel.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
        return channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: true)
          try channel.pipeline.syncOperations.addHandler(
            OperationsHandler(metrics: metrics, probes: probes, requestTimeout: requestTimeout))
        }
      }
      .bind(host: host, port: port).get()
    let bound = channel.localAddress?.port ?? port
    logger.info("operations endpoint listening", metadata: ["address": "\(host):\(bound)"])
    return OperationsEndpoint(port: bound, channel: channel)
  }

  func close() async {
    try? await channel.close()
  }
}

/// One connection of the operations port: each request answered in turn.
final class OperationsHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private let metrics: ServerMetrics
  private let probes: OperationsEndpoint.Probes
  private let requestTimeout: TimeAmount
  private var request: HTTPRequestHead?
  /// When the request being waited for must be complete: the connection is closed then.
  private var deadline: Scheduled<Void>?

  init(metrics: ServerMetrics, probes: OperationsEndpoint.Probes, requestTimeout: TimeAmount) {
    self.metrics = metrics
    self.probes = probes
    self.requestTimeout = requestTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) { armDeadline(context) }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
  }

  /// The next request must be complete within the timeout, however slowly its bytes
  /// come (a read does not extend it, as an idle timer would).
  private func armDeadline(_ context: ChannelHandlerContext) {
    deadline?.cancel()
    let channel = context.channel
    deadline = context.eventLoop.scheduleTask(in: requestTimeout) {
      channel.close(promise: nil)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head): request = head
    case .body: break  // No path takes a body; it is read and dropped.
    case .end:
      guard let head = request else { return }
      request = nil
      deadline?.cancel()
      deadline = nil
      respond(to: head, context: context)
    }
  }

  /// A request that is not HTTP (or too large) was answered 400 before this handler: the
  /// connection ends there.
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
    let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
    guard ["/metrics", "/livez", "/readyz"].contains(path) else {
      return send(
        .notFound, "Not found: this port serves /metrics, /livez and /readyz.\n", head, context)
    }
    guard head.method == .GET || head.method == .HEAD else {
      return send(.methodNotAllowed, "Only GET (or HEAD) is served here.\n", head, context)
    }
    let loop = context.eventLoop
    let bound = NIOLoopBound((self, context), eventLoop: loop)
    switch path {
    case "/metrics":
      probes.sample().hop(to: loop).whenComplete { result in
        let (handler, context) = bound.value
        switch result {
        case .success:
          handler.send(
            .ok, handler.metrics.exposition(), head, context,
            contentType: "text/plain; version=0.0.4; charset=utf-8")
        case .failure:
          handler.send(.serviceUnavailable, "The game loop did not answer.\n", head, context)
        }
      }
    case "/livez":
      // Any answer from the hub's loop will do: whether it is ready is /readyz's.
      probes.readiness().hop(to: loop).whenComplete { result in
        let (handler, context) = bound.value
        switch result {
        case .success: handler.send(.ok, "ok\n", head, context)
        case .failure:
          handler.send(.serviceUnavailable, "The game loop did not answer.\n", head, context)
        }
      }
    default:
      probes.readiness().hop(to: loop).whenComplete { result in
        let (handler, context) = bound.value
        switch result {
        case .success(.ready):
          handler.metrics.ready.set(1)
          handler.send(.ok, "ready\n", head, context)
        case .success(.unready(let why)):
          handler.metrics.ready.set(0)
          handler.send(.serviceUnavailable, "not ready: \(why)\n", head, context)
        case .failure:
          handler.metrics.ready.set(0)
          handler.send(
            .serviceUnavailable, "not ready: the game loop did not answer\n", head, context)
        }
      }
    }
  }

  private func send(
    _ status: HTTPResponseStatus, _ text: String, _ head: HTTPRequestHead,
    _ context: ChannelHandlerContext
  ) {
    send(status, Array(text.utf8), head, context, contentType: "text/plain; charset=utf-8")
  }

  private func send(
    _ status: HTTPResponseStatus, _ body: [UInt8], _ head: HTTPRequestHead,
    _ context: ChannelHandlerContext, contentType: String
  ) {
    var headers = HTTPHeaders()
    headers.add(name: "Content-Type", value: contentType)
    headers.add(name: "Content-Length", value: String(body.count))
    headers.add(name: "Cache-Control", value: "no-store")
    let keepAlive = head.isKeepAlive
    if !keepAlive { headers.add(name: "Connection", value: "close") }
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
      promise: nil)
    if head.method != .HEAD {
      context.write(
        wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))),
        promise: nil)
    }
    let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
    if keepAlive {
      armDeadline(context)
    } else {
      let channel = context.channel
      done.whenComplete { _ in channel.close(promise: nil) }
    }
  }
}
