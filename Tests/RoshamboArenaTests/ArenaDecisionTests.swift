import Foundation
import ProcessFixtures
import PropertyBased
import RoshamboArena
import RoshamboClient
import RoshamboGame
import Testing

@Suite(.cpuBound) struct ArenaDecisionTests {
  /// Two identical random bots are called even in at least 95 of 100 seeded arenas, by
  /// the arena's own decision code on rounds the real strategies play (enough rounds for
  /// the test to finish: 5 games of 1,000 in each seat order).
  @Test func identicalRandomBotsAreCalledEven() throws {
    let test = SequentialTest.Parameters(margin: 0.05, alpha: 0.05, beta: 0.05)
    var even = 0
    var verdicts: [SequentialTest.Verdict: Int] = [:]
    for seed in 0..<100 {
      let arena = SimulatedArena(
        bots: [.random, .random],
        schedule: ArenaSchedule(bots: 2, roundsPerGame: 1_000, games: 5, seed: UInt64(seed)),
        test: test)
      let verdict = try arena.run(interleaving: UInt64(seed)).first!.test.verdict
      verdicts[verdict, default: 0] += 1
      if verdict == .even { even += 1 }
    }
    #expect(even >= 95, "\(verdicts)")
  }

  /// What a pairing counts depends on the bots' picks alone: the same seed with the
  /// rooms' rounds and seats arriving in any order gives the same tallies and verdict.
  @Test func theResultDoesNotDependOnTheNetworksTiming() async {
    await propertyCheck(
      count: 40, input: Gen.int(in: 0...Int(Int32.max)), Gen.int(in: 0...Int(Int32.max))
    ) {
      seed, other in
      let arena = SimulatedArena(
        bots: [.markov, .frequency, .random],
        schedule: ArenaSchedule(bots: 3, roundsPerGame: 150, games: 2, seed: UInt64(seed)),
        test: SequentialTest.Parameters())
      let one = try! arena.run(interleaving: UInt64(seed))
      let two = try! arena.run(interleaving: UInt64(other) ^ 0xFFFF)
      #expect(one.map(\.tallies) == two.map(\.tallies))
      #expect(one.map(\.test.verdict) == two.map(\.test.verdict))
      #expect(one.map(\.seen) == two.map(\.seen))
    }
  }

  /// A decided pairing counts nothing after its verdict, and every pairing stops at its
  /// cap; the counted rounds alternate between the rooms.
  @Test func countingStopsAtTheVerdictAndTheCap() throws {
    let arena = SimulatedArena(
      bots: [.rock, .paper, .random],
      schedule: ArenaSchedule(bots: 3, roundsPerGame: 100, games: 1, seed: 5),
      test: SequentialTest.Parameters())
    let referees = try arena.run(interleaving: 9)
    let rockPaper = referees[0]
    #expect(rockPaper.test.verdict == .second)
    #expect(rockPaper.counted == rockPaper.decidedAfterRounds)
    #expect(abs(rockPaper.tallies[0].rounds - rockPaper.tallies[1].rounds) <= 1)
    for referee in referees { #expect(referee.counted <= 200) }
    let rockRandom = referees[1]
    #expect(rockRandom.test.verdict == .undecided)
    #expect(rockRandom.counted == 200)
    // Each bot's connections saw the mirror image of the other's.
    for referee in referees {
      #expect(referee.seen[0].wins == referee.seen[1].losses)
      #expect(referee.seen[0].draws == referee.seen[1].draws)
      #expect(referee.seen[0].wins == referee.total.firstWins)
    }
  }

  @Test func seatsThatDisagreeAreCaught() {
    var referee = PairingReferee(
      pairing: ArenaSchedule(bots: 2, roundsPerGame: 10, games: 1, seed: 0).pairings[0],
      roundCap: 20, test: SequentialTest.Parameters())
    #expect(throws: SeatsDisagree.self) {
      try referee.report(.won, order: .firstSeated, seat: .one)
      try referee.report(.won, order: .firstSeated, seat: .two)
    }
  }

  /// Every round a room's first seat reported is counted or set aside, also one whose
  /// second seat reported it only after the pairing was settled (the table counts the
  /// rounds played by the first seats' reports).
  @Test func everyReportedRoundIsCountedOrSetAside() throws {
    var referee = PairingReferee(
      pairing: ArenaSchedule(bots: 2, roundsPerGame: 10, games: 1, seed: 0).pairings[0],
      roundCap: 2, test: SequentialTest.Parameters())
    try referee.report(.won, order: .firstSeated, seat: .one)
    try referee.report(.lost, order: .firstSeated, seat: .two)
    // The first room's second round, seen by its first seat only so far.
    try referee.report(.won, order: .firstSeated, seat: .one)
    // The other room's first round: the cap, so the pairing is settled.
    try referee.report(.lost, order: .secondSeated, seat: .one)
    try referee.report(.won, order: .secondSeated, seat: .two)
    #expect(referee.isSettled)
    try referee.report(.lost, order: .firstSeated, seat: .two)
    referee.close()
    #expect(referee.counted == 2)
    #expect(referee.counted + referee.uncounted == 3)
  }

  @Test func seedsDifferBySeatAndRepeatBySchedule() {
    let schedule = ArenaSchedule(bots: 4, roundsPerGame: 10, games: 3, seed: 42)
    var seeds = Set<UInt64>()
    for pairing in schedule.pairings {
      for game in 0..<3 {
        for order in ArenaSchedule.SeatOrder.allCases {
          for seat in Seat.allCases {
            seeds.insert(schedule.seed(pairing: pairing, game: game, order: order, seat: seat))
          }
        }
      }
    }
    #expect(seeds.count == 6 * 3 * 2 * 2)
    #expect(ArenaSchedule(bots: 4, roundsPerGame: 10, games: 3, seed: 42) == schedule)
    #expect(schedule.pairings.count == 6)
    #expect(Set(schedule.pairings.map { [$0.first, $0.second] }).count == 6)
  }
}
