import RoshamboGame
import RoshamboJSON

extension JSONText {
  /// A round's weapons by seat, `null` for a seat that did not pick.
  package mutating func weapons(_ weapons: [Weapon?]) {
    raw("[")
    for (index, weapon) in weapons.enumerated() {
      if index > 0 { comma() }
      optionalString(weapon?.rawValue)
    }
    raw("]")
  }
}
