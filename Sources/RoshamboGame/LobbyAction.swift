/// What can happen to the lobby: players and spectators arriving, and any room action.
///
/// Invariant: every change to any room goes through one of these, so a journal of them
/// rebuilds the whole lobby.
public enum LobbyAction: Sendable, Equatable {
  /// A player joins `room` (nil: quick match), creating the room if needed: with the
  /// lobby's default settings, made fair when `fair` asks for it (a named room only).
  case join(room: String?, name: String, token: String, fair: Bool = false, at: Int64)
  /// A spectator starts watching an existing room.
  case spectate(room: String)
  /// An action for one room.
  case room(String, RoomAction)
  /// A new room (`duel-N`, see ``LobbyState/nextMatchRoom``) with these `settings`, both
  /// `players` seated in order, so their match starts at once: what an accepted
  /// challenge does.
  case openMatch(players: [Entrant], settings: RoomState.Settings, at: Int64)
  /// Something the lobby's tournament does.
  case tournament(TournamentAction)
  /// A name taken by a player's identity, or released by the host (``NameBook``).
  case names(NameAction)
  /// A player with an identity declined someone's challenges for the evening (kept so that
  /// a restart lifts no block; the hub's ``ChallengeBoard`` acts on it).
  case blocked(ChallengeBoard.Block)

  /// A player ``openMatch`` seats.
  public struct Entrant: Sendable, Equatable {
    public var name: String
    /// What the lobby stores for the player's resume token.
    public var token: String

    public init(name: String, token: String) {
      self.name = name
      self.token = token
    }
  }
}

/// What the lobby's tournament can be asked: opened, entered and left while it takes
/// entries, and each round paired and seated.
public enum TournamentAction: Sendable, Equatable {
  /// A new tournament takes entries (none may be running).
  case open(Tournament.Kind, settings: RoomState.Settings)
  case enter(name: String)
  case withdraw(name: String)
  /// The next round is paired (the first one starts the tournament) and its matches
  /// seated, each player with the token given for them here (what the lobby stores).
  case startRound(tokens: [String: String], at: Int64)
}
