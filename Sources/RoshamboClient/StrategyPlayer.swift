import RoshamboGame

/// One built-in strategy playing one seat through a match: asked for each pick with the
/// match's resolved rounds so far, it keeps what it learned between picks so that a pick
/// costs no more than the rounds it has not seen yet.
///
/// Invariant: its picks depend only on the strategy, the seed, the ruleset and the rounds
/// it was shown, so a seeded arena is replayed exactly.
public struct StrategyPlayer: Sendable {
  public let strategy: BotStrategy
  private var random: SplitMix64

  public init(strategy: BotStrategy, seed: UInt64) {
    self.strategy = strategy
    self.random = SplitMix64(seed: seed)
  }

  /// The pick for the next round, given the match's resolved rounds (oldest first; a
  /// shorter history than last time means a new match) and the seat this player holds.
  public mutating func nextPick(history: [RoundResult], seat: Seat, ruleset: Ruleset) -> Weapon {
    strategy.pick(history: history, seat: seat, ruleset: ruleset, random: &random)
  }
}
