/// A room as one connection may see it: exactly the `view` object of the wire contract
/// (plus the documented extension fields `spectators`, `rematch`, `left` and `reason`).
///
/// Invariant: a view made for one audience holds no other seat's pick for a round that
/// is not resolved, and at most ``historyLimit`` rounds of history, so it always fits a frame. ``RoomState/view(for:)`` is the only way to make one from a room.
public struct RoomView: Codable, Sendable, Equatable {
  public var room: String
  public var ruleset: Ruleset.ID
  public var bestOf: Int
  public var phase: RoomState.Phase
  public var round: Int
  /// The viewer's seat, or nil for a spectator.
  public var you: Seat?
  public var players: [PlayerView]
  public var history: [RoundView]
  public var winner: Seat?
  /// When the current round times out (ms since 1970), or nil.
  public var deadline: Int64?
  public var spectators: Int
  /// Seats that have asked for a rematch.
  public var rematch: [Seat]

  public init(
    room: String, ruleset: Ruleset.ID, bestOf: Int, phase: RoomState.Phase, round: Int,
    you: Seat?, players: [PlayerView], history: [RoundView], winner: Seat?, deadline: Int64?,
    spectators: Int = 0, rematch: [Seat] = []
  ) {
    self.room = room
    self.ruleset = ruleset
    self.bestOf = bestOf
    self.phase = phase
    self.round = round
    self.you = you
    self.players = players
    self.history = history
    self.winner = winner
    self.deadline = deadline
    self.spectators = spectators
    self.rematch = rematch
  }

  enum CodingKeys: String, CodingKey {
    case room, ruleset, bestOf, phase, round, you, players, history, winner, deadline
    case spectators, rematch
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    room = try c.decode(String.self, forKey: .room)
    ruleset = try c.decode(Ruleset.ID.self, forKey: .ruleset)
    bestOf = try c.decode(Int.self, forKey: .bestOf)
    phase = try c.decode(RoomState.Phase.self, forKey: .phase)
    round = try c.decode(Int.self, forKey: .round)
    you = try c.decodeIfPresent(Seat.self, forKey: .you)
    players = try c.decode([PlayerView].self, forKey: .players)
    history = try c.decode([RoundView].self, forKey: .history)
    winner = try c.decodeIfPresent(Seat.self, forKey: .winner)
    deadline = try c.decodeIfPresent(Int64.self, forKey: .deadline)
    spectators = try c.decodeIfPresent(Int.self, forKey: .spectators) ?? 0
    rematch = try c.decodeIfPresent([Seat].self, forKey: .rematch) ?? []
  }

  /// Encodes every field of the contract, `null` included, so that clients in any
  /// language find each key.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(room, forKey: .room)
    try c.encode(ruleset, forKey: .ruleset)
    try c.encode(bestOf, forKey: .bestOf)
    try c.encode(phase, forKey: .phase)
    try c.encode(round, forKey: .round)
    try c.encode(you, forKey: .you)
    try c.encode(players, forKey: .players)
    try c.encode(history, forKey: .history)
    try c.encode(winner, forKey: .winner)
    try c.encode(deadline, forKey: .deadline)
    try c.encode(spectators, forKey: .spectators)
    try c.encode(rematch, forKey: .rematch)
  }

  /// The player in `seat`, if the seat is held.
  public func player(_ seat: Seat) -> PlayerView? { players.first { $0.seat == seat } }

  /// The most rounds a view's `history` carries (the latest ones). Draws do not end a
  /// match, so without a bound two bots that always draw would, after about 900 rounds,
  /// need a `state` frame over the protocol's 64 KiB limit.
  public static let historyLimit = 100
}

/// One seat as a viewer sees it.
///
/// Invariant: `weapon` is non-nil only in the view made for this seat itself.
public struct PlayerView: Codable, Sendable, Equatable {
  public var seat: Seat
  public var name: String
  public var connected: Bool
  public var chosen: Bool
  public var weapon: Weapon?
  public var score: Int
  /// The player gave the seat up (extension field).
  public var left: Bool

  public init(
    seat: Seat, name: String, connected: Bool, chosen: Bool, weapon: Weapon?, score: Int,
    left: Bool = false
  ) {
    self.seat = seat
    self.name = name
    self.connected = connected
    self.chosen = chosen
    self.weapon = weapon
    self.score = score
    self.left = left
  }

  enum CodingKeys: String, CodingKey {
    case seat, name, connected, chosen, weapon, score, left
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    seat = try c.decode(Seat.self, forKey: .seat)
    name = try c.decode(String.self, forKey: .name)
    connected = try c.decode(Bool.self, forKey: .connected)
    chosen = try c.decode(Bool.self, forKey: .chosen)
    weapon = try c.decodeIfPresent(Weapon.self, forKey: .weapon)
    score = try c.decode(Int.self, forKey: .score)
    left = try c.decodeIfPresent(Bool.self, forKey: .left) ?? false
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(seat, forKey: .seat)
    try c.encode(name, forKey: .name)
    try c.encode(connected, forKey: .connected)
    try c.encode(chosen, forKey: .chosen)
    try c.encode(weapon, forKey: .weapon)
    try c.encode(score, forKey: .score)
    try c.encode(left, forKey: .left)
  }
}

/// A resolved round: both weapons (null for a seat that let the deadline pass) and the
/// winning seat, `0` on the wire for a draw.
public struct RoundView: Codable, Sendable, Equatable {
  public var round: Int
  public var weapons: [Weapon?]
  /// The winning seat, or nil for a draw.
  public var winner: Seat?
  /// The rule that decided it ("rock crushes scissors"), if one did (extension field).
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

  enum CodingKeys: String, CodingKey {
    case round, weapons, winner, reason
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    round = try c.decode(Int.self, forKey: .round)
    weapons = try c.decode([Weapon?].self, forKey: .weapons)
    let seat = try c.decode(Int.self, forKey: .winner)
    guard seat == 0 || Seat(rawValue: seat) != nil else {
      throw DecodingError.dataCorruptedError(
        forKey: .winner, in: c, debugDescription: "winner must be 0, 1 or 2, not \(seat)")
    }
    winner = Seat(rawValue: seat)
    reason = try c.decodeIfPresent(String.self, forKey: .reason)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(round, forKey: .round)
    try c.encode(weapons, forKey: .weapons)
    try c.encode(winner?.rawValue ?? 0, forKey: .winner)
    try c.encode(reason, forKey: .reason)
  }
}

extension RoomState {
  /// The room as `viewer` may see it (nil: a spectator). This is the only way a room's
  /// state leaves the server, so it is where secrecy is enforced: only the viewer's own
  /// pick appears, and only until its round resolves (then it is in `history`).
  public func view(for viewer: Seat?) -> RoomView {
    RoomView(
      room: name,
      ruleset: settings.ruleset,
      bestOf: settings.bestOf,
      phase: phase,
      round: round,
      you: viewer,
      players: Seat.allCases.compactMap { seat in
        guard let held = seats[seat] else { return nil }
        return PlayerView(
          seat: seat, name: held.name, connected: held.connected, chosen: held.pick != nil,
          weapon: seat == viewer ? held.pick : nil, score: held.score, left: held.hasLeft)
      },
      history: history.suffix(RoomView.historyLimit).map {
        RoundView(round: $0.round, weapons: $0.weapons, winner: $0.winner, reason: $0.reason)
      },
      winner: winner,
      deadline: deadline,
      spectators: spectators,
      rematch: Seat.allCases.filter { seats[$0]?.wantsRematch == true })
  }
}
