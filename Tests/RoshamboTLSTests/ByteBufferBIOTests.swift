import COpenSSL
import NIOCore
import Testing

@testable import RoshamboTLS

@Suite("TLS: the BIO over ByteBuffers")
struct ByteBufferBIOTests {
  @Test("OpenSSL reads what was received in order, across buffers, then is told to retry")
  func reads() throws {
    let bio = try ByteBufferBIO()
    defer { BIO_free(bio.bio) }
    bio.receive(ByteBuffer(bytes: [1, 2, 3]))
    bio.receive(ByteBuffer(bytes: [4, 5]))
    #expect(bio.pendingInbound == 5)
    #expect(BIO_ctrl_pending(bio.bio) == 5)
    var target = [UInt8](repeating: 0, count: 4)
    #expect(BIO_read(bio.bio, &target, 4) == 4)
    #expect(target == [1, 2, 3, 4])
    #expect(BIO_read(bio.bio, &target, 4) == 1)
    #expect(target[0] == 5)
    #expect(bio.pendingInbound == 0)
    // Nothing waiting: not end of file, but "try again" (what a memory BIO with
    // eof_return -1 said).
    #expect(BIO_read(bio.bio, &target, 4) <= 0)
    #expect(shim_BIO_should_retry(bio.bio) != 0)
    bio.receive(ByteBuffer(bytes: [6]))
    #expect(BIO_read(bio.bio, &target, 4) == 1)
    #expect(shim_BIO_should_retry(bio.bio) == 0)
  }

  @Test("what OpenSSL writes is taken once, in order")
  func writes() throws {
    let bio = try ByteBufferBIO()
    defer { BIO_free(bio.bio) }
    #expect(bio.takeOutbound() == nil)
    #expect(BIO_write(bio.bio, [UInt8]([9, 8]), 2) == 2)
    #expect(BIO_write(bio.bio, [UInt8]([7]), 1) == 1)
    #expect(BIO_ctrl_wpending(bio.bio) == 3)
    #expect(bio.takeOutbound() == ByteBuffer(bytes: [9, 8, 7]))
    #expect(bio.takeOutbound() == nil)
    #expect(BIO_ctrl_wpending(bio.bio) == 0)
  }
}
