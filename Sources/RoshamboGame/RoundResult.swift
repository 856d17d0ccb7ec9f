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
  /// In a fair room, each seat's commitment (nil: none made); empty in an ordinary room.
  public var commitments: [String?]
  /// In a fair room, each seat's revealed nonce (nil: no matching reveal); empty in an
  /// ordinary room. With `weapons` and `commitments`, what any client needs to check the
  /// round itself (``Commitment``).
  public var nonces: [String?]
  /// When the round resolved (ms since 1970), if known: rounds of rooms saved before
  /// rounds had times, and rounds as a protocol-1 server sends them, have none.
  public var at: Int64?

  public init(
    round: Int, weapons: [Weapon?], winner: Seat?, reason: String?,
    commitments: [String?] = [], nonces: [String?] = [], at: Int64? = nil
  ) {
    self.round = round
    self.weapons = weapons
    self.winner = winner
    self.reason = reason
    self.commitments = commitments
    self.nonces = nonces
    self.at = at
  }

  /// Whether the round was played by commit–reveal.
  public var isFair: Bool { !commitments.isEmpty }

  /// `seat`'s commitment and nonce, in a fair round.
  public func commitment(of seat: Seat) -> String? {
    let index = seat.rawValue - 1
    return commitments.indices.contains(index) ? commitments[index] : nil
  }

  public func nonce(of seat: Seat) -> String? {
    let index = seat.rawValue - 1
    return nonces.indices.contains(index) ? nonces[index] : nil
  }

  /// The weapon `seat` played, or nil (none in time, or a round with fewer weapons).
  public func weapon(of seat: Seat) -> Weapon? {
    let index = seat.rawValue - 1
    return weapons.indices.contains(index) ? weapons[index] : nil
  }
}
