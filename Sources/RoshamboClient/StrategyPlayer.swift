import RoshamboGame

/// One built-in strategy playing one seat through a match: asked for each pick with the
/// match's resolved rounds so far, it keeps what it learned between picks so that a pick
/// costs no more than the rounds it has not seen yet.
///
/// A history that does not go on from the last one it was shown (shorter, or with other
/// rounds where it had seen some), or any history after ``matchOver(history:seat:ruleset:)``,
/// is a new match against the same opponent: the player
/// keeps what it learned and goes on learning, so an arena's consecutive matches against
/// one opponent make one long acquaintance. A new `StrategyPlayer` starts blank, and so
/// does one asked about another ruleset.
///
/// Invariant: its picks depend only on the strategy, the seed, the ruleset and the rounds
/// it was shown, in order, so a seeded arena is replayed exactly; within a match, a player
/// shown the rounds one at a time picks exactly as a new one shown them all at once.
public struct StrategyPlayer: Sendable {
  public let strategy: BotStrategy
  private let seed: UInt64
  private var memory: StrategyMemory?
  /// How many rounds of the current match it has learned, and the first and last of them
  /// as shown: a history that does not begin with these is another match.
  private var matchLength = 0
  private var matchFirst: RoundResult?
  private var matchLast: RoundResult?
  /// Told that the match ended: the next pick is of a new match, whatever its history.
  private var matchEnded = false

  public init(strategy: BotStrategy, seed: UInt64) {
    self.strategy = strategy
    self.seed = seed
  }

  /// The rounds it has learned from, over every match: each once.
  public var roundsLearned: Int { memory?.roundsSeen ?? 0 }

  /// The pick for the next round, given the match's resolved rounds (oldest first; a
  /// history that does not go on from the last one means a new match) and the seat this
  /// player holds.
  public mutating func nextPick(history: [RoundResult], seat: Seat, ruleset: Ruleset) -> Weapon {
    // Out of the property while it learns, so that its tables are not copied.
    var memory = self.memory ?? StrategyMemory(strategy: strategy, ruleset: ruleset)
    self.memory = nil
    if memory.ruleset != ruleset {
      memory = StrategyMemory(strategy: strategy, ruleset: ruleset)
      matchLength = 0
    }
    let learned: Int
    if !matchEnded, let unlearned = firstUnlearned(history) {
      learned = unlearned
    } else {
      memory.startMatch()
      matchEnded = false
      learned = 0
    }
    memory.learn(history[learned...], seat: seat)
    matchLength = history.count
    matchFirst = history.first
    matchLast = history.last
    self.memory = memory
    // A generator of its own for every pick, from the seed, the rounds learned and the
    // matches begun: the same rounds give the same pick however they came. (A match's last
    // round is never shown, so the next match's first pick has learned no more than the
    // last pick did: keyed by the rounds alone it would repeat it, and every match would
    // open with the round that ended the last.)
    var keyed = SplitMix64(
      seed: seed &+ UInt64(memory.roundsSeen) &* 0x9E37_79B9_7F4A_7C15
        &+ UInt64(memory.matchesStarted) &* 0xD1B5_4A32_D192_ED03)
    var random = SplitMix64(seed: keyed.next())
    return memory.pick(random: &random)
  }

  /// The match is over, with `history` its rounds (its last one too, which no pick was
  /// asked after): it learns the rounds it has not, and takes its next pick for the first
  /// of a new match. Without this, a history that looks the same at the next match's start
  /// (empty, after a match of one round) was taken for the same match, and a bot in
  /// best-of-1 matches made the same pick in every one.
  public mutating func matchOver(history: [RoundResult], seat: Seat, ruleset: Ruleset) {
    guard var memory = self.memory, memory.ruleset == ruleset, !matchEnded else { return }
    self.memory = nil
    if let unlearned = firstUnlearned(history), unlearned < history.count {
      memory.learn(history[unlearned...], seat: seat)
    }
    self.memory = memory
    matchLength = 0
    matchFirst = nil
    matchLast = nil
    matchEnded = true
  }

  /// Where `history` goes on from the rounds learned: the index of its first round not
  /// learned yet, or nil when it is another match. A view keeps only the latest rounds
  /// (``RoomView/historyLimit``), so in a long match the history slides on: its rounds
  /// keep their numbers, and it goes on from the last round learned.
  private func firstUnlearned(_ history: [RoundResult]) -> Int? {
    guard matchLength > 0, let matchFirst, let matchLast else { return 0 }
    if history.first == matchFirst {
      guard history.count >= matchLength, history[matchLength - 1] == matchLast else {
        return nil
      }
      return matchLength
    }
    // A new match starts again from round 1; a slid window starts later than the last.
    guard let first = history.first, first.round > matchFirst.round,
      let last = history.firstIndex(where: { $0.round == matchLast.round }),
      history[last] == matchLast
    else { return nil }
    return last + 1
  }
}
