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
