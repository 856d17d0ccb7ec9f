/// What can happen to the lobby: players and spectators arriving, and any room action.
///
/// Invariant: every change to any room goes through one of these, so a journal of them
/// rebuilds the whole lobby.
public enum LobbyAction: Sendable, Equatable {
  /// A player joins `room` (nil: quick match), creating the room if needed.
  case join(room: String?, name: String, token: String, at: Int64)
  /// A spectator starts watching an existing room.
  case spectate(room: String)
  /// An action for one room.
  case room(String, RoomAction)
}
