import RoshamboGame
import Testing

@testable import RoshamboSimulation

/// The simulator's own oracles, held to what they are written from: the reference
/// Glicko-2 to Glickman's worked example, the rules of a match's record to matches made
/// by hand.
@Suite("Simulation: the oracles")
struct OracleTests {
  /// Glickman, "Example of the Glicko-2 system": 1500 (RD 200, σ 0.06) beats a 1400 (RD
  /// 30), loses to a 1550 (RD 100) and to a 1700 (RD 300), τ = 0.5: r′ 1464.06, RD′
  /// 151.52, σ′ 0.05999.
  @Test("the reference Glicko-2 gives Glickman's worked example")
  func glickmanExample() {
    let player = ReferenceRating(rating: 1500, deviation: 200, volatility: 0.06)
    let rated = player.after([
      (ReferenceRating(rating: 1400, deviation: 30, volatility: 0.06), 1),
      (ReferenceRating(rating: 1550, deviation: 100, volatility: 0.06), 0),
      (ReferenceRating(rating: 1700, deviation: 300, volatility: 0.06), 0),
    ])
    #expect(abs(rated.rating - 1464.06) < 0.01, "\(rated.rating)")
    #expect(abs(rated.deviation - 151.52) < 0.01, "\(rated.deviation)")
    #expect(abs(rated.volatility - 0.05999) < 0.00001, "\(rated.volatility)")
  }

  static func match(
    bestOf: Int = 3, scores: [Int], winner: String = "Ann", forfeit: Bool
  ) -> FinishedMatch {
    FinishedMatch(
      room: "den", finishedAt: 0, ruleset: "classic", bestOf: bestOf, players: ["Ann", "Ben"],
      scores: scores, winner: winner, forfeit: forfeit, fair: false)
  }

  @Test("a match's record: won on the rounds is no forfeit; no forfeit means won so")
  func matchRecords() {
    #expect(SimulatedJournal.unlikeTheRules(Self.match(scores: [2, 1], forfeit: false)) == nil)
    #expect(SimulatedJournal.unlikeTheRules(Self.match(scores: [1, 1], forfeit: true)) == nil)
    #expect(SimulatedJournal.unlikeTheRules(Self.match(scores: [2, 0], forfeit: true)) != nil)
    #expect(SimulatedJournal.unlikeTheRules(Self.match(scores: [1, 0], forfeit: false)) != nil)
    #expect(
      SimulatedJournal.unlikeTheRules(Self.match(scores: [1, 2], winner: "Ben", forfeit: false))
        == nil)
  }
}
