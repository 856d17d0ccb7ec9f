import COpenSSL

/// A TLS failure: which check or step failed, in words a person can act on, with
/// OpenSSL's own errors attached for the log. Failures are classified by OpenSSL's
/// library and reason codes and the certificate check's result, never by matching
/// text. The message says what failed; advice that names a program's flags or scripts
/// is the program's to add (switch on ``kind``).
///
/// Invariant: `message` always says what failed, in terms of the certificates and
/// protocol versions involved, without naming any command-line flag.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, as a case a program can switch on.
  public enum Kind: Sendable, Equatable {
    /// The peer's certificate is not signed by a trusted CA.
    case untrustedIssuer
    /// The certificate does not name the host or IP address we connected to.
    case nameMismatch
    /// The certificate's SHA-256 fingerprint is not the pinned one.
    case pinMismatch(expected: String, actual: String)
    case expired
    case notYetValid
    /// The peer offered no certificate when one was required.
    case noPeerCertificate
    /// No TLS version both sides accept (for example TLS 1.2 against a 1.3-only side).
    case protocolVersion
    /// The bytes from the peer are not TLS at all.
    case notTLS
    /// The peer closed the connection without sending close_notify.
    case truncated
    /// TLS setup did not finish in time.
    case handshakeTimeout
    /// Certificates, keys or settings could not be loaded.
    case configuration
    /// Any other failure during the handshake or on an established connection.
    case protocolFailure
  }

  public let kind: Kind
  /// What failed.
  public let message: String
  /// OpenSSL's errors, oldest first, when OpenSSL reported any.
  public let reasons: [OpenSSLReason]

  public init(_ kind: Kind, _ message: String, reasons: [OpenSSLReason] = []) {
    self.kind = kind
    self.message = message
    self.reasons = reasons
  }

  public var description: String {
    reasons.isEmpty
      ? message : "\(message) (OpenSSL: \(reasons.map(\.text).joined(separator: "; ")))"
  }

  /// One error from OpenSSL's error queue: the library and reason codes a program can
  /// compare with OpenSSL's constants (`ERR_LIB_SSL`, `SSL_R_…`), and its text for logs.
  public struct OpenSSLReason: Sendable, Equatable {
    public let library: Int32
    public let reason: Int32
    public let text: String

    /// Whether this is `reason` of OpenSSL's `library`.
    func `is`(_ library: Int32, _ reason: Int32) -> Bool {
      self.library == library && self.reason == reason
    }
  }

  /// Takes every error off this thread's OpenSSL error queue.
  static func drainErrorQueue() -> [OpenSSLReason] {
    var reasons: [OpenSSLReason] = []
    while true {
      let code = ERR_get_error()
      if code == 0 { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      reasons.append(
        OpenSSLReason(
          library: ERR_GET_LIB(code), reason: ERR_GET_REASON(code),
          text: String(
            decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }
    return reasons
  }

  /// A failure of a configuration call, with the error queue's reasons.
  static func configuration(_ message: String) -> TLSError {
    TLSError(.configuration, message, reasons: drainErrorQueue())
  }

  /// OpenSSL's `ERR_LIB_SSL` reasons that say which failure a handshake met.
  private static let versionReasons: Set<Int32> = [
    SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_NO_PROTOCOLS_AVAILABLE,
    SSL_R_VERSION_TOO_LOW,
  ]
  private static let notTLSReasons: Set<Int32> = [
    SSL_R_WRONG_VERSION_NUMBER, SSL_R_HTTP_REQUEST, SSL_R_HTTPS_PROXY_REQUEST,
    SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_UNKNOWN_PROTOCOL,
  ]
  private static let noCertificateReasons: Set<Int32> = [
    SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE, SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED,
  ]
  private static let rejectedReasons: Set<Int32> = [
    SSL_R_TLSV1_ALERT_UNKNOWN_CA, SSL_R_SSLV3_ALERT_BAD_CERTIFICATE,
    SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN,
  ]

  /// Classifies a failed handshake from the certificate check's result and OpenSSL's
  /// reason codes.
  static func handshakeFailure(
    verifyResult: Int, reasons: [OpenSSLReason], role: TLSRole, peerName: String?,
    caFile: String?
  ) -> TLSError {
    let peer = role == .client ? "the server" : "the client"
    switch Int32(verifyResult) {
    case X509_V_OK:
      break
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
      X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
      X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      let signer = caFile.map { "signed by the CA in \($0)" } ?? "signed by a CA this side trusts"
      return TLSError(
        .untrustedIssuer, "untrusted issuer: \(peer)'s certificate is not \(signer).",
        reasons: reasons)
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
      let name = peerName ?? "the address used"
      return TLSError(
        .nameMismatch, "name mismatch: \(peer)'s certificate is not valid for \(name).",
        reasons: reasons)
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return TLSError(.expired, "expired: \(peer)'s certificate has expired.", reasons: reasons)
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return TLSError(
        .notYetValid, "not yet valid: \(peer)'s certificate starts in the future.",
        reasons: reasons)
    default:
      return TLSError(
        .protocolFailure,
        "certificate check failed: \(String(cString: X509_verify_cert_error_string(verifyResult))).",
        reasons: reasons)
    }
    let ssl = reasons.filter { $0.library == ERR_LIB_SSL }.map(\.reason)
    if ssl.contains(where: versionReasons.contains) {
      return TLSError(
        .protocolVersion,
        "wrong protocol version: \(peer) and this side have no TLS version in common (this "
          + "side may require TLS 1.3).",
        reasons: reasons)
    }
    if ssl.contains(where: notTLSReasons.contains)
      || (role == .server && ssl.contains(SSL_R_UNEXPECTED_MESSAGE))
    {
      return TLSError(.notTLS, "not TLS: \(peer) did not speak TLS.", reasons: reasons)
    }
    if ssl.contains(where: noCertificateReasons.contains) {
      return TLSError(
        .noPeerCertificate,
        "no certificate: \(peer) sent no certificate but this side requires one (mutual TLS).",
        reasons: reasons)
    }
    if ssl.contains(where: rejectedReasons.contains) {
      return TLSError(
        .untrustedIssuer,
        "\(peer) rejected this side's certificate: it does not trust the CA that signed it.",
        reasons: reasons)
    }
    return TLSError(.protocolFailure, "TLS handshake with \(peer) failed.", reasons: reasons)
  }
}
