/// The rules of one game variant, as data: its weapons in key order and the list of
/// which weapon beats which, with the verb that says why.
///
/// Invariant: for any two different weapons of the ruleset exactly one beats the other
/// (checked by the tests for every pair), so ``outcome(_:_:)`` is total.
public struct Ruleset: Sendable, Equatable {
  /// The name of a ruleset on the wire and on the command line.
  public enum ID: String, Sendable, CaseIterable {
    case classic
    case lizardSpock
  }

  /// One rule: `winner` beats `loser`, and `verb` says how ("crushes").
  public struct Rule: Sendable, Equatable {
    public let winner: Weapon
    public let verb: String
    public let loser: Weapon

    /// "rock crushes scissors".
    public var sentence: String { "\(winner.rawValue) \(verb) \(loser.rawValue)" }
  }

  public let id: ID
  /// The weapons, in the order the keys `1`…`5` select them.
  public let weapons: [Weapon]
  public let rules: [Rule]
  private let ruleByPair: [Pair: Rule]

  private struct Pair: Hashable {
    let winner: Weapon
    let loser: Weapon
  }

  init(id: ID, weapons: [Weapon], rules: [(Weapon, String, Weapon)]) {
    self.id = id
    self.weapons = weapons
    self.rules = rules.map { Rule(winner: $0.0, verb: $0.1, loser: $0.2) }
    self.ruleByPair = Dictionary(
      uniqueKeysWithValues: self.rules.map { (Pair(winner: $0.winner, loser: $0.loser), $0) })
  }

  public static func == (lhs: Ruleset, rhs: Ruleset) -> Bool { lhs.id == rhs.id }

  /// Rock, paper, scissors.
  public static let classic = Ruleset(
    id: .classic,
    weapons: [.rock, .paper, .scissors],
    rules: [
      (.rock, "crushes", .scissors),
      (.paper, "covers", .rock),
      (.scissors, "cuts", .paper),
    ])

  /// Rock, paper, scissors, lizard, Spock (Sam Kass and Karen Bryla's variant).
  public static let lizardSpock = Ruleset(
    id: .lizardSpock,
    weapons: [.rock, .paper, .scissors, .lizard, .spock],
    rules: [
      (.scissors, "cuts", .paper),
      (.paper, "covers", .rock),
      (.rock, "crushes", .lizard),
      (.lizard, "poisons", .spock),
      (.spock, "smashes", .scissors),
      (.scissors, "decapitates", .lizard),
      (.lizard, "eats", .paper),
      (.paper, "disproves", .spock),
      (.spock, "vaporizes", .rock),
      (.rock, "crushes", .scissors),
    ])

  /// The ruleset with this name.
  public static func named(_ id: ID) -> Ruleset {
    switch id {
    case .classic: classic
    case .lizardSpock: lizardSpock
    }
  }

  /// Whether `weapon` is part of this ruleset.
  public func allows(_ weapon: Weapon) -> Bool { weapons.contains(weapon) }

  /// The rule by which `winner` beats `loser`, if it does.
  public func rule(_ winner: Weapon, beats loser: Weapon) -> Rule? {
    ruleByPair[Pair(winner: winner, loser: loser)]
  }

  /// Who wins when the first seat picks `first` and the second picks `second`.
  public func outcome(_ first: Weapon, _ second: Weapon) -> Outcome {
    if let rule = rule(first, beats: second) { return .first(rule) }
    if let rule = rule(second, beats: first) { return .second(rule) }
    return .draw
  }

  /// Who takes a round in which the first seat played `first` and the second `second`
  /// (nil: no pick in time, or no reveal that matched), and the rule that decided it: a
  /// missing pick loses, two missing draw. The server's rules and every client's check of
  /// a fair round decide by this one function.
  public func decide(_ first: Weapon?, _ second: Weapon?) -> (winner: Seat?, rule: Rule?) {
    switch (first, second) {
    case (let a?, let b?):
      switch outcome(a, b) {
      case .first(let rule): (.one, rule)
      case .second(let rule): (.two, rule)
      case .draw: (nil, nil)
      }
    case (.some, nil): (.one, nil)
    case (nil, .some): (.two, nil)
    case (nil, nil): (nil, nil)
    }
  }

  /// The result of two picks.
  public enum Outcome: Sendable, Equatable {
    case first(Rule)
    case second(Rule)
    case draw
  }
}
