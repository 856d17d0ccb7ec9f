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
}
