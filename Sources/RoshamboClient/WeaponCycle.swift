import RoshamboGame

/// A ruleset's weapons around a circle on which each weapon is beaten by the ones just
/// after it: rock, paper, scissors; rock, Spock, paper, lizard, scissors. The strategies
/// count moves as positions on this circle, and "the weapon that beats the one that beats
/// it" is a step further round it, so second-guessing is a rotation whatever the ruleset.
///
/// Invariant: with k weapons, the weapon at position i is beaten by those at i+1 … i+(k−1)/2
/// (mod k) and beats the others but itself, exactly as its ruleset says.
struct WeaponCycle: Sendable {
  let ruleset: Ruleset
  /// The weapons in circle order.
  let weapons: [Weapon]
  /// Row: my position, column: theirs; +1 I win, −1 I lose, 0 a draw.
  private let payoffs: [Int]

  static let classic = WeaponCycle(ruleset: .classic)
  static let lizardSpock = WeaponCycle(ruleset: .lizardSpock)

  /// The circle of a ruleset.
  static func of(_ ruleset: Ruleset) -> WeaponCycle {
    switch ruleset.id {
    case .classic: classic
    case .lizardSpock: lizardSpock
    }
  }

  private init(ruleset: Ruleset) {
    self.ruleset = ruleset
    guard let circle = Self.circle(ruleset) else {
      preconditionFailure("\(ruleset.id) is not a balanced ruleset of an odd number of weapons")
    }
    weapons = circle
    payoffs = circle.flatMap { mine in
      circle.map { theirs in
        switch ruleset.outcome(mine, theirs) {
        case .first: 1
        case .second: -1
        case .draw: 0
        }
      }
    }
  }

  /// The weapons in an order with each beaten by the next half of the circle: found by
  /// trying the orders that start with the ruleset's first weapon (at most 24 of them).
  private static func circle(_ ruleset: Ruleset) -> [Weapon]? {
    let all = ruleset.weapons
    guard let first = all.first, all.count >= 3, all.count % 2 == 1 else { return nil }
    let reach = (all.count - 1) / 2
    func fits(_ order: [Weapon]) -> Bool {
      order.indices.allSatisfy { i in
        (1...reach).allSatisfy { step in
          ruleset.rule(order[(i + step) % order.count], beats: order[i]) != nil
        }
      }
    }
    func extend(_ order: [Weapon], _ rest: [Weapon]) -> [Weapon]? {
      if rest.isEmpty { return fits(order) ? order : nil }
      for (index, next) in rest.enumerated() {
        var remaining = rest
        remaining.remove(at: index)
        if let found = extend(order + [next], remaining) { return found }
      }
      return nil
    }
    return extend([first], Array(all.dropFirst()))
  }

  var count: Int { weapons.count }

  /// Where `weapon` sits on the circle, or nil for a weapon of another ruleset.
  func position(of weapon: Weapon) -> Int? { weapons.firstIndex(of: weapon) }

  /// +1 if `mine` beats `theirs`, −1 if it loses to it, 0 for the same weapon.
  func payoff(_ mine: Int, _ theirs: Int) -> Int { payoffs[mine * count + theirs] }

  /// The positions of the weapons that beat the one at `position`, nearest first.
  func beaters(of position: Int) -> [Int] {
    (1...(count - 1) / 2).map { (position + $0) % count }
  }
}
