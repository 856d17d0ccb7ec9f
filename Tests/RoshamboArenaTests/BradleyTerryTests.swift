import Foundation
import ProcessFixtures
import RoshamboArena
import RoshamboGame
import Testing

/// A round robin of decisive rounds between bots of known strengths, from a seed.
func roundRobin(strengths: [Double], rounds: Int, seed: UInt64) -> [[Int]] {
  var random = SplitMix64(seed: seed)
  let n = strengths.count
  var wins = Array(repeating: [Int](repeating: 0, count: n), count: n)
  for i in 0..<n {
    for j in (i + 1)..<max(n, i + 1) {
      let p = 1 / (1 + exp(strengths[j] - strengths[i]))
      for _ in 0..<rounds {
        if Double.random(in: 0..<1, using: &random) < p { wins[i][j] += 1 } else { wins[j][i] += 1 }
      }
    }
  }
  return wins
}

@Suite(.cpuBound) struct BradleyTerryTests {
  static let truth: [Double] = [-0.4, -0.1, 0, 0.15, 0.35]

  @Test func findsKnownStrengths() {
    let wins = roundRobin(strengths: Self.truth, rounds: 20_000, seed: 1)
    let fit = BradleyTerry(wins: wins)
    for (found, true_) in zip(fit.strengths, Self.truth) {
      #expect(abs(found - true_) < 0.03, "\(fit.strengths) against \(Self.truth)")
    }
    #expect(abs(fit.strengths.reduce(0, +)) < 1e-9)
  }

  /// The 95% intervals from the Fisher information cover each bot's true strength (as
  /// a difference from the average) about 95% of the time over 300 seeded round robins.
  @Test func intervalsCoverTheTrueStrengths() {
    let seeds = 300
    var covered = 0
    var total = 0
    for seed in 0..<seeds {
      let fit = BradleyTerry(
        wins: roundRobin(strengths: Self.truth, rounds: 300, seed: UInt64(seed) + 10))
      for (index, true_) in Self.truth.enumerated() {
        total += 1
        if abs(fit.strengths[index] - true_) <= WinRate.z95 * fit.standardErrors[index] {
          covered += 1
        }
      }
    }
    let coverage = Double(covered) / Double(total)
    #expect(coverage >= 0.92 && coverage <= 0.98, "coverage \(coverage)")
  }

  /// A bot that won every round is rated highest, finitely, and the prior decides how
  /// far: the ranking is the order of the round robin.
  @Test func aCleanSweepStaysFiniteAndOrdered() {
    // rock < paper < frequency, each beating the ones before every time.
    let wins = [[0, 0, 0], [500, 0, 0], [500, 500, 0]]
    let fit = BradleyTerry(wins: wins)
    #expect(fit.strengths.allSatisfy { $0.isFinite })
    #expect(fit.standardErrors.allSatisfy { $0.isFinite })
    #expect(fit.strengths[0] < fit.strengths[1] && fit.strengths[1] < fit.strengths[2])
  }

  @Test func nobodyPlayedMeansEveryoneIsEqual() {
    let fit = BradleyTerry(wins: [[0, 0], [0, 0]])
    #expect(fit.strengths == [0, 0])
    #expect(fit.standardErrors.allSatisfy { $0 > 0 && $0.isFinite })
  }
}
