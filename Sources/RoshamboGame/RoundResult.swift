/// A resolved round: both weapons (nil for a seat that let the deadline pass), the
/// winning seat or nil for a draw, and the rule that decided it. The room's history and
/// every view of it hold the same values.
///
/// Invariant: `weapons` is indexed by seat (`weapons[0]` is seat 1's).
public struct RoundResult: Sendable, Equatable {
  public var round: Int
  public var weapons: [Weapon?]
  /// The winning seat, or nil for a draw.
  public var winner: Seat?
  /// The rule that decided it, as a sentence ("rock crushes scissors"), if one did.
  public var reason: String?

  public init(round: Int, weapons: [Weapon?], winner: Seat?, reason: String?) {
    self.round = round
    self.weapons = weapons
    self.winner = winner
    self.reason = reason
  }

  /// The weapon `seat` played, or nil (none in time, or a round with fewer weapons).
  public func weapon(of seat: Seat) -> Weapon? {
    let index = seat.rawValue - 1
    return weapons.indices.contains(index) ? weapons[index] : nil
  }
}
