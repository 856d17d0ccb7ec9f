import NIOCore
import NIOPosix
import RoshamboTLS

/// Learns the fingerprint of the certificate a server presents, for trust on first use:
/// a TLS handshake that checks nothing, then close_notify. Nothing is sent inside the
/// connection, so a server not yet trusted never sees a name, a room or a pick; the
/// player's real connection is made afterwards, pinned to the fingerprint they accepted.
///
/// Invariant: the fingerprint returned is the certificate's the handshake completed with.
public enum CertificateProbe {
  /// The SHA-256 fingerprint of the server's certificate. Throws what connecting or
  /// handshaking threw (for example `TLSError` with `.notTLS`).
  public static func fingerprint(
    host: String, port: Int,
    group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
  ) async throws -> String {
    let tls = try TLSContext(.client(trust: nil))
    let loop = group.next()
    let learned = loop.makePromise(of: String.self)
    let bootstrap = ClientPipeline.bootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandlers([
            try TLSHandler(context: tls, serverName: host), FingerprintReader(learned: learned),
          ])
        }
      }
    let channel: any Channel
    do {
      channel = try await bootstrap.connect(host: host, port: port).get()
    } catch {
      learned.fail(error)
      throw error
    }
    defer { channel.close(promise: nil) }
    return try await learned.futureResult.get()
  }

  private final class FingerprintReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let learned: EventLoopPromise<String>

    init(learned: EventLoopPromise<String>) { self.learned = learned }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
      if let completed = event as? TLSHandshakeCompleted {
        if let fingerprint = completed.peerFingerprint {
          learned.succeed(fingerprint)
        } else {
          learned.fail(TLSError(.noPeerCertificate, "the server sent no certificate"))
        }
        context.close(promise: nil)
      }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      learned.fail(error)
      context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
      learned.fail(ChannelError.eof)
    }
  }
}
