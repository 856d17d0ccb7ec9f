import NIOCore
import NIOEmbedded
import ProcessFixtures
import RoshamboProtocol
import Testing

@Suite("Frame codec", .cpuBound)
struct FrameCodecTests {
  func decoderChannel() throws -> EmbeddedChannel {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(FrameDecoder()))
    return channel
  }

  @Test("frames round-trip through encoder and decoder, split at every byte")
  func roundTrip() throws {
    let payloads = ["{\"type\":\"ping\",\"id\":1}", "x", String(repeating: "y", count: 65_536)]
    var wire = ByteBuffer()
    for payload in payloads { wire.writeImmutableBuffer(.frame(Array(payload.utf8))) }
    let channel = try decoderChannel()
    // Feed in small pieces so headers and payloads arrive split.
    while wire.readableBytes > 0 {
      try channel.writeInbound(wire.readSlice(length: min(7, wire.readableBytes))!)
    }
    for payload in payloads {
      #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == payload)
    }
    #expect(try channel.readInbound(as: ByteBuffer.self) == nil)

    #expect(Array(buffer: ByteBuffer.frame(Array("abc".utf8))) == [0, 0, 0, 3, 97, 98, 99])
  }

  @Test("a length of 0 is bad_frame")
  func zeroLength() throws {
    let channel = try decoderChannel()
    #expect {
      try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 0, 1]))
    } throws: {
      ($0 as? ProtocolError)?.code == .badFrame && ($0 as? ProtocolError)?.fatal == true
    }
  }

  @Test("a length over 65536 is bad_frame at once, before any payload")
  func overLimit() throws {
    let channel = try decoderChannel()
    #expect {
      try channel.writeInbound(ByteBuffer(bytes: [0, 1, 0, 1]))
    } throws: { error in
      (error as? ProtocolError)?.message.contains("65537 bytes is over the limit") == true
    }
  }

  @Test("a partial header or payload waits for more")
  func partial() throws {
    let channel = try decoderChannel()
    try channel.writeInbound(ByteBuffer(bytes: [0, 0]))
    try channel.writeInbound(ByteBuffer(bytes: [0, 2, 65]))
    #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
    try channel.writeInbound(ByteBuffer(bytes: [66]))
    #expect(try channel.readInbound(as: ByteBuffer.self).map { String(buffer: $0) } == "AB")
  }
}
