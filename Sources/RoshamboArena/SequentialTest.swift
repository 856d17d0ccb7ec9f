import Foundation

/// The sequential probability ratio test that decides a pairing, on its decisive rounds
/// one at a time (Sobel and Wald's three-decision procedure): two one-sided SPRTs of
/// H0 p = ½ against H1 p = ½ + δ (the first bot stronger) and against p = ½ − δ (the
/// second stronger), each at α/2 and β. A side is decided when its test accepts H1;
/// the pairing is called even when both accept H0.
///
/// Invariant: once a test has crossed a bound it never moves again, and the verdict,
/// once not `undecided`, never changes.
public struct SequentialTest: Sendable, Equatable {
  /// The test's margin and error rates, and the bounds they give.
  public struct Parameters: Sendable, Equatable {
    /// δ: how far from ½ a rate must be to count as a real difference.
    public var margin: Double
    /// The chance of deciding for a side when the bots are equal (both sides together).
    public var alpha: Double
    /// The chance of missing a difference of `margin` (calling it even, or not deciding
    /// for the stronger bot).
    public var beta: Double

    public init(margin: Double = 0.05, alpha: Double = 0.05, beta: Double = 0.05) {
      self.margin = margin
      self.alpha = alpha
      self.beta = beta
    }

    /// Whether the parameters make a test: 0 < δ < ½, 0 < α, β < 1.
    public var isValid: Bool {
      margin > 0 && margin < 0.5 && alpha > 0 && alpha < 1 && beta > 0 && beta < 1
    }

    /// A one-sided test accepts its H1 once its log-likelihood ratio reaches this.
    public var upperBound: Double { log((1 - beta) / (alpha / 2)) }
    /// …and its H0 once the ratio falls to this.
    public var lowerBound: Double { log(beta / (1 - alpha / 2)) }
    /// What a decisive round adds to the ratio of the test it favours, and to the other.
    var towards: Double { log(1 + 2 * margin) }
    var away: Double { log(1 - 2 * margin) }

    /// Wald's estimate of how many decisive rounds one of the one-sided tests takes to
    /// stop when the first bot's true rate is `p` (the test for the first bot; the other
    /// is its mirror, at 1 − p). A pairing stops when both have.
    public func expectedDecisiveRounds(at p: Double) -> Double {
      let (a, b) = (towards, away)
      let drift = p * a + (1 - p) * b
      let (upper, lower) = (upperBound, lowerBound)
      if abs(drift) < 1e-12 {
        return -upper * lower / (p * a * a + (1 - p) * b * b)
      }
      // The operating characteristic: the chance of accepting H0, from the non-zero
      // root h of p·e^(h·a) + (1−p)·e^(h·b) = 1 (its sign is the drift's opposite).
      let f = { (h: Double) in p * exp(h * a) + (1 - p) * exp(h * b) - 1 }
      var (near, far) = drift > 0 ? (-1e-9, -1.0) : (1e-9, 1.0)
      while f(far) < 0 { far *= 2 }
      for _ in 0..<200 {
        let middle = (near + far) / 2
        if f(middle) < 0 { near = middle } else { far = middle }
      }
      let h = (near + far) / 2
      let acceptH0 = (exp(h * upper) - 1) / (exp(h * upper) - exp(h * lower))
      return (acceptH0 * lower + (1 - acceptH0) * upper) / drift
    }
  }

  /// What the test says of a pairing.
  public enum Verdict: String, Sendable, Equatable {
    case undecided
    /// The first bot is the stronger.
    case first
    /// The second bot is the stronger.
    case second
    /// Neither is stronger by the margin.
    case even
  }

  /// Where one of the one-sided tests stands.
  private enum Side: Equatable {
    case running
    case acceptedStronger
    case acceptedEqual
  }

  public let parameters: Parameters
  public private(set) var firstWins = 0
  public private(set) var secondWins = 0
  public private(set) var verdict = Verdict.undecided
  /// The decisive rounds seen when the verdict was reached.
  public private(set) var decidedAfter: Int?
  private var forFirst = Side.running
  private var forSecond = Side.running

  public init(_ parameters: Parameters) { self.parameters = parameters }

  /// The log-likelihood ratio of the test for the first bot (for the second: swap the
  /// counts).
  public var firstRatio: Double { ratio(wins: firstWins, losses: secondWins) }
  public var secondRatio: Double { ratio(wins: secondWins, losses: firstWins) }

  private func ratio(wins: Int, losses: Int) -> Double {
    Double(wins) * parameters.towards + Double(losses) * parameters.away
  }

  /// One decisive round; returns the verdict after it. Rounds after a verdict are
  /// counted but change nothing.
  @discardableResult
  public mutating func record(firstWon: Bool) -> Verdict {
    if firstWon { firstWins += 1 } else { secondWins += 1 }
    guard verdict == .undecided else { return verdict }
    forFirst = advance(forFirst, ratio: firstRatio)
    forSecond = advance(forSecond, ratio: secondRatio)
    switch (forFirst, forSecond) {
    case (.acceptedStronger, _): verdict = .first
    case (_, .acceptedStronger): verdict = .second
    case (.acceptedEqual, .acceptedEqual): verdict = .even
    default: return verdict
    }
    decidedAfter = firstWins + secondWins
    return verdict
  }

  private func advance(_ side: Side, ratio: Double) -> Side {
    guard side == .running else { return side }
    if ratio >= parameters.upperBound { return .acceptedStronger }
    if ratio <= parameters.lowerBound { return .acceptedEqual }
    return .running
  }
}
