/// The limits that keep bad or greedy clients cheap: how many connections, how fast
/// they must say `hello`, how often they may send, how long they may stay silent or
/// unread. The server's `ServerConfiguration.Limits`; each connection's
/// ``ConnectionStateMachine`` keeps them.
///
/// Invariant: plain data, in seconds or milliseconds as each name says.
public struct ConnectionLimits: Sendable {
  public var maxConnections = 10_000
  /// Connections one IP address (an IPv6 address: its /64) may hold at once, so one
  /// address cannot take every slot; more from it are refused when they connect.
  public var maxConnectionsPerAddress = 64
  /// Connections that may be in their TLS handshake at once: more are closed the
  /// moment they connect, so connections that never finish a handshake cannot keep
  /// players out. One address may hold at most a quarter of these, and no more than
  /// its `maxConnectionsPerAddress`.
  public var maxHandshakes = 1_024
  /// The handshakes one address may have under way at once.
  public var maxHandshakesPerAddress: Int {
    min(maxConnectionsPerAddress, max(1, maxHandshakes / 4))
  }
  /// The TLS handshake must be done within this many seconds of connecting.
  public var handshakeTimeoutSeconds: Int64 = 5
  /// TLS and `hello` must be done within this many seconds of connecting.
  public var helloTimeoutSeconds: Int64 = 10
  /// A connection with no frame for this long is closed.
  public var idleTimeoutSeconds: Int64 = 60
  public var framesPerSecond = 20
  /// Frames a connection may send at once before the rate applies; this many frames
  /// over the rate in a row closes it.
  public var frameBurst = 40
  /// A connection that cannot be written to (its peer does not read) for this long is
  /// closed. Until then it gets only the newest `state` when it can take more.
  public var stallTimeoutSeconds: Int64 = 30
  /// How long a connection to the operations endpoint has to send each complete
  /// request before it is closed.
  public var operationsRequestTimeoutMillis: Int64 = 10_000

  public init() {}
}
