import RoshamboTLS

extension ServerOptions {
  /// What the player can do about a failed TLS connection, in this program's flags (the
  /// TLS layer says what failed; only the program knows its options).
  func advice(for error: TLSError, host: String) -> String {
    switch error.kind {
    case .untrustedIssuer:
      "Copy ca.pem from the server machine and use --ca ca.pem"
        + (ca.map { " (you used \($0))" } ?? "")
        + ", or use --pin with the fingerprint the server printed."
    case .nameMismatch:
      "Connect with a name or address the certificate lists, or make a new certificate on the "
        + "server with scripts/gen-certs.sh --host \(host)."
    case .pinMismatch:
      "If the server made a new certificate, use the fingerprint it prints now with --pin; "
        + "otherwise do not connect."
    case .expired:
      "Make a new certificate on the server with scripts/gen-certs.sh."
    case .notYetValid:
      "Check both machines' clocks."
    case .protocolVersion:
      "Upgrade the server, or ask its host to start it with --allow-tls12."
    case .notTLS:
      "Check --host and --port: what answers there does not speak TLS."
    case .noPeerCertificate, .configuration:
      "Check the certificate files given to this program."
    case .truncated, .handshakeTimeout, .protocolFailure:
      "Check that roshambo-server runs there and try again."
    }
  }
}
