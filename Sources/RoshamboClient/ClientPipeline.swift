import NIOCore
import NIOPosix
import RoshamboProtocol
import RoshamboTLS

/// The one pipeline of a client connection to a Roshambo server, defined once for every
/// client in the project (``ServerConnection``, the load generator's bots, the tests'
/// protocol client, the benchmarks' probes): TLS that verifies the server as the context
/// says, then frames. What comes after is each caller's own last handler, which reads
/// whole frames and writes ``frame(_:)``s.
///
/// Invariant: nothing reaches the last handler before the TLS handshake has verified the
/// server, and nothing it reads is longer than the protocol's frame limit.
public enum ClientPipeline {
  /// A bootstrap with the socket options every client uses (no Nagle delay on small
  /// frames; 10 s to connect).
  public static func bootstrap(group: any EventLoopGroup) -> ClientBootstrap {
    ClientBootstrap(group: group)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(10))
  }

  /// Adds TLS (`serverName` for SNI and the name check), the frame decoder, and `last`.
  public static func install(
    on channel: any Channel, tls: TLSContext, serverName: String, last: any ChannelHandler
  ) throws {
    try channel.pipeline.syncOperations.addHandlers([
      try TLSHandler(context: tls, serverName: serverName),
      ByteToMessageHandler(FrameDecoder()),
      last,
    ])
  }

  /// `message` as the frame to write.
  public static func frame(_ message: ClientMessage) -> ByteBuffer {
    ByteBuffer.frame(message.encoded())
  }
}
