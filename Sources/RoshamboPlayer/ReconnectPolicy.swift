/// How a player waits for its server after losing the connection: one policy for every
/// player (the screen, the lobby, the bots). Tries start a quarter second after the loss
/// and wait twice as long each time, up to 2 s between tries, for 2 minutes from the
/// loss (a restarting server is back within seconds; a Wi-Fi roam or a laptop's lid
/// within a minute or so). A server that says it is closing on every connection is tried
/// every 5 s, and given 1 minute from the first such loss: it is being stopped, not
/// restarted.
///
/// Invariant: the wait before a try only rises with the try's number and never passes
/// ``longestWaitMillis`` (``closingRetryMillis`` for a server that keeps closing), so no
/// try goes more than one wait past the patience.
public struct ReconnectPolicy: Equatable, Sendable {
  /// The wait before the first try.
  public var firstWaitMillis: Int64
  /// The longest wait between two tries.
  public var longestWaitMillis: Int64
  /// How long after the loss the player gives up.
  public var patienceMillis: Int64
  /// The wait between tries to a server that keeps saying it is closing.
  public var closingRetryMillis: Int64
  /// How long a server that keeps saying it is closing is given, from the first loss
  /// after it said so.
  public var closingPatienceMillis: Int64
  /// A connection that says it is closing later than this after it began played first:
  /// its closing starts a new count.
  public var closingGraceMillis: Int64

  public init(
    firstWaitMillis: Int64 = 250, longestWaitMillis: Int64 = 2_000,
    patienceMillis: Int64 = 120_000, closingRetryMillis: Int64 = 5_000,
    closingPatienceMillis: Int64 = 60_000, closingGraceMillis: Int64 = 30_000
  ) {
    self.firstWaitMillis = max(1, firstWaitMillis)
    self.longestWaitMillis = max(self.firstWaitMillis, longestWaitMillis)
    self.patienceMillis = max(0, patienceMillis)
    self.closingRetryMillis = max(1, closingRetryMillis)
    self.closingPatienceMillis = max(0, closingPatienceMillis)
    self.closingGraceMillis = max(0, closingGraceMillis)
  }

  /// The policy every player uses.
  public static let standard = ReconnectPolicy()

  /// The wait before try number `attempt` (from 1); `closing`: the server keeps saying
  /// it is closing.
  public func wait(beforeAttempt attempt: Int, closing: Bool) -> Int64 {
    let doubled = firstWaitMillis << Int64(min(max(attempt, 1) - 1, 20))
    let backoff = min(longestWaitMillis, doubled)
    return closing ? max(backoff, closingRetryMillis) : backoff
  }

  /// When a player that lost its connection at `lostAt` gives up; `closingSince`: since
  /// when the server has kept saying it is closing, if it has.
  public func givesUp(lostAt: Int64, closingSince: Int64?) -> Int64 {
    let patience = lostAt + patienceMillis
    guard let closingSince else { return patience }
    return min(patience, closingSince + closingPatienceMillis)
  }
}
