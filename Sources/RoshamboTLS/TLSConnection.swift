import COpenSSL
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// One OpenSSL `SSL` object running over a ``ByteBufferBIO``: ciphertext from the network
/// is handed to it, ciphertext for the network is taken from it, and nothing ever touches
/// a socket or blocks.
///
/// Invariant: every OpenSSL call starts with an empty error queue (`ERR_clear_error`), so
/// the reasons attached to a failure belong to that call. Not `Sendable`: a connection
/// lives on its channel's event loop.
final class TLSConnection {
  enum StepResult: Equatable {
    case complete
    case incomplete
    case failed(TLSError)
  }

  enum ReadResult {
    /// Some plaintext was appended; there may be more.
    case readSome
    /// Nothing more can be read until more ciphertext arrives.
    case needMoreInput
    /// The peer sent close_notify.
    case closeNotify
    case failed(TLSError)
  }

  private let ssl: OpaquePointer
  /// The ciphertext both ways; the `SSL` owns its BIO and frees it first.
  private let network: ByteBufferBIO
  let context: TLSContext
  /// The name or address the client expects the server to prove (nil for a server).
  let peerName: String?

  /// A connection for `context`'s role. A client names the server it expects: a host
  /// name is checked against DNS names and sent as SNI; an IP address is checked
  /// against IP subjectAltNames and not sent.
  init(context: TLSContext, serverName: String? = nil) throws {
    ERR_clear_error()
    guard let ssl = SSL_new(context.pointer) else {
      throw TLSError.configuration("could not create a TLS connection")
    }
    let network: ByteBufferBIO
    do {
      network = try ByteBufferBIO()
    } catch {
      SSL_free(ssl)
      throw error
    }
    // One BIO both ways: the SSL takes the one reference.
    SSL_set_bio(ssl, network.bio, network.bio)
    self.ssl = ssl
    self.network = network
    self.context = context
    self.peerName = serverName

    switch context.configuration.role {
    case .server:
      SSL_set_accept_state(ssl)
    case .client:
      SSL_set_connect_state(ssl)
      if let serverName {
        if IPAddress.isIPAddress(serverName) {
          if case .caFile = context.configuration.serverTrust {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
              throw TLSError.configuration("\(serverName) is not an IP address OpenSSL accepts")
            }
          }
        } else {
          guard shim_SSL_set_tlsext_host_name(ssl, serverName) == 1 else {
            throw TLSError.configuration("\(serverName) cannot be sent as a server name (SNI)")
          }
          if case .caFile = context.configuration.serverTrust {
            guard SSL_set1_host(ssl, serverName) == 1 else {
              throw TLSError.configuration("\(serverName) is not a host name OpenSSL accepts")
            }
          }
        }
      }
    }
  }

  deinit {
    SSL_free(ssl)  // frees the BIO while `network` is still alive
  }

  // MARK: - Ciphertext in and out

  /// Hands ciphertext from the network to OpenSSL (no copy unless some is still
  /// waiting).
  func consume(_ buffer: ByteBuffer) {
    network.receive(buffer)
  }

  /// The ciphertext OpenSSL has produced for the network, if any.
  func takeOutput() -> ByteBuffer? {
    network.takeOutbound()
  }

  // MARK: - TLS operations

  /// Whether OpenSSL has taken a handshake step (and so set up its handshake buffers).
  var handshakeStarted: Bool { SSL_in_before(ssl) == 0 }

  func handshake() -> StepResult {
    ERR_clear_error()
    let result = SSL_do_handshake(ssl)
    if result == 1 {
      if let mismatch = checkPin() { return .failed(mismatch) }
      return .complete
    }
    switch SSL_get_error(ssl, result) {
    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
      return .incomplete
    default:
      return .failed(handshakeError())
    }
  }

  /// Appends decrypted plaintext to `buffer`.
  ///
  /// Plaintext is never longer than the ciphertext it came from, so the room made in
  /// `buffer` is what is waiting (ciphertext not yet read, plaintext already decrypted),
  /// not a whole record's 16 KiB: a 100-byte message costs one small allocation, not a
  /// 16 KiB one grown to 32 KiB. With nothing waiting, OpenSSL is not asked at all.
  func read(into buffer: inout ByteBuffer) -> ReadResult {
    let waiting = network.pendingInbound + Int(SSL_pending(ssl))
    guard waiting > 0 || SSL_has_pending(ssl) == 1 else { return .needMoreInput }
    ERR_clear_error()
    var count = 0
    let room = min(max(waiting, 256), 65_536)
    buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { target in
      var read = 0
      let result = SSL_read_ex(ssl, target.baseAddress, target.count, &read)
      count = result == 1 ? read : 0
      return count
    }
    if count > 0 { return .readSome }
    switch SSL_get_error(ssl, 0) {
    case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
      return .needMoreInput
    case SSL_ERROR_ZERO_RETURN:
      return .closeNotify
    default:
      return .failed(
        TLSError(
          .protocolFailure, "reading from the TLS connection failed.",
          reasons: TLSError.drainErrorQueue()))
    }
  }

  /// Encrypts all of `buffer` (a memory BIO never pushes back, so a write is whole).
  func write(_ buffer: ByteBuffer) -> StepResult {
    guard buffer.readableBytes > 0 else { return .complete }
    ERR_clear_error()
    return buffer.withUnsafeReadableBytes { bytes in
      var written = 0
      if SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written) == 1, written == bytes.count {
        return .complete
      }
      return .failed(
        TLSError(
          .protocolFailure, "encrypting for the TLS connection failed.",
          reasons: TLSError.drainErrorQueue()))
    }
  }

  /// Sends close_notify. Complete once the peer's close_notify has been seen too.
  func shutdown() -> StepResult {
    ERR_clear_error()
    let result = SSL_shutdown(ssl)
    switch result {
    case 1: return .complete
    case 0: return .incomplete
    default:
      switch SSL_get_error(ssl, result) {
      case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .incomplete
      default:
        return .failed(
          TLSError(
            .protocolFailure, "closing the TLS connection failed.",
            reasons: TLSError.drainErrorQueue()))
      }
    }
  }

  // MARK: - What was negotiated

  /// "TLSv1.3" or "TLSv1.2".
  var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

  /// The cipher suite's standard name.
  var cipherSuite: String? {
    guard let cipher = SSL_get_current_cipher(ssl) else { return nil }
    return String(cString: SSL_CIPHER_standard_name(cipher))
  }

  /// The SHA-256 fingerprint of the peer's certificate, if it sent one.
  var peerFingerprint: String? {
    guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
    defer { X509_free(certificate) }
    return Fingerprint.sha256(of: certificate)
  }

  var peerKey: String? {
    guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
    defer { X509_free(certificate) }
    return Fingerprint.publicKeySHA256(of: certificate)
  }

  private func checkPin() -> TLSError? {
    guard let expected = context.pinnedFingerprint else { return nil }
    let actual = peerFingerprint ?? "(no certificate)"
    guard actual != expected else { return nil }
    return TLSError(
      .pinMismatch(expected: expected, actual: actual),
      "pin mismatch: the server's certificate has SHA-256 fingerprint \(actual), but the "
        + "pinned one is \(expected); this may be a different machine.")
  }

  private func handshakeError() -> TLSError {
    TLSError.handshakeFailure(
      verifyResult: Int(SSL_get_verify_result(ssl)), reasons: TLSError.drainErrorQueue(),
      role: context.configuration.role, peerName: peerName,
      caFile: {
        if case .caFile(let path) = context.configuration.serverTrust { return path }
        return nil
      }())
  }
}

/// Telling IP addresses from host names.
enum IPAddress {
  static func isIPAddress(_ text: String) -> Bool {
    var v4 = in_addr()
    var v6 = in6_addr()
    return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
  }
}
