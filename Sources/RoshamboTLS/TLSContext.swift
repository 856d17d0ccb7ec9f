import COpenSSL

#if canImport(Glibc)
  import Glibc
#endif

/// One OpenSSL `SSL_CTX`, built once from a ``TLSConfiguration`` at start and shared by
/// every connection.
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in `init` and only read
/// afterwards (`SSL_new`), which OpenSSL makes safe from any thread.
public final class TLSContext: @unchecked Sendable {
  let pointer: OpaquePointer
  public let configuration: TLSConfiguration
  /// Things worth telling the operator that do not stop the context from working
  /// (for example a private key file that other users can read).
  public let warnings: [String]
  /// The normalised pin, when the client pins the server's certificate.
  let pinnedFingerprint: String?

  public init(_ configuration: TLSConfiguration) throws {
    ERR_clear_error()
    let method = configuration.role == .server ? TLS_server_method() : TLS_client_method()
    guard let ctx = SSL_CTX_new(method) else {
      throw TLSError.configuration("could not create an OpenSSL context")
    }
    self.pointer = ctx
    self.configuration = configuration
    var warnings: [String] = []
    var pin: String?

    let minimum = configuration.allowTLS12 ? TLS1_2_VERSION : TLS1_3_VERSION
    let maximum = configuration.maximumVersion == .tls12 ? TLS1_2_VERSION : TLS1_3_VERSION
    guard shim_SSL_CTX_set_min_proto_version(ctx, min(minimum, maximum)) == 1,
      shim_SSL_CTX_set_max_proto_version(ctx, maximum) == 1
    else { throw TLSError.configuration("could not restrict the TLS versions") }
    if configuration.allowTLS12 {
      // TLS 1.2: forward secrecy (ECDHE) and AEAD only.
      let suites =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
        + "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
        + "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
      guard SSL_CTX_set_cipher_list(ctx, suites) == 1 else {
        throw TLSError.configuration("could not set the TLS 1.2 cipher suites")
      }
    }
    guard shim_SSL_CTX_set1_groups_list(ctx, "X25519:P-256:P-384") == 1 else {
      throw TLSError.configuration("could not set the key exchange groups")
    }
    SSL_CTX_set_options(
      ctx,
      shim_SSL_OP_NO_COMPRESSION() | shim_SSL_OP_NO_RENEGOTIATION() | shim_SSL_OP_NO_TICKET()
        | shim_SSL_OP_CIPHER_SERVER_PREFERENCE())
    _ = shim_SSL_CTX_set_mode(ctx, Int(SSL_MODE_RELEASE_BUFFERS))
    _ = shim_SSL_CTX_set_session_cache_mode(ctx, Int(SSL_SESS_CACHE_OFF))
    _ = SSL_CTX_set_num_tickets(ctx, 0)
    if configuration.recordPaddingBlock > 1 {
      guard SSL_CTX_set_block_padding(ctx, configuration.recordPaddingBlock) == 1 else {
        throw TLSError.configuration(
          "record padding block \(configuration.recordPaddingBlock) is not accepted (at most 16384)"
        )
      }
    }

    if let chain = configuration.certificateChainFile {
      guard let key = configuration.privateKeyFile else {
        throw TLSError(.configuration, "a certificate needs its private key file too.")
      }
      try Self.checkReadable(chain, what: "certificate chain")
      try Self.checkReadable(key, what: "private key")
      guard SSL_CTX_use_certificate_chain_file(ctx, chain) == 1 else {
        throw TLSError.configuration("\(chain) is not a PEM certificate chain")
      }
      guard SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1 else {
        let reasons = TLSError.drainErrorQueue()
        let mismatch = reasons.contains { $0.is(ERR_LIB_X509, X509_R_KEY_VALUES_MISMATCH) }
        throw TLSError(
          .configuration,
          mismatch
            ? "\(key) is not the private key of the certificate in \(chain); use the key made "
              + "with that certificate."
            : "\(key) is not a PEM private key.",
          reasons: reasons)
      }
      guard SSL_CTX_check_private_key(ctx) == 1 else {
        throw TLSError.configuration("\(key) is not the private key of the certificate in \(chain)")
      }
      if let warning = Self.permissionWarning(key) { warnings.append(warning) }
    } else if configuration.role == .server {
      throw TLSError(.configuration, "a TLS server needs a certificate chain and a private key.")
    }

    switch configuration.role {
    case .client:
      switch configuration.serverTrust {
      case .caFile(let path):
        try Self.checkReadable(path, what: "CA certificate")
        guard SSL_CTX_load_verify_locations(ctx, path, nil) == 1 else {
          throw TLSError.configuration("\(path) holds no PEM CA certificate")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
      case .pinnedSHA256(let fingerprint):
        guard let normalized = Fingerprint.normalize(fingerprint) else {
          throw TLSError(
            .configuration,
            "the pin \(fingerprint) is not a SHA-256 fingerprint (64 hex digits, colons allowed).")
        }
        pin = normalized
        // The chain is not checked against a CA: the pin, checked once the handshake
        // completes and before any data is sent, is the trust.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER) { _, _ in 1 }
      case nil:
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
      }
    case .server:
      if let caFile = configuration.clientCAFile {
        try Self.checkReadable(caFile, what: "client CA certificate")
        guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
          throw TLSError.configuration("\(caFile) holds no PEM CA certificate")
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
      } else if configuration.acceptsClientIdentities {
        // Any certificate, or none: an identity is a key, not a name someone vouches for.
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER) { _, _ in 1 }
      }
    }
    self.warnings = warnings
    self.pinnedFingerprint = pin
  }

  deinit {
    SSL_CTX_free(pointer)
  }

  private static func checkReadable(_ path: String, what: String) throws {
    guard access(path, R_OK) == 0 else {
      let reason = String(cString: strerror(errno))
      throw TLSError(.configuration, "cannot read the \(what) file \(path): \(reason).")
    }
  }

  /// A warning when a private key file can be read by users other than its owner.
  static func permissionWarning(_ path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
    return "the private key \(path) can be read by other users (mode "
      + String(info.st_mode & 0o777, radix: 8) + "); run chmod 600 \(path)."
  }
}
