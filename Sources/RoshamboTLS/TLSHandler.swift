import NIOCore

/// Fired inbound once the handshake has completed and the peer has been verified.
public struct TLSHandshakeCompleted: Sendable, Equatable {
  /// "TLSv1.3" or "TLSv1.2".
  public var protocolVersion: String
  public var cipherSuite: String?
  /// The SHA-256 fingerprint of the peer's certificate, if it sent one.
  public var peerFingerprint: String?
  /// The SHA-256 of the peer's public key (64 hex digits), if it sent a certificate: on a
  /// server that accepts client identities, who the client is.
  public var peerKey: String? = nil

  public init(
    protocolVersion: String, cipherSuite: String?, peerFingerprint: String?,
    peerKey: String? = nil
  ) {
    self.protocolVersion = protocolVersion
    self.cipherSuite = cipherSuite
    self.peerFingerprint = peerFingerprint
    self.peerKey = peerKey
  }
}

/// A channel handler that runs TLS over the system's OpenSSL: ciphertext below,
/// plaintext above, for a client or a server.
///
/// A client handshakes as soon as the channel is active, a server as soon as the
/// ClientHello arrives (either closes the connection if the handshake takes longer than
/// the configured timeout from activation), buffers writes until the handshake is done and
/// encrypts everything written before a flush into one network write, answers and sends
/// close_notify, and reports a peer that closes without close_notify as
/// ``TLSError/Kind/truncated``. What happens on each event is decided by a
/// `TLSHandlerStateMachine` (a value, tested alone); this class performs its actions.
/// Invariant: no plaintext is passed up, and none written is sent, before the peer has
/// been verified.
public final class TLSHandler: ChannelDuplexHandler {
  public typealias InboundIn = ByteBuffer
  public typealias InboundOut = ByteBuffer
  public typealias OutboundIn = ByteBuffer
  public typealias OutboundOut = ByteBuffer

  private struct PendingWrite {
    var data: ByteBuffer
    var promise: EventLoopPromise<Void>?
  }

  private var machine: TLSHandlerStateMachine
  /// Closes the connection if the handshake takes too long.
  private var handshakeTimeout: Scheduled<Void>?
  private let connection: TLSConnection
  private var pendingWrites: [PendingWrite] = []
  /// How many of `pendingWrites` (from the front) a flush has asked to send.
  private var flushedCount = 0
  private var deliveredSinceReadComplete = false

  /// A handler for `context`'s role. A client passes the host name or IP address it
  /// expects the server's certificate to name.
  public init(context: TLSContext, serverName: String? = nil) throws {
    self.connection = try TLSConnection(context: context, serverName: serverName)
    self.machine = TLSHandlerStateMachine(role: context.configuration.role)
  }

  /// Whether OpenSSL has begun the handshake: a server begins when the ClientHello
  /// arrives.
  var handshakeStarted: Bool { connection.handshakeStarted }

  // MARK: - Lifecycle

