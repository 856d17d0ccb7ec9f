import NIOCore
import NIOEmbedded
import Testing

@testable import RoshamboTLS

@Suite("TLS handler on EmbeddedChannel")
struct TLSHandlerTests {
  @Test("a client and a server complete a TLS 1.3 handshake and verify the server")
  func handshake() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    #expect(pair.clientRecorder.handshakes.count == 1)
    #expect(pair.serverRecorder.handshakes.count == 1)
    let done = try #require(pair.clientRecorder.handshakes.first)
    #expect(done.protocolVersion == "TLSv1.3")
    #expect(
      done.peerFingerprint == (try Fingerprint.sha256(ofPEMFile: Fixtures.game.serverCertificate)))
    #expect(pair.clientRecorder.errors.isEmpty && pair.serverRecorder.errors.isEmpty)
  }

  @Test("a server sets up no handshake until the ClientHello arrives, then completes it")
  func serverWaitsForClientHello() throws {
    let pair = try EmbeddedPair.standard()
    let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
    try pair.server.connect(to: address).wait()
    let server = try pair.server.pipeline.syncOperations.handler(type: TLSHandler.self)
    #expect(!server.handshakeStarted)
    #expect(try pair.server.readOutbound(as: ByteBuffer.self) == nil)
    try pair.client.connect(to: address).wait()
    let client = try pair.client.pipeline.syncOperations.handler(type: TLSHandler.self)
    #expect(client.handshakeStarted)
    try pair.pump()
    #expect(server.handshakeStarted)
    #expect(pair.serverRecorder.handshakes.count == 1)
    #expect(pair.clientRecorder.handshakes.count == 1)
    #expect(pair.clientRecorder.errors.isEmpty && pair.serverRecorder.errors.isEmpty)
  }

  @Test("data flows both ways")
  func dataBothWays() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    try pair.send("hello server", from: pair.client)
    try pair.pump()
    try pair.send("hello client", from: pair.server)
    try pair.pump()
    #expect(pair.serverRecorder.text == "hello server")
    #expect(pair.clientRecorder.text == "hello client")
  }

  @Test("writes before the handshake completes wait for it, then go out")
  func earlyWrite() throws {
    let pair = try EmbeddedPair.standard()
    let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
    try pair.server.connect(to: address).wait()
    try pair.client.connect(to: address).wait()
    let written = pair.client.writeAndFlush(ByteBuffer(string: "early"))
    try pair.pump()
    try written.wait()
    #expect(pair.serverRecorder.text == "early")
  }

  @Test("a 1 MiB write arrives intact")
  func largeWrite() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    try pair.client.writeAndFlush(ByteBuffer(bytes: bytes)).wait()
    try pair.pump()
    #expect(pair.serverRecorder.received.readableBytes == bytes.count)
    #expect(Array(buffer: pair.serverRecorder.received) == bytes)
  }

  @Test("many small writes are encrypted together and leave as one network write")
  func manySmallWrites() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    pair.clientWrites.removeAll()
    var futures: [EventLoopFuture<Void>] = []
    for i in 0..<200 {
      futures.append(pair.client.write(ByteBuffer(string: "m\(i);")))
    }
    pair.client.flush()
    try pair.pump()
    #expect(pair.clientWrites.count == 1)
    for future in futures { try future.wait() }
    #expect(pair.serverRecorder.text == (0..<200).map { "m\($0);" }.joined())
  }

  @Test("close sends close_notify; the peer answers and both close cleanly")
  func closeNotify() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    try pair.send("bye", from: pair.client)
    let closed = pair.client.close()
    try pair.pump()
    try closed.wait()
    #expect(pair.serverRecorder.text == "bye")
    #expect(!pair.server.isActive)
    #expect(pair.serverRecorder.inactive)
    #expect(pair.serverRecorder.errors.isEmpty, "a clean close is not an error")
    #expect(pair.clientRecorder.errors.isEmpty)
  }

  @Test("a peer that goes away without close_notify is reported as truncation")
  func truncation() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    pair.server.pipeline.fireChannelInactive()
    #expect(pair.serverRecorder.tlsErrors.map(\.kind) == [.truncated])
    #expect(pair.serverRecorder.tlsErrors.first?.message.contains("close_notify") == true)
  }

  @Test("a server certificate from another CA is refused: untrusted issuer")
  func untrustedIssuer() throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(trust: .caFile(Fixtures.stranger.caCertificate)),
      serverContext: Fixtures.serverContext())
    try pair.connect()
    let error = try #require(pair.clientRecorder.tlsErrors.first)
    #expect(error.kind == .untrustedIssuer)
    #expect(error.message.contains("is not signed by the CA in"))
    // The server hears the client's alert, classified by OpenSSL's reason code.
    #expect(pair.serverRecorder.tlsErrors.first?.kind == .untrustedIssuer)
    #expect(pair.clientRecorder.handshakes.isEmpty)
    #expect(!pair.client.isActive)
    #expect(pair.serverRecorder.received.readableBytes == 0)
  }

  @Test(
    "a host name or IP address the certificate does not list is refused",
    arguments: ["example.org", "10.9.9.9"])
  func nameMismatch(name: String) throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(), serverContext: Fixtures.serverContext(),
      serverName: name)
    try pair.connect()
    let error = try #require(pair.clientRecorder.tlsErrors.first)
    #expect(error.kind == .nameMismatch)
    #expect(error.message.contains(name))
  }

  @Test("an IP address the certificate lists is accepted", arguments: ["127.0.0.1", "::1"])
  func ipAddressAccepted(address: String) throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(), serverContext: Fixtures.serverContext(),
      serverName: address)
    try pair.connect()
    #expect(pair.clientRecorder.handshakes.count == 1)
    #expect(pair.clientRecorder.errors.isEmpty)
  }

  @Test("a pinned fingerprint that matches is trusted without a CA")
  func pinMatch() throws {
    let fingerprint = try Fingerprint.sha256(ofPEMFile: Fixtures.game.serverCertificate)
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(
        trust: .pinnedSHA256(fingerprint.lowercased().replacingOccurrences(of: ":", with: ""))),
      serverContext: Fixtures.serverContext(), serverName: "10.1.2.3")
    try pair.connect()
    #expect(pair.clientRecorder.handshakes.count == 1)
    #expect(pair.clientRecorder.errors.isEmpty)
  }

  @Test("a pin mismatch shows both fingerprints and sends nothing")
  func pinMismatch() throws {
    let wrong = try Fingerprint.sha256(ofPEMFile: Fixtures.stranger.serverCertificate)
    let actual = try Fingerprint.sha256(ofPEMFile: Fixtures.game.serverCertificate)
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(trust: .pinnedSHA256(wrong)),
      serverContext: Fixtures.serverContext())
    let address = try SocketAddress(ipAddress: "127.0.0.1", port: 7443)
    try pair.server.connect(to: address).wait()
    try pair.client.connect(to: address).wait()
    let write = pair.client.writeAndFlush(ByteBuffer(string: "secret pick"))
    try pair.pump()
    let error = try #require(pair.clientRecorder.tlsErrors.first)
    #expect(error.kind == .pinMismatch(expected: wrong, actual: actual))
    #expect(error.message.contains(wrong) && error.message.contains(actual))
    #expect(throws: (any Error).self) { try write.wait() }
    #expect(pair.serverRecorder.received.readableBytes == 0)
  }

  @Test("TLS 1.2 is refused by default: wrong protocol version")
  func tls12Refused() throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(maximumVersion: .tls12),
      serverContext: Fixtures.serverContext())
    try pair.connect()
    #expect(pair.serverRecorder.tlsErrors.first?.kind == .protocolVersion)
    #expect(pair.serverRecorder.tlsErrors.first?.message.contains("TLS 1.3") == true)
    // Advice naming flags is the executables' to give, not the TLS layer's.
    #expect(pair.serverRecorder.tlsErrors.first?.message.contains("--") == false)
    #expect(pair.clientRecorder.handshakes.isEmpty)
  }

  @Test("TLS 1.2 works when the server allows it")
  func tls12Allowed() throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(maximumVersion: .tls12),
      serverContext: Fixtures.serverContext(allowTLS12: true))
    try pair.connect()
    #expect(pair.clientRecorder.handshakes.first?.protocolVersion == "TLSv1.2")
    #expect(pair.clientRecorder.handshakes.first?.cipherSuite?.contains("ECDHE") == true)
  }

  @Test("bytes that are not TLS are refused: not TLS")
  func notTLS() throws {
    let server = EmbeddedChannel()
    let recorder = Recorder()
    try server.pipeline.syncOperations.addHandler(TLSHandler(context: Fixtures.serverContext()))
    try server.pipeline.syncOperations.addHandler(recorder)
    try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    try server.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
    #expect(recorder.tlsErrors.first?.kind == .notTLS)
    #expect(!server.isActive)
  }

  @Test("a handshake that does not finish in time closes the connection")
  func handshakeTimeout() throws {
    let server = EmbeddedChannel()
    let recorder = Recorder()
    try server.pipeline.syncOperations.addHandler(TLSHandler(context: Fixtures.serverContext()))
    try server.pipeline.syncOperations.addHandler(recorder)
    try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    server.embeddedEventLoop.advanceTime(by: .seconds(9))
    #expect(server.isActive)
    server.embeddedEventLoop.advanceTime(by: .seconds(1))
    #expect(recorder.tlsErrors.first?.kind == .handshakeTimeout)
    #expect(!server.isActive)
  }

  @Test("picks of different lengths within one padding block leave as records of one size")
  func recordPadding() throws {
    let pair = try EmbeddedPair.standard()
    try pair.connect()
    var sizes: [Int] = []
    for weapon in ["rock", "paper", "scissors"] {
      pair.clientWrites.removeAll()
      let frame = #"{"type":"choose","round":1,"weapon":"\#(weapon)"}"#
      try pair.send(frame, from: pair.client)
      try pair.pump()
      #expect(pair.clientWrites.count == 1)
      sizes.append(pair.clientWrites.map(\.readableBytes).reduce(0, +))
    }
    #expect(Set(sizes).count == 1, "record sizes \(sizes) give the pick away")
    #expect(pair.serverRecorder.text.contains("scissors"))
  }

  @Test("mutual TLS: a client certificate from the game CA is accepted")
  func mutualTLS() throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(certificate: Fixtures.client),
      serverContext: Fixtures.serverContext(clientCA: Fixtures.game.caCertificate))
    try pair.connect()
    #expect(pair.serverRecorder.handshakes.first?.peerFingerprint != nil)
    #expect(pair.serverRecorder.errors.isEmpty)
  }

  @Test("mutual TLS: a client without a certificate is refused")
  func mutualTLSWithoutCertificate() throws {
    let pair = try EmbeddedPair(
      clientContext: Fixtures.clientContext(),
      serverContext: Fixtures.serverContext(clientCA: Fixtures.game.caCertificate))
    try pair.connect()
    #expect(pair.serverRecorder.tlsErrors.first?.kind == .noPeerCertificate)
    #expect(pair.serverRecorder.handshakes.isEmpty)
  }
}
