import RoshamboGame

/// What a client knows besides the server's view: its connection, a pick it has sent
/// but the server has not confirmed, the last notice from the server, and the time.
///
/// Invariant: nothing here comes from the server's secrets; it is this client's own.
public struct ClientContext: Equatable, Sendable {
  public enum Connection: Equatable, Sendable {
    case connecting
    case connected
    case reconnecting(attempt: Int)
    /// Gave up, or the server closed: the sentence says why and what to do.
    case closed(String)
  }

  public var connection: Connection
  /// The pick sent for `view.round`, shown at once, until the server's view has it.
  public var pendingPick: Weapon?
  /// The last error or notice from the server, for one line on the screen.
  public var notice: String?
  /// Now, in ms since 1970, for the countdown.
  public var now: Int64
  /// The last measured ping round trip to the server, in ms.
  public var roundTripMillis: Double?
  /// When the server said it closes (ms since 1970 by this client's clock), once it has.
  public var closesAt: Int64?

  public init(
    connection: Connection = .connecting, pendingPick: Weapon? = nil, notice: String? = nil,
    now: Int64 = 0
  ) {
    self.connection = connection
    self.pendingPick = pendingPick
    self.notice = notice
    self.now = now
  }
}
