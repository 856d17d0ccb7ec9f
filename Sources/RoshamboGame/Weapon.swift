/// A weapon a seat can pick. Its raw value is its name on the wire.
///
/// Invariant: which weapons a room allows, and which beats which, is the ruleset's
/// business (``Ruleset``), never the weapon's.
public enum Weapon: String, Sendable, CaseIterable, Hashable {
  case rock
  case paper
  case scissors
  case lizard
  case spock
}