  public func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive {
      startHandshake(context: context)
    }
  }

  public func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    startHandshake(context: context)
  }

  public func channelInactive(context: ChannelHandlerContext) {
    handshakeTimeout?.cancel()
    switch machine.channelInactive() {
    case .fail(let error):
      failPendingWrites(error)
      context.fireErrorCaught(error)
    case .failWrites:
      failPendingWrites(ChannelError.ioOnClosedChannel)
    }
    context.fireChannelInactive()
  }

  // MARK: - Inbound

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    connection.consume(unwrapInboundIn(data))
    switch machine.bytesArrived() {
    case .stepHandshake: stepHandshake(context: context)
    case .decrypt: decode(context: context)
    case .ignore: break
    }
  }

  public func channelReadComplete(context: ChannelHandlerContext) {
    if deliveredSinceReadComplete {
      deliveredSinceReadComplete = false
      context.fireChannelReadComplete()
    }
    // Post-handshake messages (a KeyUpdate, say) may have produced output to answer.
    sendOutput(context: context, promise: nil)
  }

  // MARK: - Outbound

  public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?)
  {
    switch machine.write() {
    case .fail: promise?.fail(ChannelError.ioOnClosedChannel)
    case .buffer: pendingWrites.append(PendingWrite(data: unwrapOutboundIn(data), promise: promise))
    }
  }

  public func flush(context: ChannelHandlerContext) {
    flushedCount = pendingWrites.count
    if machine.flush() == .encrypt { encryptFlushedWrites(context: context) }
  }

  public func close(
    context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?
  ) {
    switch machine.close(input: mode == .input) {
    case .closeInput:
      context.close(mode: .input, promise: promise)
    case .sendCloseNotify:
      flushedCount = pendingWrites.count
      encryptFlushedWrites(context: context)
      _ = connection.shutdown()
      sendCloseNotifyThenClose(context: context, mode: mode, promise: promise)
    case .closeNow:
      handshakeTimeout?.cancel()
      failPendingWrites(ChannelError.ioOnClosedChannel)
      context.close(mode: mode, promise: promise)
    case .forward:
      context.close(mode: mode, promise: promise)
    }
  }

  // MARK: - Handshake

  private func startHandshake(context: ChannelHandlerContext) {
    let start = machine.channelActive()
    guard start != .none else { return }
    let seconds = connection.context.configuration.handshakeTimeoutSeconds
    handshakeTimeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
      if case .fail(let error) = self.machine.handshakeTimedOut(seconds: seconds) {
        self.fail(error, context: context)
      }
    }
    if start == .startHandshake { stepHandshake(context: context) }
  }

  private func stepHandshake(context: ChannelHandlerContext) {
    switch machine.handshakeStepped(connection.handshake()) {
    case .sendOutput:
      sendOutput(context: context, promise: nil)
    case .complete:
      handshakeTimeout?.cancel()
      sendOutput(context: context, promise: nil)
      context.fireUserInboundEventTriggered(
        TLSHandshakeCompleted(
          protocolVersion: connection.protocolVersion, cipherSuite: connection.cipherSuite,
          peerFingerprint: connection.peerFingerprint, peerKey: connection.peerKey))
      // Data may have arrived with the peer's Finished; writes may be waiting.
      decode(context: context)
      if flushedCount > 0 { encryptFlushedWrites(context: context) }
    case .fail(let error):
      handshakeTimeout?.cancel()
      // Send the alert that tells the peer why, then close.
      sendOutput(context: context, promise: nil)
      fail(error, context: context)
    case .ignore:
      break
    }
  }

  /// Fails what waits to be written, reports `error` and closes.
  private func fail(_ error: TLSError, context: ChannelHandlerContext) {
    failPendingWrites(error)
    context.fireErrorCaught(error)
    context.close(promise: nil)
  }

  // MARK: - Data

  /// Decrypts everything that can be decrypted and passes it up as one buffer.
  private func decode(context: ChannelHandlerContext) {
    var plaintext = context.channel.allocator.buffer(capacity: 0)
    reading: while true {
      switch connection.read(into: &plaintext) {
      case .readSome:
        continue reading
      case .needMoreInput:
        break reading
      case .closeNotify:
        deliver(plaintext, context: context)
        plaintext.clear()
        peerSentCloseNotify(context: context)
        return
      case .failed(let error):
        deliver(plaintext, context: context)
        if case .fail(let error) = machine.decryptFailed(error) {
          sendOutput(context: context, promise: nil)
          fail(error, context: context)
        }
        return
      }
    }
    deliver(plaintext, context: context)
  }

  private func deliver(_ plaintext: ByteBuffer, context: ChannelHandlerContext) {
    guard plaintext.readableBytes > 0 else { return }
    deliveredSinceReadComplete = true
    context.fireChannelRead(wrapInboundOut(plaintext))
  }

  private func peerSentCloseNotify(context: ChannelHandlerContext) {
    guard machine.peerSentCloseNotify() == .answerAndClose else { return }
    if deliveredSinceReadComplete {
      deliveredSinceReadComplete = false
      context.fireChannelReadComplete()
    }
    failPendingWrites(ChannelError.outputClosed)
    _ = connection.shutdown()
    sendCloseNotifyThenClose(context: context, mode: .all, promise: nil)
  }

  private func encryptFlushedWrites(context: ChannelHandlerContext) {
    guard flushedCount > 0 else { return }
    let flushed = pendingWrites.prefix(flushedCount)
    pendingWrites.removeFirst(flushedCount)
    flushedCount = 0
    var promises: [EventLoopPromise<Void>] = []
    for write in flushed {
      if case .failed(let error) = connection.write(write.data) {
        write.promise?.fail(error)
        for promise in promises { promise.fail(error) }
        context.fireErrorCaught(error)
        context.close(promise: nil)
        return
      }
      if let promise = write.promise { promises.append(promise) }
    }
    sendOutput(context: context, promise: Self.combine(promises, on: context.eventLoop))
  }

  /// Writes and flushes whatever ciphertext OpenSSL has produced.
  private func sendOutput(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
    if let output = connection.takeOutput() {
      context.writeAndFlush(wrapOutboundOut(output), promise: promise)
    } else {
      promise?.succeed()
    }
  }

  private func sendCloseNotifyThenClose(
    context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?
  ) {
    let written = context.eventLoop.makePromise(of: Void.self)
    sendOutput(context: context, promise: written)
    written.futureResult.assumeIsolated().whenComplete { _ in
      context.close(mode: mode == .output ? .output : .all, promise: promise)
    }
  }

  private func failPendingWrites(_ error: any Error) {
    let writes = pendingWrites
    pendingWrites = []
    flushedCount = 0
    for write in writes { write.promise?.fail(error) }
  }

  private static func combine(
    _ promises: [EventLoopPromise<Void>], on loop: any EventLoop
  ) -> EventLoopPromise<Void>? {
    switch promises.count {
    case 0: return nil
    case 1: return promises[0]
    default:
      let combined = loop.makePromise(of: Void.self)
      combined.futureResult.whenComplete { result in
        for promise in promises { promise.completeWith(result) }
      }
      return combined
    }
  }
}

@available(*, unavailable)
extension TLSHandler: Sendable {}
