import COpenSSL

/// A TLS failure: which check or step failed, in words a player can act on, with
/// OpenSSL's own reason strings attached for the log.
///
/// Invariant: `description` always says what failed and what to do about it.
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
  /// What failed and what to do.
  public let message: String
  /// OpenSSL's reason strings, oldest first, when OpenSSL reported any.
  public let reasons: [String]

  public init(_ kind: Kind, _ message: String, reasons: [String] = []) {
    self.kind = kind
    self.message = message
    self.reasons = reasons
  }

  public var description: String {
    reasons.isEmpty ? message : "\(message) (OpenSSL: \(reasons.joined(separator: "; ")))"
  }

  /// Takes every error off this thread's OpenSSL error queue, as reason strings.
  static func drainErrorQueue() -> [String] {
    var reasons: [String] = []
    while true {
      let code = ERR_get_error()
      if code == 0 { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      reasons.append(
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return reasons
  }

  /// A failure of a configuration call, with the error queue's reasons.
  static func configuration(_ message: String) -> TLSError {
    TLSError(.configuration, message, reasons: drainErrorQueue())
  }

  /// Classifies a failed handshake from the verification result and OpenSSL's reasons.
  static func handshakeFailure(
    verifyResult: Int, reasons: [String], role: TLSRole, peerName: String?, caFile: String?
  ) -> TLSError {
    let peer = role == .client ? "the server" : "the client"
    let trustHint =
      role == .client
      ? "copy ca.pem from the server machine\(caFile.map { " (you used \($0))" } ?? "") or use --pin with the fingerprint the server printed"
      : "give the client a certificate signed by the CA this server trusts"
    switch Int32(verifyResult) {
    case X509_V_OK:
      break
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
      X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
      X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      let signer = caFile.map { "signed by \($0)" } ?? "signed by a CA this side trusts"
      return TLSError(
        .untrustedIssuer, "untrusted issuer: \(peer)'s certificate is not \(signer); \(trustHint).",
        reasons: reasons)
    case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
      let name = peerName ?? "the address you used"
      return TLSError(
        .nameMismatch,
        "name mismatch: \(peer)'s certificate is not valid for \(name); connect with a name or "
          + "address the certificate lists, or make a new certificate with "
          + "scripts/gen-certs.sh --host \(name).",
        reasons: reasons)
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return TLSError(
        .expired,
        "expired: \(peer)'s certificate has expired; make a new one with scripts/gen-certs.sh.",
        reasons: reasons)
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return TLSError(
        .notYetValid,
        "not yet valid: \(peer)'s certificate starts in the future; check both machines' clocks.",
        reasons: reasons)
    default:
      return TLSError(
        .protocolFailure,
        "certificate check failed: \(String(cString: X509_verify_cert_error_string(verifyResult))).",
        reasons: reasons)
    }
    let text = reasons.joined(separator: " ").lowercased()
    if text.contains("unsupported protocol") || text.contains("protocol version")
      || text.contains("no protocols available") || text.contains("version too low")
    {
      return TLSError(
        .protocolVersion,
        "wrong protocol version: \(peer) does not speak TLS 1.3 (or the TLS version this side "
          + "allows); upgrade it, or start the server with --allow-tls12.",
        reasons: reasons)
    }
    if text.contains("wrong version number") || text.contains("http request")
      || text.contains("packet length too long") || text.contains("record layer failure")
      || text.contains("unexpected message") && role == .server
    {
      return TLSError(
        .notTLS,
        "not TLS: \(peer) did not speak TLS; check the port and that the other side uses TLS.",
        reasons: reasons)
    }
    if text.contains("peer did not return a certificate") || text.contains("certificate required") {
      return TLSError(
        .noPeerCertificate,
        "no certificate: \(peer) sent no certificate but this side requires one (mutual TLS); "
          + "\(trustHint).",
        reasons: reasons)
    }
    if text.contains("unknown ca") || text.contains("bad certificate")
      || text.contains("certificate unknown")
    {
      return TLSError(
        .untrustedIssuer,
        "\(peer) rejected this side's certificate; make sure both sides use certificates from "
          + "the same CA.",
        reasons: reasons)
    }
    return TLSError(.protocolFailure, "TLS handshake with \(peer) failed.", reasons: reasons)
  }
}
