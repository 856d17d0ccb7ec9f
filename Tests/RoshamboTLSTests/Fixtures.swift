import Foundation
import NIOCore
import NIOEmbedded
import RoshamboTLS
import Testing

/// Certificates made once per test run in a temporary directory: the game's CA and
/// server certificate, a second unrelated CA, and a client certificate.
enum Fixtures {
  static let root: String = {
    let path = NSTemporaryDirectory() + "roshambo-tls-tests-\(getpid())"
    try? FileManager.default.removeItem(atPath: path)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  static let game: DevelopmentCertificates.Files = try! DevelopmentCertificates.create(
    in: root + "/game", hosts: ["localhost", "127.0.0.1", "::1"])

  static let stranger: DevelopmentCertificates.Files = try! DevelopmentCertificates.create(
    in: root + "/stranger", hosts: ["localhost", "127.0.0.1"])

  static let client: (certificate: String, key: String) =
    try! DevelopmentCertificates
    .issueClientCertificate(name: "player", files: game)

  static func serverContext(clientCA: String? = nil, allowTLS12: Bool = false) throws -> TLSContext
  {
    try TLSContext(
      .server(
        certificateChainFile: game.serverCertificate, privateKeyFile: game.serverKey,
        clientCAFile: clientCA, allowTLS12: allowTLS12))
  }

  static func clientContext(
    trust: ServerTrust? = .caFile(game.caCertificate), maximumVersion: TLSVersion = .tls13,
    certificate: (String, String)? = nil
  ) throws -> TLSContext {
    var configuration = TLSConfiguration.client(
      trust: trust, certificateChainFile: certificate?.0, privateKeyFile: certificate?.1,
      allowTLS12: maximumVersion == .tls12)
    configuration.maximumVersion = maximumVersion
    return try TLSContext(configuration)
  }
}

/// Records what reaches the top of a pipeline: plaintext, user events, errors.
final class Recorder: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer

  var received = ByteBuffer()
  var reads = 0
  var handshakes: [TLSHandshakeCompleted] = []
  var errors: [any Error] = []
  var inactive = false

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var buffer = unwrapInboundIn(data)
    reads += 1
    received.writeBuffer(&buffer)
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let done = event as? TLSHandshakeCompleted { handshakes.append(done) }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    errors.append(error)
  }

  func channelInactive(context: ChannelHandlerContext) {
    inactive = true
  }

  var tlsErrors: [TLSError] { errors.compactMap { $0 as? TLSError } }
  var text: String { String(buffer: received) }
}

/// A TLS client and server on two EmbeddedChannels, bytes pumped between them by hand.
final class EmbeddedPair {
  let client = EmbeddedChannel()
  let server = EmbeddedChannel()
  let clientRecorder = Recorder()
  let serverRecorder = Recorder()
  /// Every ciphertext buffer each side wrote, in order, for record-level checks.
  var clientWrites: [ByteBuffer] = []
  var serverWrites: [ByteBuffer] = []

  init(
    clientContext: TLSContext, serverContext: TLSContext, serverName: String? = "localhost"
  ) throws {
    try client.pipeline.syncOperations.addHandler(
      TLSHandler(context: clientContext, serverName: serverName))
    try client.pipeline.syncOperations.addHandler(clientRecorder)
    try server.pipeline.syncOperations.addHandler(TLSHandler(context: serverContext))
    try server.pipeline.syncOperations.addHandler(serverRecorder)
  }

  static func standard() throws -> EmbeddedPair {
    try EmbeddedPair(
      clientContext: Fixtures.clientContext(), serverContext: Fixtures.serverContext())
  }

  /// Connects both channels (which starts both handshakes) and pumps until quiet.
  func connect() throws {
    let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
    try server.connect(to: address).wait()
    try client.connect(to: address).wait()
    try pump()
  }

  /// Moves ciphertext both ways until neither side has anything more to send.
  func pump() throws {
    var moved = true
    while moved {
      moved = false
      while let bytes = try client.readOutbound(as: ByteBuffer.self) {
        clientWrites.append(bytes)
        moved = true
        if server.isActive { try server.writeInbound(bytes) }
      }
      while let bytes = try server.readOutbound(as: ByteBuffer.self) {
        serverWrites.append(bytes)
        moved = true
        if client.isActive { try client.writeInbound(bytes) }
      }
    }
  }

  func send(_ text: String, from channel: EmbeddedChannel) throws {
    try channel.writeAndFlush(ByteBuffer(string: text)).wait()
  }
}
