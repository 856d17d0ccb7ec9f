import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboServer
import ServiceLifecycle

/// The operations port: plain HTTP/1.1 on an address of its own (never the game's TLS
/// port), for a host's monitoring. `GET /metrics` is the Prometheus text of
/// ``PrometheusMetrics``; `GET /livez` says whether the process and the hub's loop answer;
/// `GET /readyz` whether the server takes players now (listening, the journal writable,
/// not stopping). Anything else is 404 (405 for another method).
///
/// Invariant: what a client of this port sends never reaches the game: a request is
/// answered from its own connection's loop and a sample taken on the hub's, at most
/// ``maxConnections`` connections are open at once, and one that has not sent a
/// complete request within its request timeout (10 s by default) is closed, however
/// slowly it keeps sending. Idle connections cannot keep a probe out: when the port is
/// full, a new connection closes the one that has gone longest without an answer being
/// prepared for it (``OperationsAdmission``).
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
  /// Complete requests one connection may send ahead of the answer it is waiting for.
  static let maxPipelined = 8

  public let port: Int
  private let channel: any Channel

  private init(port: Int, channel: any Channel) {
    self.port = port
    self.channel = channel
  }

  static func start(
    host: String, port: Int, group: any EventLoopGroup, metrics: PrometheusMetrics,
    probes: Probes, requestTimeout: TimeAmount = .seconds(10), logger: Logger
  ) async throws -> OperationsEndpoint {
    let connections = OperationsConnections(capacity: maxConnections)
    let channel = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .serverChannelOption(.backlog, value: 64)
      .childChannelInitializer { channel in
        guard let (slot, closing) = connections.admit(channel) else {
          logger.warning(
            "operations endpoint: refused a connection: all \(Self.maxConnections) connections are being answered"
          )
          return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed)
        }
        if closing != nil {
          logger.debug(
            "operations endpoint: full; closed the connection idle longest to admit a new one")
        }
        return channel.eventLoop.makeCompletedFuture {
          try configure(
            channel, metrics: metrics, probes: probes, requestTimeout: requestTimeout,
            slot: slot, logger: logger)
        }
      }
      .bind(host: host, port: port).get()
    let bound = channel.localAddress?.port ?? port
    logger.info("operations endpoint listening", metadata: ["address": "\(host):\(bound)"])
    return OperationsEndpoint(port: bound, channel: channel)
  }

  /// Sets up one connection's pipeline: HTTP/1.1, then ``OperationsHandler``.
  static func configure(
    _ channel: any Channel, metrics: PrometheusMetrics, probes: Probes, requestTimeout: TimeAmount,
    slot: OperationsConnections.Slot? = nil, logger: Logger
  ) throws {
    // Requests are kept in order by the handler itself, one answered at a time.
    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
      withPipeliningAssistance: false, withErrorHandling: true)
    try channel.pipeline.syncOperations.addHandler(
      OperationsHandler(
        metrics: metrics, probes: probes, requestTimeout: requestTimeout, slot: slot,
        logger: logger))
  }

  func close() async {
    try? await channel.close()
  }
}

extension OperationsEndpoint: Service {
  /// Answers until the group's shutdown reaches it: after the drain (a drain's `/readyz`
  /// says so), before the hub stops.
  public func run() async throws {
    try? await gracefulShutdown()
    await close()
  }
}

/// One connection of the operations port: one request answered at a time, in order.
///
/// Invariant: at most one answer is being prepared or written at once, and while it is
/// the connection is not read; at most ``OperationsEndpoint/maxPipelined`` complete
/// requests wait behind it (more, and the connection is closed); an answer not written
/// within the request timeout (the client does not read) closes the connection. So a
/// client that sends without reading holds at most one answer's worth of the server's
/// memory.
final class OperationsHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundIn = HTTPServerResponsePart
  typealias OutboundOut = HTTPServerResponsePart

  private let metrics: PrometheusMetrics
  private let probes: OperationsEndpoint.Probes
  private let requestTimeout: TimeAmount
  /// Where this connection reports whether it is being answered (nil: nowhere).
  private let slot: OperationsConnections.Slot?
  private let logger: Logger
  /// The request whose head has come and whose end has not.
  private var request: HTTPRequestHead?
  /// Complete requests not answered yet, oldest first.
  private var waiting: [HTTPRequestHead] = []
  /// Whether an answer is being prepared or written.
  private var answering = false
  /// Whether a read was asked for while answering (done once the answer is written).
  private var readHeld = false
  /// When the connection is closed unless it has sent a complete request (or, while an
  /// answer is written, unless the client has read it).
  private var deadline: Scheduled<Void>?

  init(
    metrics: PrometheusMetrics, probes: OperationsEndpoint.Probes, requestTimeout: TimeAmount,
    slot: OperationsConnections.Slot?, logger: Logger
  ) {
    self.metrics = metrics
    self.probes = probes
    self.requestTimeout = requestTimeout
    self.slot = slot
    self.logger = logger
  }

  func handlerAdded(context: ChannelHandlerContext) { armDeadline(context) }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
  }

  /// The next request must be complete within the timeout, however slowly its bytes
  /// come (a read does not extend it, as an idle timer would); an answer must be written
  /// within it.
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
      waiting.append(head)
      guard waiting.count <= OperationsEndpoint.maxPipelined else {
        logger.warning(
          "operations endpoint: closed a connection that sent more than \(OperationsEndpoint.maxPipelined) requests without reading the answers; a client must read each answer (scrapers and probes do)",
          metadata: ["peer": "\(context.remoteAddress.map { "\($0)" } ?? "?")"])
        waiting.removeAll()
        context.close(promise: nil)
        return
      }
      answerNext(context)
    }
  }

  /// Holds reads while an answer is prepared or written: what the client sends meanwhile
  /// waits in its socket, not in the server.
  func read(context: ChannelHandlerContext) {
    if answering || !waiting.isEmpty {
      readHeld = true
    } else {
      context.read()
    }
  }

  /// A request that is not HTTP (or too large) was answered 400 before this handler: the
  /// connection ends there.
  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  private func answerNext(_ context: ChannelHandlerContext) {
    guard !answering, !waiting.isEmpty, context.channel.isActive else { return }
    answering = true
    deadline?.cancel()
    deadline = nil
    slot?.answering()
    respond(to: waiting.removeFirst(), context: context)
  }

  /// The answer to `head` is written (the client took it, or the connection failed).
  private func written(keepAlive: Bool, context: ChannelHandlerContext) {
    answering = false
    guard keepAlive, context.channel.isActive else {
      context.close(promise: nil)
      return
    }
    if !waiting.isEmpty { return answerNext(context) }
    armDeadline(context)
    if readHeld {
      readHeld = false
      context.read()
    }
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
          handler.metrics.server.ready.set(1)
          handler.send(.ok, "ready\n", head, context)
        case .success(.unready(let why)):
          handler.metrics.server.ready.set(0)
          handler.send(.serviceUnavailable, "not ready: \(why)\n", head, context)
        case .failure:
          handler.metrics.server.ready.set(0)
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
    slot?.answered()
    // The client has the timeout to take the answer.
    armDeadline(context)
    let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      let (handler, context) = bound.value
      handler.written(keepAlive: keepAlive, context: context)
    }
  }
}
