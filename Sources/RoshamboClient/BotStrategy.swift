import RoshamboGame

/// A built-in way for a bot to pick, named as the command line names it (`--strategy
/// markov`): the classic opponents of the International RoShamBo Programming Competitions
/// (1999–2000) and of Kaggle's rock-paper-scissors competition (2020–21), written here from
/// their published descriptions. ``StrategyPlayer`` plays one through a match.
///
/// Invariant: a strategy only ever picks a weapon of the room's ruleset.
public enum BotStrategy: String, CaseIterable, Sendable {
  case random, rock, paper, scissors, cycle
  case frequency
  case frequency20 = "frequency-20"
  case frequency5 = "frequency-5"
  case markov, markov2, markov3
  case beatLast = "beat-last"
  case mirror
  case debruijn
  case iocaine

  /// What the strategy does, in one line.
  public var summary: String {
    switch self {
    case .random: "picks uniformly at random: nothing beats it, and it beats nothing"
    case .rock: "always rock (the competition's \"Good Ol' Rock\")"
    case .paper: "always paper"
    case .scissors: "always scissors"
    case .cycle: "the ruleset's weapons in order, from rock at each match's start"
    case .frequency: "beats the opponent's most frequent pick so far"
    case .frequency20: "beats the opponent's most frequent pick of their last 20"
    case .frequency5: "beats the opponent's most frequent pick of their last 5"
    case .markov: "beats what most often followed the opponent's last pick"
    case .markov2: "beats what most often followed the opponent's last two picks"
    case .markov3: "beats what most often followed the opponent's last three picks"
    case .beatLast: "beats the opponent's last pick"
    case .mirror: "plays the opponent's last pick"
    case .debruijn: "a de Bruijn sequence: every run of n picks once a period, in order"
    case .iocaine: "Iocaine Powder: many predictors, second-guessed; follows the best lately"
    }
  }

  /// Every strategy on a line of its own, its name and then its summary, as `roshambo bot
  /// --strategy list` prints them.
  public static var listing: String {
    let width = allCases.map(\.rawValue.count).max()!
    return allCases.map {
      $0.rawValue + String(repeating: " ", count: width + 2 - $0.rawValue.count) + $0.summary
    }.joined(separator: "\n")
  }

  /// The pick for the next round, given the match's resolved rounds (oldest first) and
  /// which seat this bot is, learning them from scratch: it costs as much as the history is
  /// long. A bot that picks every round keeps what it learned in a ``StrategyPlayer``.
  public func pick(
    history: [RoundResult], seat: Seat, ruleset: Ruleset, random: inout some RandomNumberGenerator
  ) -> Weapon {
    var memory = StrategyMemory(strategy: self, ruleset: ruleset)
    memory.learn(history[...], seat: seat)
    return memory.pick(random: &random)
  }
}
