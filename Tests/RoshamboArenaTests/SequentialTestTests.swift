import Foundation
import ProcessFixtures
import RoshamboArena
import RoshamboGame
import Testing

/// Runs a pairing's test on decisive rounds the first bot wins at rate `p` until it
/// decides (or `cap` rounds): the verdict and the decisive rounds it took.
func decide(
  at p: Double, seed: UInt64, parameters: SequentialTest.Parameters, cap: Int = 200_000
) -> (verdict: SequentialTest.Verdict, rounds: Int) {
  var random = SplitMix64(seed: seed)
  var test = SequentialTest(parameters)
  for round in 1...cap {
    if test.record(firstWon: Double.random(in: 0..<1, using: &random) < p) != .undecided {
      return (test.verdict, round)
    }
  }
  return (.undecided, cap)
}

@Suite(.cpuBound) struct SequentialTestTests {
  static let standard = SequentialTest.Parameters(margin: 0.05, alpha: 0.05, beta: 0.05)

  /// Over 1,000 seeds, equal bots are decided for a side at most α of the time (with
  /// three standard errors of slack), and called even otherwise.
  @Test(arguments: [0.05, 0.02])
  func equalBotsAreRarelySplit(margin: Double) {
    let parameters = SequentialTest.Parameters(margin: margin, alpha: 0.05, beta: 0.05)
    let seeds = 1_000
    var split = 0
    var even = 0
    for seed in 0..<seeds {
      switch decide(at: 0.5, seed: UInt64(seed) + 1_000_000, parameters: parameters).verdict {
      case .first, .second: split += 1
      case .even: even += 1
      case .undecided: break
      }
    }
    let slack = 3 * (0.05 * 0.95 / Double(seeds)).squareRoot()
    #expect(Double(split) / Double(seeds) <= 0.05 + slack, "split \(split) of \(seeds)")
    #expect(split + even == seeds)
    // Each side alone is held to α/2.
    #expect(Double(split) / Double(seeds) >= 0.005, "split \(split): the test is not at its level")
  }

  /// A difference of the margin is found (for the right side) at least 1 − β of the time.
  @Test(arguments: [0.55, 0.45])
  func aDifferenceOfTheMarginIsFound(p: Double) {
    let seeds = 1_000
    var found = 0
    for seed in 0..<seeds {
      let verdict = decide(at: p, seed: UInt64(seed) + 2_000_000, parameters: Self.standard).verdict
      if verdict == (p > 0.5 ? .first : .second) { found += 1 }
    }
    let slack = 3 * (0.05 * 0.95 / Double(seeds)).squareRoot()
    #expect(Double(found) / Double(seeds) >= 0.95 - slack, "found \(found) of \(seeds)")
  }

  /// A bot that wins 52% of its decisive rounds against random is told apart from it, at a
  /// margin of 2%, within the rounds Wald's estimate predicts: the median run decides
  /// for it by then (the stopping time is skewed: its median is below its mean), and
  /// nearly every run decides for it.
  @Test func aBotThatWins52PercentIsToldApartWithinThePredictedRounds() {
    let parameters = SequentialTest.Parameters(margin: 0.02, alpha: 0.05, beta: 0.05)
    let predicted = parameters.expectedDecisiveRounds(at: 0.52)
    #expect(predicted > 3_500 && predicted < 5_000, "Wald's estimate \(predicted)")
    var rounds: [Int] = []
    var found = 0
    let seeds = 400
    for seed in 0..<seeds {
      let (verdict, taken) = decide(
        at: 0.52, seed: UInt64(seed) + 3_000_000, parameters: parameters)
      if verdict == .first { found += 1 }
      rounds.append(taken)
    }
    rounds.sort()
    let median = Double(rounds[rounds.count / 2])
    let mean = Double(rounds.reduce(0, +)) / Double(seeds)
    #expect(median <= predicted, "median \(median) against \(predicted)")
    #expect(median >= 0.5 * predicted, "median \(median) against \(predicted)")
    // The estimate is of the mean: within 15% of what the runs took.
    #expect(abs(mean - predicted) / predicted < 0.15, "mean \(mean) against \(predicted)")
    // 1 − β, less three standard errors of 400 runs (373 of 400 when written).
    #expect(Double(found) / Double(seeds) >= 0.91, "decided for it in \(found) of \(seeds)")
  }

  /// Wald's estimate of the rounds an even pairing's test takes matches simulation.
  @Test func theEstimateForEqualBotsMatchesSimulation() {
    let predicted = Self.standard.expectedDecisiveRounds(at: 0.5)
    var test = 0.0
    let seeds = 1_000
    for seed in 0..<seeds {
      // One one-sided test alone: the first bot's, until it crosses either bound.
      var random = SplitMix64(seed: UInt64(seed) + 4_000_000)
      var ratio = 0.0
      var rounds = 0
      while ratio < Self.standard.upperBound, ratio > Self.standard.lowerBound {
        ratio += Double.random(in: 0..<1, using: &random) < 0.5 ? log(1.1) : log(0.9)
        rounds += 1
      }
      test += Double(rounds)
    }
    let mean = test / Double(seeds)
    #expect(
      predicted > 0 && abs(mean - predicted) / predicted < 0.15, "mean \(mean) against \(predicted)"
    )
  }

  @Test func theVerdictNeverChangesOnceReached() {
    var test = SequentialTest(Self.standard)
    while test.verdict == .undecided { test.record(firstWon: true) }
    let decided = test.decidedAfter
    #expect(test.verdict == .first)
    for _ in 0..<10_000 { test.record(firstWon: false) }
    #expect(test.verdict == .first)
    #expect(test.decidedAfter == decided)
  }

  @Test func boundsAreWaldsForEachSideAtHalfAlpha() {
    #expect(abs(Self.standard.upperBound - log(0.95 / 0.025)) < 1e-12)
    #expect(abs(Self.standard.lowerBound - log(0.05 / 0.975)) < 1e-12)
  }
}
