/// Which end of the connection this side is.
public enum TLSRole: Sendable, Equatable {
  case client
  case server
}

/// A TLS protocol version this layer can speak.
public enum TLSVersion: Sendable, Equatable {
  case tls12
  case tls13
}

/// How a client decides to trust the server.
public enum ServerTrust: Sendable, Equatable {
  /// Verify the chain against the CA certificates in this PEM file, and the host name
  /// or IP address against the certificate's subjectAltName.
  case caFile(String)
  /// Accept exactly the certificate with this SHA-256 fingerprint (hex, colons optional).
  case pinnedSHA256(String)
}

/// Everything a TLS context needs, for either role. Defaults pass a modern scan:
/// TLS 1.3 only, groups X25519, P-256, P-384, no compression, no renegotiation.
///
/// Invariant: a configuration is plain data; building the OpenSSL context from it
/// (``TLSContext``) is where files are read and checked.
public struct TLSConfiguration: Sendable, Equatable {
  public var role: TLSRole
  /// PEM certificate chain (leaf first). Required for a server; a client's for mutual TLS.
  public var certificateChainFile: String?
  /// PEM private key for `certificateChainFile`.
  public var privateKeyFile: String?
  /// Client: how to trust the server. Nil means no verification, for tests only.
  public var serverTrust: ServerTrust?
  /// Server: require client certificates signed by the CA in this file (mutual TLS).
  public var clientCAFile: String?
  /// A server that asks every client for a certificate, accepts any (self-signed
  /// included; the certificate proves only that the client holds its key), and lets
  /// clients without one in: how players' identities arrive
  /// (``TLSHandshakeCompleted/peerKey``). Ignored with `clientCAFile`.
  public var acceptsClientIdentities = false
  /// Accept TLS 1.2 (ECDHE with AEAD suites only) besides TLS 1.3.
  public var allowTLS12: Bool
  /// The newest version to offer; `.tls12` only to test how a peer treats old clients.
  public var maximumVersion: TLSVersion = .tls13
  /// TLS 1.3 records are padded to a multiple of this many bytes, so that messages of
  /// different lengths within one block (a pick of "rock" or "scissors") look alike.
  public var recordPaddingBlock: Int
  /// How long the handshake may take before the connection is closed.
  public var handshakeTimeoutSeconds: Int64

  /// A server that presents `certificateChainFile` and `privateKeyFile`.
  public static func server(
    certificateChainFile: String, privateKeyFile: String, clientCAFile: String? = nil,
    allowTLS12: Bool = false
  ) -> TLSConfiguration {
    TLSConfiguration(
      role: .server, certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile,
      serverTrust: nil, clientCAFile: clientCAFile, allowTLS12: allowTLS12, recordPaddingBlock: 128,
      handshakeTimeoutSeconds: 10)
  }

  /// A client that trusts the server as `trust` says, optionally presenting its own
  /// certificate for mutual TLS.
  public static func client(
    trust: ServerTrust?, certificateChainFile: String? = nil, privateKeyFile: String? = nil,
    allowTLS12: Bool = false
  ) -> TLSConfiguration {
    TLSConfiguration(
      role: .client, certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile,
      serverTrust: trust, clientCAFile: nil, allowTLS12: allowTLS12, recordPaddingBlock: 128,
      handshakeTimeoutSeconds: 10)
  }
}
