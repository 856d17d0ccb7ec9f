import RoshamboGame

/// How a bot picks, from the rounds it has seen. Pure: the randomness comes in.
///
/// Invariant: a strategy only ever picks a weapon of the room's ruleset.
public enum BotStrategy: String, CaseIterable, Sendable {
  case random, rock, paper, scissors, cycle, frequency, markov

  /// The pick for the next round, given the resolved rounds (oldest first) and which
  /// seat this bot is.
  public func pick(
    history: [RoundResult], seat: Seat, ruleset: Ruleset, random: inout some RandomNumberGenerator
  ) -> Weapon {
    let weapons = ruleset.weapons
    let theirs = history.compactMap { $0.weapon(of: seat.opponent) }
    switch self {
    case .random:
      return weapons.randomElement(using: &random)!
    case .rock: return .rock
    case .paper: return .paper
    case .scissors: return .scissors
    case .cycle:
      return weapons[history.count % weapons.count]
    case .frequency:
      // Beat what the opponent has played most.
      guard let favourite = mostCommon(theirs) else {
        return weapons.randomElement(using: &random)!
      }
      return counter(to: favourite, in: ruleset, random: &random)
    case .markov:
      // Predict the opponent's next from what followed their last pick before.
      guard let last = theirs.last, theirs.count >= 2 else {
        return weapons.randomElement(using: &random)!
      }
      let followers = zip(theirs, theirs.dropFirst()).filter { $0.0 == last }.map(\.1)
      guard let predicted = mostCommon(followers) else {
        return weapons.randomElement(using: &random)!
      }
      return counter(to: predicted, in: ruleset, random: &random)
    }
  }

  /// The weapon that occurs most often (ties go to the name first in the alphabet, so
  /// the choice is deterministic), or nil for none.
  func mostCommon(_ weapons: [Weapon]) -> Weapon? {
    var counts: [Weapon: Int] = [:]
    for weapon in weapons { counts[weapon, default: 0] += 1 }
    let ranked = counts.sorted { a, b in
      a.value != b.value ? a.value > b.value : a.key.rawValue < b.key.rawValue
    }
    return ranked.first?.key
  }

  /// A weapon that beats `weapon` (a random one of them, if several do).
  func counter(to weapon: Weapon, in ruleset: Ruleset, random: inout some RandomNumberGenerator)
    -> Weapon
  {
    let beaters = ruleset.weapons.filter { ruleset.rule($0, beats: weapon) != nil }
    return beaters.randomElement(using: &random) ?? weapon
  }
}
