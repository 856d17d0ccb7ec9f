/// A client's keepalive as a value: when to send a `ping` (nothing sent for an interval)
/// and when a server that has sent nothing is taken for lost (silent for the silence
/// limit with a ping unanswered for an interval). Times are milliseconds on any clock
/// that only rises: the program's, or a simulation's virtual one.
///
/// Invariant: it says `lost` once per silence (``step(at:)`` starts the silence again),
/// and never before a ping has gone unanswered for a whole interval.
public struct Keepalive: Sendable, Equatable {
  /// Nothing sent for this long: a `ping`.
  public let intervalMillis: Int64
  /// Nothing heard for this long, with a ping unanswered: lost.
  public let silenceLimitMillis: Int64
  public private(set) var lastSent: Int64
  public private(set) var lastHeard: Int64
  /// The last ping, while unanswered: its `id` and when it went.
  public private(set) var ping: (id: Int?, sentAt: Int64)?

  /// What to do now.
  public enum Step: Equatable, Sendable {
    /// Send a `ping` (it is counted as sent and unanswered).
    case ping
    /// The server has been silent this long with a ping unanswered: close the connection.
    case lost(silentMillis: Int64)
    /// Nothing until then.
    case wait(until: Int64)
  }

  /// A keepalive for a connection made at `now`.
  public init(intervalMillis: Int64, silenceLimitMillis: Int64, now: Int64) {
    self.intervalMillis = max(1, intervalMillis)
    self.silenceLimitMillis = max(self.intervalMillis, silenceLimitMillis)
    self.lastSent = now
    self.lastHeard = now
  }

  /// Something other than a ping was sent at `now`.
  public mutating func sent(at now: Int64) { lastSent = max(lastSent, now) }

  /// Something came from the server at `now`; a `pong` (with the ping's `id`, if it had
  /// one) answers the ping. Returns the round trip of an answered ping.
  @discardableResult
  public mutating func heard(at now: Int64, pong id: Int?? = nil) -> Int64? {
    lastHeard = max(lastHeard, now)
    guard let answered = id, let ping, ping.id == answered else { return nil }
    self.ping = nil
    return now - ping.sentAt
  }

  /// What is due at `now`; a `ping` due is taken as sent (``pingSent(id:)`` names it).
  public mutating func step(at now: Int64) -> Step {
    if let ping, now - ping.sentAt >= intervalMillis, now - lastHeard >= silenceLimitMillis {
      let silent = now - lastHeard
      self.ping = nil
      lastHeard = now
      return .lost(silentMillis: silent)
    }
    if now - lastSent >= intervalMillis {
      lastSent = now
      ping = (nil, now)
      return .ping
    }
    var wake = lastSent + intervalMillis
    if let ping {
      wake = min(wake, max(ping.sentAt + intervalMillis, lastHeard + silenceLimitMillis))
    }
    return .wait(until: wake)
  }

  /// The ping ``step(at:)`` asked for went with this `id`: its `pong` answers it.
  public mutating func pingSent(id: Int?) {
    if let sentAt = ping?.sentAt { ping = (id, sentAt) }
  }

  public static func == (a: Keepalive, b: Keepalive) -> Bool {
    a.intervalMillis == b.intervalMillis && a.silenceLimitMillis == b.silenceLimitMillis
      && a.lastSent == b.lastSent && a.lastHeard == b.lastHeard && a.ping?.id == b.ping?.id
      && a.ping?.sentAt == b.ping?.sentAt
  }
}
