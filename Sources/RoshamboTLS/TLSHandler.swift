import NIOCore

/// Fired inbound once the handshake has completed and the peer has been verified.
public struct TLSHandshakeCompleted: Sendable, Equatable {
  /// "TLSv1.3" or "TLSv1.2".
  public var protocolVersion: String
  public var cipherSuite: String?
  /// The SHA-256 fingerprint of the peer's certificate, if it sent one.
  public var peerFingerprint: String?
}

/// A channel handler that runs TLS over the system's OpenSSL: ciphertext below,
/// plaintext above, for a client or a server.
///
/// It handshakes as soon as the channel is active (closing the connection if that takes
/// longer than the configured timeout), buffers writes until the handshake is done and
/// encrypts everything written before a flush into one network write, answers and sends
/// close_notify, and reports a peer that closes without close_notify as
/// ``TLSError/Kind/truncated``. Invariant: no plaintext is passed up, and none written is
/// sent, before the peer has been verified.
public final class TLSHandler: ChannelDuplexHandler {
  public typealias InboundIn = ByteBuffer
  public typealias InboundOut = ByteBuffer
  public typealias OutboundIn = ByteBuffer
  public typealias OutboundOut = ByteBuffer

  private enum State {
    /// Added to a channel that is not active yet.
    case idle
    /// The handshake is under way; the task closes the connection if it takes too long.
    case handshaking(Scheduled<Void>?)
    /// Application data flows both ways.
    case active
    /// close_notify has been sent or received; the connection is going away.
    case closing
    case closed
  }

  private struct PendingWrite {
    var data: ByteBuffer
    var promise: EventLoopPromise<Void>?
  }

  private var state = State.idle
  private let connection: TLSConnection
  private var pendingWrites: [PendingWrite] = []
  /// How many of `pendingWrites` (from the front) a flush has asked to send.
  private var flushedCount = 0
  private var deliveredSinceReadComplete = false

  /// A handler for `context`'s role. A client passes the host name or IP address it
  /// expects the server's certificate to name.
  public init(context: TLSContext, serverName: String? = nil) throws {
    self.connection = try TLSConnection(context: context, serverName: serverName)
  }

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
    let previous = state
    state = .closed
    switch previous {
    case .handshaking(let timeout):
      timeout?.cancel()
      let error = TLSError(
        .protocolFailure,
        "the peer closed the connection during the TLS handshake; it may not trust this "
          + "side's certificate or TLS settings.")
      failPendingWrites(error)
      context.fireErrorCaught(error)
    case .active:
      let error = TLSError(
        .truncated,
        "truncated: the peer closed the connection without close_notify, so the last data may "
          + "be cut short; if it was not a crash, make the peer close TLS properly.")
      failPendingWrites(error)
      context.fireErrorCaught(error)
    case .idle, .closing, .closed:
      failPendingWrites(ChannelError.ioOnClosedChannel)
    }
    context.fireChannelInactive()
  }

  // MARK: - Inbound

  public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    connection.consume(unwrapInboundIn(data))
    switch state {
    case .handshaking:
      stepHandshake(context: context)
    case .active, .closing:
      decode(context: context)
    case .idle, .closed:
      break
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
    switch state {
    case .closing, .closed:
      promise?.fail(ChannelError.ioOnClosedChannel)
    case .idle, .handshaking, .active:
      pendingWrites.append(PendingWrite(data: unwrapOutboundIn(data), promise: promise))
    }
  }

  public func flush(context: ChannelHandlerContext) {
    flushedCount = pendingWrites.count
    if case .active = state {
      encryptFlushedWrites(context: context)
    }
  }

  public func close(
    context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?
  ) {
    switch (state, mode) {
    case (_, .input):
      context.close(mode: .input, promise: promise)
    case (.active, _):
      flushedCount = pendingWrites.count
      encryptFlushedWrites(context: context)
      state = .closing
      _ = connection.shutdown()
      sendCloseNotifyThenClose(context: context, mode: mode, promise: promise)
    case (.idle, _), (.handshaking, _):
      if case .handshaking(let timeout) = state { timeout?.cancel() }
      state = .closed
      failPendingWrites(ChannelError.ioOnClosedChannel)
      context.close(mode: mode, promise: promise)
    case (.closing, _), (.closed, _):
      context.close(mode: mode, promise: promise)
    }
  }

  // MARK: - Handshake

  private func startHandshake(context: ChannelHandlerContext) {
    guard case .idle = state else { return }
    let seconds = connection.context.configuration.handshakeTimeoutSeconds
    let timeout = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
      self.handshakeTimedOut(context: context, seconds: seconds)
    }
    state = .handshaking(timeout)
    stepHandshake(context: context)
  }

  private func stepHandshake(context: ChannelHandlerContext) {
    guard case .handshaking(let timeout) = state else { return }
    switch connection.handshake() {
    case .incomplete:
      sendOutput(context: context, promise: nil)
    case .complete:
      timeout?.cancel()
      state = .active
      sendOutput(context: context, promise: nil)
      context.fireUserInboundEventTriggered(
        TLSHandshakeCompleted(
          protocolVersion: connection.protocolVersion, cipherSuite: connection.cipherSuite,
          peerFingerprint: connection.peerFingerprint))
      // Data may have arrived with the peer's Finished; writes may be waiting.
      decode(context: context)
      if flushedCount > 0 { encryptFlushedWrites(context: context) }
    case .failed(let error):
      timeout?.cancel()
      state = .closed
      // Send the alert that tells the peer why, then close.
      sendOutput(context: context, promise: nil)
      failPendingWrites(error)
      context.fireErrorCaught(error)
      context.close(promise: nil)
    }
  }

  private func handshakeTimedOut(context: ChannelHandlerContext, seconds: Int64) {
    guard case .handshaking = state else { return }
    state = .closed
    let error = TLSError(
      .handshakeTimeout,
      "handshake timeout: TLS setup did not finish within \(seconds) s; check that the other "
        + "side speaks TLS on this port and that the network is not dropping packets.")
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
        state = .closed
        sendOutput(context: context, promise: nil)
        failPendingWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
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
    guard case .active = state else { return }
    state = .closing
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
    if let output = connection.takeOutput(allocator: context.channel.allocator) {
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
