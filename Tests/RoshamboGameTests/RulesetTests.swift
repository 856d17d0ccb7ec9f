import RoshamboGame
import Testing

@Suite("Rulesets")
struct RulesetTests {
  /// Every rule of each ruleset, written out as people say it.
  static let classicSentences: Set<String> = [
    "rock crushes scissors", "paper covers rock", "scissors cuts paper",
  ]
  static let lizardSpockSentences: Set<String> = [
    "scissors cuts paper", "paper covers rock", "rock crushes lizard", "lizard poisons spock",
    "spock smashes scissors", "scissors decapitates lizard", "lizard eats paper",
    "paper disproves spock", "spock vaporizes rock", "rock crushes scissors",
  ]

  static func expectedOutcome(
    _ a: Weapon, _ b: Weapon, in sentences: Set<String>
  ) -> (winner: Int, sentence: String?) {
    if a == b { return (0, nil) }
    if let s = sentences.first(where: {
      $0.hasPrefix(a.rawValue + " ") && $0.hasSuffix(" " + b.rawValue)
    }) {
      return (1, s)
    }
    if let s = sentences.first(where: {
      $0.hasPrefix(b.rawValue + " ") && $0.hasSuffix(" " + a.rawValue)
    }) {
      return (2, s)
    }
    return (-1, nil)
  }

  @Test(
    "every ordered pair of weapons has the expected outcome and verb",
    arguments: [Ruleset.classic, Ruleset.lizardSpock])
  func everyPair(ruleset: Ruleset) {
    let sentences = ruleset.id == .classic ? Self.classicSentences : Self.lizardSpockSentences
    #expect(Set(ruleset.rules.map(\.sentence)) == sentences)
    for a in ruleset.weapons {
      for b in ruleset.weapons {
        let expected = Self.expectedOutcome(a, b, in: sentences)
        #expect(expected.winner >= 0, "\(a) vs \(b) must be decided by exactly one rule")
        switch ruleset.outcome(a, b) {
        case .draw:
          #expect(expected.winner == 0, "\(a) vs \(b)")
        case .first(let rule):
          #expect(expected.winner == 1 && rule.sentence == expected.sentence, "\(a) vs \(b)")
        case .second(let rule):
          #expect(expected.winner == 2 && rule.sentence == expected.sentence, "\(a) vs \(b)")
        }
      }
    }
  }

  @Test("each weapon beats exactly half of the others", arguments: [Ruleset.classic, .lizardSpock])
  func balanced(ruleset: Ruleset) {
    for weapon in ruleset.weapons {
      let beaten = ruleset.weapons.filter { ruleset.rule(weapon, beats: $0) != nil }
      #expect(beaten.count == (ruleset.weapons.count - 1) / 2, "\(weapon)")
    }
  }

  @Test("a ruleset allows only its own weapons")
  func allows() {
    #expect(Ruleset.classic.allows(.rock))
    #expect(!Ruleset.classic.allows(.lizard))
    #expect(!Ruleset.classic.allows(.spock))
    #expect(Ruleset.lizardSpock.allows(.spock))
  }
}
