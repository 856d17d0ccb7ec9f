import NIOCore
import NIOPosix
import RoshamboProtocol
import RoshamboTLS

/// What happens on a connection to the server.
public enum ConnectionEvent: Sendable {
  case message(ServerMessage)
  /// The connection closed; the error says why, when it was not a clean close.
  case closed((any Error)?)
}

/// One TLS connection to a Roshambo server over the ``ClientPipeline``: send
/// `ClientMessage`s, read `ConnectionEvent`s in order (what sessions, bots and the
/// player's screen use).
///
/// Invariant: `events` ends with exactly one `.closed`, and holds a bounded number of
/// events however fast the server sends (``ServerEvents``).
public final class ServerConnection: Sendable {
  public let events: ServerEvents
  private let channel: any Channel

  private init(channel: any Channel, events: ServerEvents) {
    self.channel = channel
    self.events = events
  }

  /// Connects and completes the TLS handshake (its failure is thrown, with the
  /// `TLSError` that says which check failed).
  public static func connect(
    host: String, port: Int, tls: TLSContext,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> ServerConnection {
    let events = ServerEvents()
    let loop = group.next()
    let handshake = loop.makePromise(of: Void.self)
    let bootstrap = ClientPipeline.bootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try ClientPipeline.install(
            on: channel, tls: tls, serverName: host,
            last: EventHandler(events: events, handshake: handshake))
        }
      }
    let channel: any Channel
    do {
      channel = try await bootstrap.connect(host: host, port: port).get()
    } catch {
      handshake.fail(error)  // no channel, so no handler will ever complete it
      events.finish(error)
      throw error
    }
    do {
      try await handshake.futureResult.get()
    } catch {
      try? await channel.close()
      throw error
    }
    return ServerConnection(channel: channel, events: events)
  }

  public func send(_ message: ClientMessage) {
    channel.writeAndFlush(ClientPipeline.frame(message), promise: nil)
  }

  /// Closes the connection (TLS close_notify first).
  public func close() async {
    try? await channel.close()
  }
}

/// Turns frames into events, and reports the handshake.
final class EventHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private let events: ServerEvents
  private let handshake: EventLoopPromise<Void>
  private var failure: (any Error)?

  init(events: ServerEvents, handshake: EventLoopPromise<Void>) {
    self.events = events
    self.handshake = handshake
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is TLSHandshakeCompleted { handshake.succeed() }
    context.fireUserInboundEventTriggered(event)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    do {
      let message = try frame.withUnsafeReadableBytes { try ServerMessage.decode($0) }
      guard events.yield(message) else {
        failure = ProtocolViolation(
          message: "more than \(ServerEvents.limit) messages arrived faster than this client "
            + "could read them")
        context.close(promise: nil)
        return
      }
    } catch {
      failure = ProtocolViolation(message: "a message this client cannot read: \(error)")
      context.close(promise: nil)
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if failure == nil { failure = error }
    handshake.fail(error)
    context.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    handshake.fail(failure ?? ChannelError.eof)
    events.finish(failure)
  }
}
