import Logging
import NIOCore
import RoshamboConnections
import RoshamboProtocol
import RoshamboTLS

/// One client connection above TLS and the frame decoder: decodes messages, answers
/// pings itself, enforces the hello deadline, the rate limit and the idle limit, and hands
/// everything else to the hub.
///
/// What to do on each event is decided by a ``ConnectionStateMachine`` (a value, tested
/// alone); this class keeps the timers and performs the actions. Invariant: bad input
/// from this connection is answered on this connection only (an `error`, closing it when
/// the contract says fatal); it never reaches the hub.
final class ConnectionHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  typealias Admission = ConnectionStateMachine.Admission

  private var machine: ConnectionStateMachine
  private let id: Int
  private let hub: HubHandle
  private let limits: ServerConfiguration.Limits
  private let handshakeFailures: HandshakeFailureLog
  private let logger: Logger
  private let metrics: ServerMetrics?
  /// The peer's address, as the per-address limits count it.
  private let address: String?
  private var link: ConnectionLink?
  /// Closes the connection if TLS and `hello` take too long.
  private var helloTimeout: Scheduled<Void>?
  /// Closes the connection if the TLS handshake alone takes too long.
  private var handshakeTimeout: Scheduled<Void>?
  /// Tells the admission gate the handshake is done.
  private let handshakeFinished: @Sendable () -> Void
  /// Closes the connection if it stays unwritable (its peer does not read) too long.
  private var stall: Scheduled<Void>?
  /// Checks the silence of a client that promised pings.
  private var silence: Scheduled<Void>?

  init(
    id: Int, hub: HubHandle, limits: ServerConfiguration.Limits, admission: Admission,
    handshakeFailures: HandshakeFailureLog, logger: Logger, metrics: ServerMetrics? = nil,
    address: String? = nil, handshakeFinished: @escaping @Sendable () -> Void = {}
  ) {
    self.metrics = metrics
    self.address = address
    self.id = id
    self.handshakeFinished = handshakeFinished
    self.hub = hub
    self.limits = limits
    self.handshakeFailures = handshakeFailures
    self.logger = logger
    self.machine = ConnectionStateMachine(limits: limits, admission: admission)
  }

  func handlerAdded(context: ChannelHandlerContext) {
    link = ConnectionLink(id: id, channel: context.channel, address: address)
  }

  func channelActive(context: ChannelHandlerContext) {
    handshakeTimeout = context.eventLoop.assumeIsolated().scheduleTask(
      in: .seconds(limits.handshakeTimeoutSeconds)
    ) {
      self.logger.debug(
        "closing a connection whose TLS handshake took too long",
        metadata: ["conn": "\(self.id)", "seconds": "\(self.limits.handshakeTimeoutSeconds)"])
      self.helloTimeout?.cancel()
      self.machine.closed()
      context.close(promise: nil)
    }
    helloTimeout = context.eventLoop.assumeIsolated().scheduleTask(
      in: .seconds(limits.helloTimeoutSeconds)
    ) {
      self.perform(self.machine.helloTimedOut(), context: context)
    }
    logger.debug(
      "connected",
      metadata: ["conn": "\(id)", "peer": "\(context.remoteAddress?.description ?? "?")"])
    context.fireChannelActive()
  }

  func channelInactive(context: ChannelHandlerContext) {
    handshakeTimeout?.cancel()
    helloTimeout?.cancel()
    stall?.cancel()
    silence?.cancel()
    machine.closed()
    if let link { hub.execute { $0.detach(link) } }
    context.fireChannelInactive()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let completed = event as? TLSHandshakeCompleted {
      handshakeTimeout?.cancel()
      handshakeFinished()
      link?.identity = completed.peerKey
      perform(machine.handshakeCompleted(identity: completed.peerKey), context: context)
    } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
      perform(machine.idle(), context: context)
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    let action = machine.frameArrived(at: NIODeadline.now().milliseconds) {
      frame.withUnsafeReadableBytes { ClientMessage.decodeReadingID($0) }
    }
    perform(action, context: context)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    switch error {
    case let error as ProtocolError:
      perform(machine.failed(error), context: context)
    case let error as TLSError:
      handshakeFailures.record(
        address: context.remoteAddress?.ipAddress ?? "?", error: error)
      machine.closed()
      context.close(promise: nil)
    default:
      logger.debug("connection error", metadata: ["conn": "\(id)", "error": "\(error)"])
      machine.closed()
      context.close(promise: nil)
    }
  }

  /// A peer that does not read makes the connection unwritable: the hub then keeps only
  /// the newest state for it; if it stays so for the stall limit, it is closed.
  func channelWritabilityChanged(context: ChannelHandlerContext) {
    switch machine.writabilityChanged(isWritable: context.channel.isWritable) {
    case .drain:
      stall?.cancel()
      stall = nil
      if let link { hub.execute { $0.writable(link) } }
    case .startStallTimer:
      let seconds = limits.stallTimeoutSeconds
      stall = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
        guard self.machine.stallTimedOut() else { return }
        self.metrics?.slowConsumerCloses.increment()
        self.logger.info(
          "closing a connection that read nothing for \(seconds) s",
          metadata: ["conn": "\(self.id)"])
        context.close(promise: nil)
      }
    case .none:
      break
    }
    context.fireChannelWritabilityChanged()
  }

  /// Checks a client that promised pings at its silence limit, and again after each check
  /// that found it had spoken since.
  private func checkSilence(context: ChannelHandlerContext) {
    guard let deadline = machine.promisedSilenceDeadline else { return }
    silence = context.eventLoop.assumeIsolated().scheduleTask(
      deadline: .milliseconds(deadline)
    ) {
      self.silence = nil
      let action = self.machine.silenceChecked(at: NIODeadline.now().milliseconds)
      if action == .none {
        self.checkSilence(context: context)
      } else {
        self.logger.debug(
          "closing a connection silent past the pings it promised",
          metadata: ["conn": "\(self.id)", "seconds": "\(self.machine.silenceLimitSeconds)"])
        self.perform(action, context: context)
      }
    }
  }

  private func perform(_ action: ConnectionStateMachine.Action, context: ChannelHandlerContext) {
    switch action {
    case .forward(let message):
      if case .hello = message {
        helloTimeout?.cancel()
        checkSilence(context: context)
      }
      guard let link else { return }
      hub.execute { $0.receive(message, from: link) }
    case .pong(let id):
      context.writeAndFlush(
        wrapOutboundOut(.frame(ServerMessage.pong(id: id).encoded())), promise: nil)
    case .refuse(let error, let re):
      refuse(error, re: re, context: context)
    case .refuseAfterAnswers(let error, let re):
      guard let link else { return refuse(error, re: re, context: context) }
      logger.info(
        "refused", metadata: ["conn": "\(id)", "code": "\(error.code)", "fatal": "true"])
      helloTimeout?.cancel()
      hub.execute { $0.refuseAfterAnswers(link, error, re: re) }
    case .none:
      break
    }
  }

  /// Sends an error; a fatal one closes the connection once it has been written.
  private func refuse(_ error: ProtocolError, re: Int?, context: ChannelHandlerContext) {
    logger.info(
      "refused", metadata: ["conn": "\(id)", "code": "\(error.code)", "fatal": "\(error.fatal)"])
    let frame = wrapOutboundOut(.frame(ServerMessage.error(error, re: re).encoded()))
    guard error.fatal else {
      context.writeAndFlush(frame, promise: nil)
      return
    }
    helloTimeout?.cancel()
    context.writeAndFlush(frame).assumeIsolated().whenComplete { _ in
      context.close(promise: nil)
    }
  }
}

extension NIODeadline {
  /// The monotonic clock in milliseconds: the clock of ``ConnectionStateMachine``.
  fileprivate var milliseconds: Int64 { Int64(uptimeNanoseconds / 1_000_000) }

  /// The moment `milliseconds` of the monotonic clock.
  fileprivate static func milliseconds(_ milliseconds: Int64) -> NIODeadline {
    .uptimeNanoseconds(UInt64(max(0, milliseconds)) * 1_000_000)
  }
}
