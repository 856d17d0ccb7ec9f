/// A token bucket on a millisecond clock: `perSecond` tokens a second, at most `burst`
/// saved up.
///
/// Invariant: it never holds more than `burst` tokens, and takes one only if it has one.
struct TokenBucket: Sendable {
  let perSecond: Int
  let burst: Int
  private var tokens: Double
  /// When a token was last asked for, ms.
  private var last: Int64?

  init(perSecond: Int, burst: Int) {
    self.perSecond = perSecond
    self.burst = burst
    self.tokens = Double(burst)
  }

  /// Takes a token at `now` (ms) if there is one.
  mutating func take(at now: Int64) -> Bool {
    if let last {
      let elapsed = Double(now - last) / 1e3
      tokens = min(Double(burst), tokens + elapsed * Double(perSecond))
    }
    last = now
    guard tokens >= 1 else { return false }
    tokens -= 1
    return true
  }
}
