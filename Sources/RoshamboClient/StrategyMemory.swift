import RoshamboGame

/// What one strategy has learned of one opponent in one ruleset, round by round, and the
/// pick it makes from that. Each round is learned once, in time that does not grow with
/// the rounds before it (the tables are per weapon, per context and per window), so a
/// player that keeps its memory pays for a pick only what the new rounds cost.
///
/// A round in which a player let the deadline pass teaches nothing about that player; a
/// new match goes on from where the last one left off (its first round follows the last
/// round of the one before, as if the two were one long match), except that the `cycle`
/// strategy starts again from rock.
///
/// Invariant: the state depends only on the strategy, the ruleset and the rounds learned,
/// in order: randomness comes in only at the pick.
struct StrategyMemory: Sendable {
  let strategy: BotStrategy
  let cycle: WeaponCycle
  var ruleset: Ruleset { cycle.ruleset }
  /// Every round learned, over every match.
  private(set) var roundsSeen = 0
  /// The rounds of the current match.
  private(set) var matchRounds = 0

  /// Positions on the cycle of the opponent's moves, this player's, and both as pairs
  /// (mine × k + theirs).
  private var theirs: RecentMoves
  private var mine: RecentMoves
  private var rounds: RecentMoves
  private var theirFrequencies: [FrequencyWindow] = []
  private var ownFrequencies: [FrequencyWindow] = []
  private var theirMarkov: [MarkovTable] = []
  private var ownMarkov: [MarkovTable] = []
  private var matchers: [LastFollowers] = []
  private var iocaine: IocainePowder?

  /// The frequency windows Iocaine Powder watches (nil: the whole acquaintance).
  static let iocaineWindows: [Int?] = [nil, 20, 5, 1]
  /// The longest context any table looks back on, and the longest window: what the recent
  /// moves must hold.
  static let lookBack = 32

  init(strategy: BotStrategy, ruleset: Ruleset) {
    self.strategy = strategy
    cycle = WeaponCycle.of(ruleset)
    let k = cycle.count
    let capacity = strategy.learns ? Self.lookBack : 1
    theirs = RecentMoves(capacity: capacity)
    mine = RecentMoves(capacity: capacity)
    rounds = RecentMoves(capacity: capacity)
    switch strategy {
    case .frequency: theirFrequencies = [FrequencyWindow(window: nil, weapons: k)]
    case .frequency20: theirFrequencies = [FrequencyWindow(window: 20, weapons: k)]
    case .frequency5: theirFrequencies = [FrequencyWindow(window: 5, weapons: k)]
    case .markov, .markov2, .markov3:
      theirFrequencies = [FrequencyWindow(window: nil, weapons: k)]
      theirMarkov = (1...strategy.markovOrder).map { MarkovTable(order: $0, weapons: k) }
    case .iocaine:
      theirFrequencies = Self.iocaineWindows.map { FrequencyWindow(window: $0, weapons: k) }
      ownFrequencies = Self.iocaineWindows.map { FrequencyWindow(window: $0, weapons: k) }
      theirMarkov = (1...3).map { MarkovTable(order: $0, weapons: k) }
      ownMarkov = (1...3).map { MarkovTable(order: $0, weapons: k) }
      matchers = (1...3).map { LastFollowers(order: $0, pairs: k * k) }
      iocaine = IocainePowder(cycle: cycle, predictions: predictions().count)
    case .random, .rock, .paper, .scissors, .cycle, .beatLast, .mirror, .debruijn: break
    }
  }

  /// Rounds in a row, the latest learned, in which both played the same weapon. Two
  /// learners of one strategy see the same rounds and answer them alike, so without a
  /// way out their match of draws never ended (two frequency bots drew 298,428 rounds).
  private(set) var drawsInARow = 0
  /// Draws in a row after which a learner picks at random: its seed is its own, so the
  /// mirror breaks within a few rounds.
  static let drawsBeforeRandom = 3

  /// A new match against the same opponent: only its own count of rounds starts again.
  mutating func startMatch() {
    matchRounds = 0
    matchesStarted += 1
  }

  /// Matches begun after the first: with ``roundsSeen``, what keys each pick's randomness.
  private(set) var matchesStarted = 0

  /// Learns `history`'s rounds, oldest first, as seen from `seat`.
  mutating func learn(_ history: ArraySlice<RoundResult>, seat: Seat) {
    guard strategy.learns else {
      roundsSeen += history.count
      matchRounds += history.count
      return
    }
    for round in history {
      learn(
        mine: round.weapon(of: seat).flatMap(cycle.position),
        theirs: round.weapon(of: seat.opponent).flatMap(cycle.position))
    }
  }

