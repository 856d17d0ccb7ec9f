import NIOCore

/// A token bucket: `perSecond` tokens a second, at most `burst` saved up.
///
/// Invariant: it never holds more than `burst` tokens, and takes one only if it has one.
struct TokenBucket: Sendable {
  let perSecond: Int
  let burst: Int
  private var tokens: Double
  private var last: NIODeadline?

  init(perSecond: Int, burst: Int) {
    self.perSecond = perSecond
    self.burst = burst
    self.tokens = Double(burst)
  }

  /// Takes a token if there is one.
  mutating func take(at now: NIODeadline) -> Bool {
    if let last {
      let elapsed = Double((now - last).nanoseconds) / 1e9
      tokens = min(Double(burst), tokens + elapsed * Double(perSecond))
    }
    last = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
