import Logging
import NIOCore
import RoshamboProtocol
import RoshamboTLS

/// One client connection above TLS and the frame decoder: decodes messages, answers
/// pings itself, enforces the hello deadline, the rate limit and the idle limit, and hands
/// everything else to the hub.
///
/// Invariant: bad input from this connection is answered on this connection only (an
/// `error`, closing it when the contract says fatal); it never reaches the hub.
final class ConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Whether the connection may stay, decided when it was accepted.
  enum Admission {
    case admitted
    /// The server holds its maximum of connections.
    case serverFull
    /// The peer's address holds its maximum of connections.
    case addressFull
  }

  private enum State {
    /// Waiting for TLS and `hello`; the task closes the connection when time is up.
    case awaitingHello(Scheduled<Void>?)
    case joined
    case closing
  }

  private var state = State.awaitingHello(nil)
  private let id: Int
  private let hub: HubHandle
  private let limits: ServerConfiguration.Limits
  private let admission: Admission
  private let handshakeFailures: HandshakeFailureLog
  private let logger: Logger
  private var bucket: TokenBucket
  private var excess = 0
  private var link: ConnectionLink?
  /// Closes the connection if it stays unwritable (its peer does not read) too long.
  private var stall: Scheduled<Void>?

  init(
    id: Int, hub: HubHandle, limits: ServerConfiguration.Limits, admission: Admission,
    handshakeFailures: HandshakeFailureLog, logger: Logger
  ) {
    self.id = id
    self.hub = hub
    self.limits = limits
    self.admission = admission
    self.handshakeFailures = handshakeFailures
    self.logger = logger
    self.bucket = TokenBucket(perSecond: limits.framesPerSecond, burst: limits.frameBurst)
  }

  func handlerAdded(context: ChannelHandlerContext) {
    link = ConnectionLink(id: id, channel: context.channel)
  }

  func channelActive(context: ChannelHandlerContext) {
    let seconds = limits.helloTimeoutSeconds
    let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
      self.fail(
        context, .timeout("No hello within \(seconds) s of connecting; closing."), re: nil)
    }
    state = .awaitingHello(timeout)
    logger.debug(
      "connected",
      metadata: ["conn": "\(id)", "peer": "\(context.remoteAddress?.description ?? "?")"])
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    if case .awaitingHello(let timeout) = state { timeout?.cancel() }
    stall?.cancel()
    state = .closing
    if let link { hub.execute { $0.detach(link) } }
    context.fireChannelInactive()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is TLSHandshakeCompleted, admission != .admitted {
      let message =
        admission == .serverFull
        ? "The server has its maximum of \(limits.maxConnections) connections; try again later."
        : "Your address has its maximum of \(limits.maxConnectionsPerAddress) connections to "
          + "this server; close one and try again."
      fail(context, .serverFull(message), re: nil)
    } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
      fail(
        context,
        .timeout(
          "No message for \(limits.idleTimeoutSeconds) s; closing (send ping to stay connected)."),
        re: nil)
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .closing = state { return }
    guard bucket.take(at: NIODeadline.now()) else {
      excess += 1
      let fatal = excess > limits.frameBurst
      if excess == 1 || fatal {
        fail(
          context,
          .rateLimited(
            "More than \(limits.framesPerSecond) messages per second; slow down"
              + (fatal ? ". Closing." : " (messages are being dropped)."), fatal: fatal),
          re: nil)
      }
      return
    }
    excess = 0
    let frame = unwrapInboundIn(data)
    let message: ClientMessage
    let (result, id) = frame.withUnsafeReadableBytes { ClientMessage.decodeReadingID($0) }
    switch result {
    case .failure(let error):
      fail(context, error, re: id)
      return
    case .success(let decoded):
      message = decoded
    }
    switch (state, message) {
    case (_, .ping(let id)):
      write(context, .pong(id: id))
    case (.awaitingHello(let timeout), .hello):
      timeout?.cancel()
      state = .joined
      forward(message)
    case (.awaitingHello, _):
      fail(context, .helloFirst(), re: message.id)
    case (.joined, _):
      forward(message)
    case (.closing, _):
      break
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    switch error {
    case let error as ProtocolError:
      fail(context, error, re: nil)
    case let error as TLSError:
      handshakeFailures.record(
        address: context.remoteAddress?.ipAddress ?? "?", error: error)
      context.close(promise: nil)
    default:
      logger.debug("connection error", metadata: ["conn": "\(id)", "error": "\(error)"])
      context.close(promise: nil)
    }
  }

  /// A peer that does not read makes the connection unwritable: the hub then keeps only
  /// the newest state for it; if it stays so for the stall limit, it is closed.
  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable {
      stall?.cancel()
      stall = nil
      if let link { hub.execute { $0.writable(link) } }
    } else if stall == nil {
      let seconds = limits.stallTimeoutSeconds
      stall = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
        self.logger.info(
          "closing a connection that read nothing for \(seconds) s",
          metadata: ["conn": "\(self.id)"])
        self.state = .closing
        context.close(promise: nil)
      }
    }
    context.fireChannelWritabilityChanged()
  }

  private func forward(_ message: ClientMessage) {
    guard let link else { return }
    guard let request = PlayerRequest(message) else { return }
    hub.execute { $0.receive(request, from: link) }
  }

  private func write(_ context: ChannelHandlerContext, _ message: ServerMessage) {
    context.writeAndFlush(wrapOutboundOut(.frame(message.encoded())), promise: nil)
  }

  /// Sends an error; a fatal one closes the connection once it has been written.
  private func fail(_ context: ChannelHandlerContext, _ error: ProtocolError, re: Int?) {
    logger.info(
      "refused", metadata: ["conn": "\(id)", "code": "\(error.code)", "fatal": "\(error.fatal)"])
    if error.fatal {
      if case .awaitingHello(let timeout) = state { timeout?.cancel() }
      state = .closing
      context.writeAndFlush(wrapOutboundOut(.frame(ServerMessage.error(error, re: re).encoded())))
        .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    } else {
      write(context, .error(error, re: re))
    }
  }
}

/// A token bucket: `perSecond` tokens a second, at most `burst` saved up.
struct TokenBucket {
  let perSecond: Int
  let burst: Int
  private var tokens: Double
  private var last: NIODeadline?

  init(perSecond: Int, burst: Int) {
    self.perSecond = perSecond
    self.burst = burst
    self.tokens = Double(burst)
  }

  /// Takes a token if there is one.
  mutating func take(at now: NIODeadline) -> Bool {
    if let last {
      let elapsed = Double((now - last).nanoseconds) / 1e9
      tokens = min(Double(burst), tokens + elapsed * Double(perSecond))
    }
    last = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
