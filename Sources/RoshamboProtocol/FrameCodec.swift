import NIOCore

/// Splits a byte stream into frames: a 4-byte big-endian length `L` (1 ≤ L ≤ 65536),
/// then `L` bytes of payload.
///
/// Invariant: never buffers more than one frame's worth of bytes beyond its header; a
/// length of 0 or over the limit fails at once with `bad_frame`, before any payload.
public struct FrameDecoder: ByteToMessageDecoder {
  public typealias InboundOut = ByteBuffer

  public let maxLength: Int

  public init(maxLength: Int = WireProtocol.maxFrameLength) {
    self.maxLength = maxLength
  }

  public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws
    -> DecodingState
  {
    guard let frame = try nextFrame(from: &buffer) else { return .needMoreData }
    context.fireChannelRead(wrapInboundOut(frame))
    return .continue
  }

  /// Takes the next whole frame's payload from the front of `buffer`, or nil (nothing
  /// taken) until one has arrived. Pure: the decoder's whole rule, usable without a
  /// channel (the fuzz targets cut streams with it).
  public func nextFrame(from buffer: inout ByteBuffer) throws(ProtocolError) -> ByteBuffer? {
    guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else {
      return nil
    }
    guard length >= 1 else { throw ProtocolError.badFrame("A frame of length 0 is not allowed.") }
    guard length <= maxLength else {
      throw ProtocolError.badFrame("A frame of \(length) bytes is over the limit of \(maxLength).")
    }
    guard buffer.readableBytes >= 4 + Int(length) else { return nil }
    buffer.moveReaderIndex(forwardBy: 4)
    return buffer.readSlice(length: Int(length))!
  }

  public mutating func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws -> DecodingState {
    while try decode(context: context, buffer: &buffer) == .continue {}
    return .needMoreData
  }
}

extension ByteBuffer {
  /// A whole frame (length prefix and payload) for `payload`.
  public static func frame(_ payload: [UInt8]) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.reserveCapacity(4 + payload.count)
    buffer.writeInteger(UInt32(payload.count))
    buffer.writeBytes(payload)
    return buffer
  }
}
