import COpenSSL
import NIOCore

/// The ciphertext between OpenSSL and the channel, as an OpenSSL BIO over `ByteBuffer`s:
/// OpenSSL reads records straight out of the buffer the socket filled, and writes them
/// straight into the buffer the channel will send. Two memory BIOs cost a copy and a
/// growing OpenSSL buffer each way (`BIO_write` in, `BIO_read` out).
///
/// Invariant: `inbound` holds exactly the ciphertext received and not yet read by
/// OpenSSL (nil once it is all read, so no receive buffer is held while idle), and
/// `outbound` exactly what OpenSSL wrote and the channel has not taken. Not `Sendable`:
/// it lives on its connection's event loop, as the `SSL` that calls it does.
final class ByteBufferBIO {
  private var inbound: ByteBuffer?
  private var outbound: ByteBuffer?
  private let allocator = ByteBufferAllocator()
  /// The BIO OpenSSL calls; it points at this object without retaining it (the
  /// connection owns both, and frees the BIO with its `SSL` before this goes).
  let bio: OpaquePointer

  init() throws {
    guard let method = Self.method, let bio = BIO_new(method) else {
      throw TLSError.configuration("could not create the TLS connection's buffers")
    }
    self.bio = bio
    BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
    BIO_set_init(bio, 1)
  }

  /// Ciphertext from the network, for OpenSSL to read.
  func receive(_ buffer: ByteBuffer) {
    guard buffer.readableBytes > 0 else { return }
    if inbound == nil {
      inbound = buffer
    } else {
      var more = buffer
      inbound!.writeBuffer(&more)
    }
  }

  /// Ciphertext received and not yet read by OpenSSL.
  var pendingInbound: Int { inbound?.readableBytes ?? 0 }

  /// What OpenSSL has written for the network, if anything.
  func takeOutbound() -> ByteBuffer? {
    defer { outbound = nil }
    return outbound
  }

  // MARK: - What OpenSSL calls

  private func read(into target: UnsafeMutableRawPointer, count: Int) -> Int? {
    guard var buffer = inbound, buffer.readableBytes > 0, count > 0 else { return nil }
    inbound = nil  // one reference while reading, so the read does not copy the buffer
    let taken = min(count, buffer.readableBytes)
    buffer.readWithUnsafeReadableBytes { bytes in
      target.copyMemory(from: bytes.baseAddress!, byteCount: taken)
      return taken
    }
    if buffer.readableBytes > 0 { inbound = buffer }
    return taken
  }

  private func write(_ source: UnsafeRawPointer, count: Int) {
    if outbound == nil {
      // A record and its header; a handshake flight grows it.
      outbound = allocator.buffer(capacity: max(count, 256))
    }
    outbound!.writeBytes(UnsafeRawBufferPointer(start: source, count: count))
  }

  private static func object(_ bio: OpaquePointer?) -> ByteBufferBIO? {
    guard let bio, let data = BIO_get_data(bio) else { return nil }
    return Unmanaged<ByteBufferBIO>.fromOpaque(data).takeUnretainedValue()
  }

  /// Built once: OpenSSL only reads a BIO_METHOD after it is set up.
  nonisolated(unsafe) private static let method: OpaquePointer? = {
    let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
    guard let method = BIO_meth_new(type, "roshambo ByteBuffer") else { return nil }
    _ = BIO_meth_set_read_ex(method) { bio, data, count, readBytes in
      guard let object = ByteBufferBIO.object(bio), let data else { return 0 }
      BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
      guard let taken = object.read(into: data, count: count) else {
        // Nothing received yet: "try again later", never end of file.
        BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY)
        readBytes?.pointee = 0
        return 0
      }
      readBytes?.pointee = taken
      return 1
    }
    _ = BIO_meth_set_write_ex(method) { bio, data, count, written in
      guard let object = ByteBufferBIO.object(bio), let data else { return 0 }
      object.write(data, count: count)
      written?.pointee = count
      return 1
    }
    _ = BIO_meth_set_ctrl(method) { bio, command, _, _ in
      switch command {
      case BIO_CTRL_FLUSH: return 1
      case BIO_CTRL_PENDING: return ByteBufferBIO.object(bio).map { $0.pendingInbound } ?? 0
      case BIO_CTRL_WPENDING:
        return ByteBufferBIO.object(bio).map { $0.outbound?.readableBytes ?? 0 } ?? 0
      default: return 0
      }
    }
    _ = BIO_meth_set_create(method) { _ in 1 }
    _ = BIO_meth_set_destroy(method) { bio in
      BIO_set_data(bio, nil)
      BIO_set_init(bio, 0)
      return 1
    }
    return method
  }()
}
