import Foundation

/// A bot's share of the decisive rounds (its wins over its wins and losses; draws carry
/// no information about which bot is stronger, so they are left out) with its Wilson
/// score interval.
///
/// Invariant: `low ≤ rate ≤ high`, all within 0…1; with no decisive round the rate is
/// one half and the interval is the whole of 0…1.
public struct WinRate: Sendable, Equatable {
  public var wins: Int
  public var losses: Int
  public var rate: Double
  public var low: Double
  public var high: Double

  /// The normal quantile of a two-sided 95% interval.
  public static let z95 = 1.959_963_984_540_054

  /// The rate of `wins` in `wins + losses` decisive rounds, with the Wilson score
  /// interval at the level `z` gives (1.96: 95%).
  public init(wins: Int, losses: Int, z: Double = WinRate.z95) {
    self.wins = wins
    self.losses = losses
    let n = Double(wins + losses)
    guard n > 0 else {
      (rate, low, high) = (0.5, 0, 1)
      return
    }
    let p = Double(wins) / n
    let z2 = z * z
    let centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    let half = z / (1 + z2 / n) * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
    rate = p
    low = max(0, min(p, centre - half))
    high = min(1, max(p, centre + half))
  }

  public var decisive: Int { wins + losses }

  /// Whether `p` lies within the interval.
  public func covers(_ p: Double) -> Bool { low <= p && p <= high }
}
