import Foundation
import NIOCore
import NIOEmbedded
import RoshamboTLS

/// Raw bytes from a peer into a `TLSHandler` on an `EmbeddedChannel`, as the server or
/// as the client, in chunks whose size the input's first byte chooses (so record and
/// message boundaries fall everywhere).
///
/// Invariants checked: the handler never hands up more plaintext than it was given
/// bytes; what it writes back stays bounded; every error it raises is a `TLSError`, and
/// after one the connection is closed.
public struct TLSFeed {
  public enum Role { case server, client }

  let role: Role
  let context: TLSContext

  /// Certificates made once per run, in a temporary folder.
  public init(role: Role) throws {
    self.role = role
    let folder = NSTemporaryDirectory() + "roshambo-fuzz-tls-\(getpid())"
    let files = try DevelopmentCertificates.create(in: folder, hosts: ["127.0.0.1"])
    switch role {
    case .server:
      // As the game's server runs: asking every client for its identity, taking any.
      var configuration = TLSConfiguration.server(
        certificateChainFile: files.serverCertificate, privateKeyFile: files.serverKey)
      configuration.acceptsClientIdentities = true
      context = try TLSContext(configuration)
    case .client:
      context = try TLSContext(.client(trust: .caFile(files.caCertificate)))
    }
  }

  /// The most a handler may write in answer to any input: a handshake flight and alerts.
  static let outboundLimit = 64 * 1024

  public func run(_ input: UnsafeRawBufferPointer) {
    guard let first = input.first else { return }
    let chunk = 1 + Int(first) * 67
    let channel = EmbeddedChannel()
    let top = Top()
    do {
      try channel.pipeline.syncOperations.addHandlers([
        try TLSHandler(context: context, serverName: role == .client ? "127.0.0.1" : nil), top,
      ])
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    } catch {
      fatalError("the harness could not start: \(error)")
    }
    var written = 0
    func drain() {
      while let out = try? channel.readOutbound(as: ByteBuffer.self) {
        written += out.readableBytes
      }
    }
    drain()
    var offset = 1
    while offset < input.count, channel.isActive {
      let end = min(input.count, offset + chunk)
      _ = try? channel.writeInbound(ByteBuffer(bytes: input[offset..<end]))
      offset = end
      drain()
    }
    require(top.plaintext <= input.count, "\(top.plaintext) bytes of plaintext from \(input.count)")
    require(written <= Self.outboundLimit, "\(written) bytes written back")
    for error in top.errors {
      require(error is TLSError, "an error that is not a TLSError: \(error)")
    }
    if !top.errors.isEmpty { require(!channel.isActive, "still open after \(top.errors)") }
    _ = try? channel.finish()
    // A close from inside the pipeline leaves work queued on the embedded loop (which runs
    // only when told to); left there it keeps the channel alive, and the run would grow
    // by ~40 KB an input until libFuzzer stops it for memory.
    channel.embeddedEventLoop.run()
  }

  /// Records what reaches the top of the pipeline.
  final class Top: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    var plaintext = 0
    var errors: [any Error] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      plaintext += unwrapInboundIn(data).readableBytes
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      errors.append(error)
    }
  }
}