  private mutating func learn(mine move: Int?, theirs their: Int?) {
    roundsSeen += 1
    matchRounds += 1
    if let their {
      iocaine?.score(theirs: their)
      for index in theirMarkov.indices {
        theirMarkov[index].record(their, after: theirs, step: theirs.total)
      }
      theirs.append(their)
      for index in theirFrequencies.indices { theirFrequencies[index].record(newestOf: theirs) }
    }
    if let move {
      for index in ownMarkov.indices {
        ownMarkov[index].record(move, after: mine, step: mine.total)
      }
      mine.append(move)
      for index in ownFrequencies.indices { ownFrequencies[index].record(newestOf: mine) }
    }
    drawsInARow = move != nil && move == their ? drawsInARow + 1 : 0
    if let move, let their {
      let pair = move * cycle.count + their
      for index in matchers.indices { matchers[index].record(pair, after: rounds) }
      rounds.append(pair)
    }
    if iocaine != nil { iocaine!.propose(predictions()) }
  }

  /// Iocaine Powder's predictions, always in this order: the opponent's next move by
  /// frequency over each window, then this player's (what a frequency counter would expect
  /// of it); by Markov models of orders 1 to 3 of each player's moves; and by history
  /// matching on both players' last 1 to 3 rounds, the opponent's move and this player's.
  private func predictions() -> [Int?] {
    let k = cycle.count
    var predictions: [Int?] = []
    predictions += theirFrequencies.map(\.commonest)
    predictions += ownFrequencies.map(\.commonest)
    predictions += theirMarkov.map { $0.prediction(after: theirs)?.weapon }
    predictions += ownMarkov.map { $0.prediction(after: mine)?.weapon }
    for matcher in matchers {
      let next = matcher.prediction(after: rounds)
      predictions.append(next.map { $0 % k })
      predictions.append(next.map { $0 / k })
    }
    return predictions
  }

  /// The next pick.
  func pick(random: inout some RandomNumberGenerator) -> Weapon {
    let weapons = ruleset.weapons
    if strategy.learns, drawsInARow >= Self.drawsBeforeRandom {
      return weapons.randomElement(using: &random)!
    }
    switch strategy {
    case .random: return weapons.randomElement(using: &random)!
    case .rock: return .rock
    case .paper: return .paper
    case .scissors: return .scissors
    case .cycle: return weapons[matchRounds % weapons.count]
    case .debruijn:
      let sequence = DeBruijnSequence.of(ruleset).weapons
      return sequence[roundsSeen % sequence.count]
    case .frequency, .frequency20, .frequency5:
      guard let favourite = theirFrequencies[0].commonest else { break }
      return counter(to: favourite, counts: theirFrequencies[0].counts[...], random: &random)
    case .markov, .markov2, .markov3:
      // The longest context seen before; then the opponent's favourite overall.
      for table in theirMarkov.reversed() {
        if let prediction = table.prediction(after: theirs) {
          return counter(to: prediction.weapon, counts: prediction.counts, random: &random)
        }
      }
      guard let favourite = theirFrequencies[0].commonest else { break }
      return counter(to: favourite, counts: theirFrequencies[0].counts[...], random: &random)
    case .beatLast:
      guard let last = theirs[back: 0] else { break }
      return counter(to: last, counts: nil, random: &random)
    case .mirror:
      guard let last = theirs[back: 0] else { break }
      return cycle.weapons[last]
    case .iocaine:
      guard let choice = iocaine?.choice else { break }
      return cycle.weapons[choice]
    }
    return weapons.randomElement(using: &random)!
  }

  /// A weapon that beats the one at `position`: of several (five weapons), the one that
  /// would have done best against the opponent's moves `counts` tallies, ties at random.
  private func counter(
    to position: Int, counts: ArraySlice<Int>?, random: inout some RandomNumberGenerator
  ) -> Weapon {
    let beaters = cycle.beaters(of: position)
    guard beaters.count > 1 else { return cycle.weapons[beaters[0]] }
    let value = { (beater: Int) -> Int in
      guard let counts else { return 0 }
      return counts.indices.reduce(0) {
        $0 + counts[$1] * cycle.payoff(beater, $1 - counts.startIndex)
      }
    }
    let best = beaters.map(value).max()!
    return cycle.weapons[beaters.filter { value($0) == best }.randomElement(using: &random)!]
  }
}

extension BotStrategy {
  /// Whether the strategy learns from the rounds (the others need only their count).
  var learns: Bool {
    switch self {
    case .random, .rock, .paper, .scissors, .cycle, .debruijn: false
    case .frequency, .frequency20, .frequency5, .markov, .markov2, .markov3, .beatLast, .mirror,
      .iocaine:
      true
    }
  }

  /// The longest context of a Markov strategy.
  var markovOrder: Int {
    switch self {
    case .markov2: 2
    case .markov3: 3
    default: 1
    }
  }
}
