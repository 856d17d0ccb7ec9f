/// A room as one connection may see it: the values of the wire contract's `view` object
/// (plus the documented extension fields `spectators`, `rematch`, `left`, `reason` and,
/// for fair rooms, `fair`, `commitment`, `revealed`, `commitments` and `nonces`),
/// whose one wire form is in RoshamboProtocol (`RoomView+Wire.swift`).
///
/// Invariant: a view made for one audience holds no other seat's pick for a round that
/// is not resolved, and at most ``historyLimit`` rounds of history, so it always fits a frame. ``RoomState/view(for:)`` is the only way to make one from a room.
public struct RoomView: Sendable, Equatable {
  public var room: String
  public var ruleset: Ruleset.ID
  public var bestOf: Int
  public var phase: RoomState.Phase
  public var round: Int
  /// The viewer's seat, or nil for a spectator.
  public var you: Seat?
  public var players: [PlayerView]
  public var history: [RoundResult]
  public var winner: Seat?
  /// When the current round times out (ms since 1970), or nil.
  public var deadline: Int64?
  public var spectators: Int
  /// Seats that have asked for a rematch.
  public var rematch: [Seat]
  /// Whether the room plays by commit–reveal (extension field).
  public var fair: Bool
  /// In a tournament's room, where the tournament stands (extension field; nil in any
  /// other room, and from an older server).
  public var tournament: TournamentStage? = nil

  /// The tournament a room of it is part of, as its players and spectators see it: the
  /// same for every audience.
  public struct TournamentStage: Sendable, Equatable {
    public var kind: Tournament.Kind
    public var phase: Tournament.Phase
    /// The tournament's current round (this room's match may be of an earlier one).
    public var round: Int
    /// How many rounds it plays.
    public var rounds: Int
    /// When the next round is paired (ms since 1970, by the server's clock), once the
    /// current one is over; nil while its matches are played.
    public var startsAt: Int64?
    /// Who has a bye in the current round (at most ``maxByes``).
    public var byes: [String]
    public var champion: String?

    public init(
      kind: Tournament.Kind, phase: Tournament.Phase, round: Int, rounds: Int,
      startsAt: Int64? = nil, byes: [String] = [], champion: String? = nil
    ) {
      self.kind = kind
      self.phase = phase
      self.round = round
      self.rounds = rounds
      self.startsAt = startsAt
      self.byes = Array(byes.prefix(Self.maxByes))
      self.champion = champion
    }

    /// The most byes a stage lists (a round's byes past the first are all in round 1,
    /// when nobody is in a room yet).
    public static let maxByes = 8
  }

  public init(
    room: String, ruleset: Ruleset.ID, bestOf: Int, phase: RoomState.Phase, round: Int,
    you: Seat?, players: [PlayerView], history: [RoundResult], winner: Seat?, deadline: Int64?,
    spectators: Int = 0, rematch: [Seat] = [], fair: Bool = false
  ) {
    self.fair = fair
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

  /// The player in `seat`, if the seat is held.
  public func player(_ seat: Seat) -> PlayerView? { players.first { $0.seat == seat } }

  /// The other seat's player, in a view for a seat (nil for a spectator's view).
  public var opponent: PlayerView? { you.flatMap { player($0.opponent) } }

  /// The most rounds a view's `history` carries (the latest ones). Draws do not end a
  /// match, so without a bound two bots that always draw would, after about 900 rounds,
  /// need a `state` frame over the protocol's 64 KiB limit.
  public static let historyLimit = 100
}

/// One seat as a viewer sees it.
///
/// Invariant: `weapon` is non-nil only in the view made for this seat itself, and in a
/// fair room `commitment` only there too until both seats have committed.
public struct PlayerView: Sendable, Equatable {
  public var seat: Seat
  public var name: String
  public var connected: Bool
  public var chosen: Bool
  public var weapon: Weapon?
  public var score: Int
  /// The player gave the seat up (extension field).
  public var left: Bool
  /// How the seat was given up, when `left` and known (extension field `leftBy`): left,
  /// did not come back in time, or withdrew from the tournament.
  public var leftBy: RoomState.Leaving?
  /// In a fair room, the seat's commitment this round: shown to its own seat at once,
  /// and to everyone once both seats have committed (extension field).
  public var commitment: String?
  /// In a fair room, whether the seat has revealed this round (extension field).
  public var revealed: Bool

  public init(
    seat: Seat, name: String, connected: Bool, chosen: Bool, weapon: Weapon?, score: Int,
    left: Bool = false, leftBy: RoomState.Leaving? = nil, commitment: String? = nil,
    revealed: Bool = false
  ) {
    self.leftBy = left ? leftBy : nil
    self.commitment = commitment
    self.revealed = revealed
    self.seat = seat
    self.name = name
    self.connected = connected
    self.chosen = chosen
    self.weapon = weapon
    self.score = score
    self.left = left
  }

}

extension RoomState {
  /// The room as `viewer` may see it (nil: a spectator). This is the only way a room's
  /// state leaves the server, so it is where secrecy is enforced: only the viewer's own
  /// pick appears, and only until its round resolves (then it is in `history`).
  public func view(for viewer: Seat?) -> RoomView {
    let fair = settings.fair
    let revealing = isRevealing
    return RoomView(
      room: name,
      ruleset: settings.ruleset,
      bestOf: settings.bestOf,
      phase: phase,
      round: round,
      you: viewer,
      players: Seat.allCases.compactMap { seat in
        guard let held = seats[seat] else { return nil }
        return PlayerView(
          seat: seat, name: held.name, connected: held.connected,
          chosen: fair ? held.commitment != nil : held.pick != nil,
          weapon: seat == viewer ? held.pick : nil, score: held.score, left: held.hasLeft,
          leftBy: held.leftBy, commitment: revealing || seat == viewer ? held.commitment : nil,
          revealed: fair && held.hasRevealed)
      },
      history: Array(history.suffix(RoomView.historyLimit)),
      winner: winner,
      deadline: deadline,
      spectators: spectators,
      rematch: Seat.allCases.filter { seats[$0]?.wantsRematch == true },
      fair: fair)
  }
}
