/// Everything about one room: who sits where, the hidden picks, the score, the history
/// and the phase of its match. The server holds it; clients only ever see a ``RoomView``.
///
/// Invariants: `version` rises by exactly one with every accepted action, when the
/// tournament the room belongs to moves on (``tournamentMovedOn()``), and when a seat is
/// given up as a walkover (``walkOver(_:at:)``), and never otherwise; a seat's `pick` is only non-nil while `phase` is `.choosing`; no seat's
/// score exceeds `winsNeeded`; `history` holds at most ``RoomView/historyLimit`` rounds
/// (the latest), so a room's size is bounded however long its match runs.
public struct RoomState: Sendable, Equatable {
  /// The phase of the room's match.
  public enum Phase: String, Sendable {
    /// Fewer than two seats are taken.
    case waiting
    /// Both seats are taken and the current round is open for picks.
    case choosing
    /// A seat has won the match (or the other forfeited).
    case over
  }

  /// How a seat was given up: what a screen says of the one who forfeited.
  public enum Leaving: String, Sendable {
    /// The player left the seat.
    case left = "leave"
    /// The player did not come back within the grace period.
    case timedOut = "grace"
    /// The player had withdrawn from the tournament the match belongs to: a walkover.
    case withdrew = "withdraw"
  }

  /// A taken seat.
  public struct SeatState: Sendable, Equatable {
    public var name: String
    /// The secret that lets the holder take the seat back after a dropped connection.
    public var token: String
    public var connected: Bool
    public var score: Int
    /// The pick for the current round; hidden from everyone else until it resolves.
    public var pick: Weapon?
    /// When this seat's reconnection grace ends (ms since 1970), while disconnected.
    public var graceEndsAt: Int64?
    /// Whether this seat has asked for a rematch since the match ended.
    public var wantsRematch: Bool
    /// Whether the player gave the seat up (left, or never came back) and forfeited.
    /// The seat stays to show the result, and a new player may take it.
    public var hasLeft: Bool
    /// How the seat was given up, once it has (nil for one given up before servers kept
    /// it).
    public var leftBy: Leaving?
    /// In a fair room, the seat's commitment for the current round: the SHA-256 digest
    /// (64 lower-case hex digits) of its weapon and nonce (``Commitment``).
    public var commitment: String?
    /// In a fair room, the nonce the seat revealed with its weapon this round.
    public var nonce: String?
    /// In a fair room, whether the seat's reveal did not match its commitment this round
    /// (it loses the round).
    public var revealFailed: Bool

    public init(name: String, token: String, connected: Bool = true, score: Int = 0) {
      self.name = name
      self.token = token
      self.connected = connected
      self.score = score
      self.pick = nil
      self.graceEndsAt = nil
      self.wantsRematch = false
      self.hasLeft = false
      self.leftBy = nil
      self.commitment = nil
      self.nonce = nil
      self.revealFailed = false
    }

    /// Whether the seat has done what this stage of the round asks: picked (an ordinary
    /// room), committed, or revealed or failed to (a fair room's reveal stage).
    var hasRevealed: Bool { pick != nil || revealFailed }
  }

  /// How a room plays: the ruleset, the match length and the clocks.
  public struct Settings: Sendable, Equatable {
    public var ruleset: Ruleset.ID
    /// Rounds in a match; odd, at least 1.
    public var bestOf: Int
    /// How long a round may last, in ms; 0 for no deadline.
    public var roundMillis: Int64
    /// How long a disconnected seat is held, in ms.
    public var graceMillis: Int64
    /// Whether rounds are played by commit–reveal (``Commitment``), so that the server
    /// never holds a weapon before both seats are bound to theirs.
    public var fair: Bool
    /// In a fair room, how long seats have to reveal once both commitments are in, in
    /// ms (always limited: a seat that commits and never reveals must not hold the room).
    public var revealMillis: Int64

    public init(
      ruleset: Ruleset.ID = .classic, bestOf: Int = 3, roundMillis: Int64 = 0,
      graceMillis: Int64 = 30_000, fair: Bool = false, revealMillis: Int64 = 30_000
    ) {
      self.ruleset = ruleset
      self.bestOf = bestOf
      self.roundMillis = roundMillis
      self.graceMillis = graceMillis
      self.fair = fair
      self.revealMillis = revealMillis
    }

    /// Whether these settings make a playable match.
    public var isValid: Bool {
      bestOf >= 1 && bestOf % 2 == 1 && bestOf <= 99 && roundMillis >= 0 && graceMillis >= 0
        && revealMillis > 0
    }
  }

  public let name: String
  public var settings: Settings
  public var seats: [Seat: SeatState]
  public var spectators: Int
  /// The round being played (1-based).
  public var round: Int
  public var history: [RoundResult]
  public var phase: Phase
  public var winner: Seat?
  /// When the current round times out (ms since 1970), or nil.
  public var deadline: Int64?
  public var version: Int

  /// An empty room, waiting for players.
  public init(name: String, settings: Settings = Settings()) {
    self.name = name
    self.settings = settings
    self.seats = [:]
    self.spectators = 0
    self.round = 1
    self.history = []
    self.phase = .waiting
    self.winner = nil
    self.deadline = nil
    self.version = 0
  }

  /// Spectators one room takes: each one is a state to encode and send on every change,
  /// so a crowd in one room must not slow every other room down.
  public static let maxSpectators = 100

  /// The room's ruleset.
  public var ruleset: Ruleset { Ruleset.named(settings.ruleset) }

  /// Rounds a seat must win to take the match: `bestOf / 2 + 1`.
  public var winsNeeded: Int { settings.bestOf / 2 + 1 }

  /// The first seat a new player may take: empty, or given up by a player who left.
  public var freeSeat: Seat? {
    Seat.allCases.first { seats[$0] == nil || seats[$0]!.hasLeft }
  }

  /// The seat of a player alone in the room, waiting for an opponent: the one seat held
  /// while the other is empty or was given up (whatever the phase: a finished match
  /// stays on show until someone takes the free seat).
  public var loneSeat: Seat? {
    let present = Seat.allCases.filter { seats[$0].map { !$0.hasLeft } ?? false }
    return present.count == 1 ? present[0] : nil
  }

  /// Whether a connected player sits alone here, waiting for an opponent.
  public var hasPlayerWaiting: Bool { loneSeat.map { seats[$0]!.connected } ?? false }

  /// The seat that holds `token`, if any (a seat given up holds none).
  public func seat(holding token: String) -> Seat? {
    Seat.allCases.first { seats[$0].map { !$0.hasLeft && $0.token == token } ?? false }
  }

  /// In a fair room, whether the round is in its reveal stage: both seats have committed.
  public var isRevealing: Bool {
    settings.fair && phase == .choosing && seats.count == 2
      && seats.values.allSatisfy { $0.commitment != nil }
  }

  /// Whether nobody is in the room: no seat held and no spectator.
  public var isEmpty: Bool {
    spectators == 0 && seats.values.allSatisfy(\.hasLeft)
  }
}
