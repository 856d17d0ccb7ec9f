import ProcessFixtures
import PropertyBased
import RoshamboArena
import RoshamboGame
import Testing

/// Decisive rounds drawn at a known rate, from a seed.
func decisiveRounds(_ n: Int, rate p: Double, seed: UInt64) -> (wins: Int, losses: Int) {
  var random = SplitMix64(seed: seed)
  var wins = 0
  for _ in 0..<n where Double.random(in: 0..<1, using: &random) < p { wins += 1 }
  return (wins, n - wins)
}

@Suite(.cpuBound) struct WinRateTests {
  /// The interval covers the true rate about 95% of the time: not much less (too narrow),
  /// not much more (too wide to be the 95% interval). 2,000 seeds give a standard error of
  /// 0.5 points; the Wilson interval's own coverage wanders a point or two around 95%
  /// (94.8% to 97.5% over these five cases).
  @Test(arguments: [(100, 0.5), (400, 0.52), (1_000, 0.3), (60, 0.8), (2_000, 0.55)])
  func coversTheTrueRateAtItsLevel(n: Int, p: Double) {
    let seeds = 2_000
    var covered = 0
    for seed in 0..<seeds {
      let (wins, losses) = decisiveRounds(n, rate: p, seed: UInt64(seed) &* 7_919 &+ UInt64(n))
      if WinRate(wins: wins, losses: losses).covers(p) { covered += 1 }
    }
    let coverage = Double(covered) / Double(seeds)
    #expect(coverage >= 0.93, "coverage \(coverage) at n = \(n), p = \(p)")
    #expect(coverage <= 0.98, "coverage \(coverage) at n = \(n), p = \(p)")
  }

  @Test func holdsItsInvariantForAnyCounts() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...5_000), Gen.int(in: 0...5_000)) {
      wins, losses in
      let rate = WinRate(wins: wins, losses: losses)
      #expect(0 <= rate.low && rate.low <= rate.rate && rate.rate <= rate.high && rate.high <= 1)
      // The other side's interval is the mirror image.
      let mirror = WinRate(wins: losses, losses: wins)
      #expect(abs(rate.low - (1 - mirror.high)) < 1e-12)
      #expect(abs(rate.high - (1 - mirror.low)) < 1e-12)
      // More rounds at the same rate never widen it.
      let more = WinRate(wins: wins * 4, losses: losses * 4)
      if wins + losses > 0 { #expect(more.high - more.low <= rate.high - rate.low + 1e-12) }
    }
  }

  @Test func knownValues() {
    // 52 of 100: the Wilson interval is 42.3% to 61.5%.
    let rate = WinRate(wins: 52, losses: 48)
    #expect(abs(rate.low - 0.4232) < 0.0005)
    #expect(abs(rate.high - 0.6151) < 0.0005)
    #expect(WinRate(wins: 0, losses: 0) == WinRate(wins: 0, losses: 0))
    #expect(WinRate(wins: 0, losses: 0).low == 0 && WinRate(wins: 0, losses: 0).high == 1)
  }
}
