/// What an accepted lobby action did: its rooms' events, rooms opened and closed, and
/// players quick match moved.
///
/// Invariant: every accepted action yields at least one `.room` event for the room it
/// concerns (``LobbyState/room(of:)``), or a `.tournament` event for one of the
/// tournament's, so a consumer that follows rooms needs nothing else.
public enum LobbyEvent: Sendable, Equatable {
  case room(String, RoomEvent)
  /// A join created the room.
  case opened(String)
  /// The room emptied and was removed.
  case closed(String)
  /// Quick match moved a player left alone to the room of the player who waited.
  case moved(Move)
  case tournament(TournamentEvent)

  /// What happened to the lobby's tournament.
  public enum TournamentEvent: Sendable, Equatable {
    case opened
    case entered(String)
    case withdrew(String)
    /// Round `round` was paired: its matches' rooms are open with both players seated.
    case roundPaired(Int)
    /// Every match of round `round` has a winner, and another round is to be played.
    case roundOver(Int)
    case finished(champion: String)
  }

  /// A player moved by quick match: from which room and seat, to which.
  public struct Move: Sendable, Equatable {
    /// What the lobby stores for the player's resume token (it moves with them).
    public var token: String
    public var from: String
    public var fromSeat: Seat
    /// The room they left as it ended for them (its last state before they went).
    public var lastState: RoomState
    public var to: String
    public var seat: Seat

    public init(
      token: String, from: String, fromSeat: Seat, lastState: RoomState, to: String, seat: Seat
    ) {
      self.token = token
      self.from = from
      self.fromSeat = fromSeat
      self.lastState = lastState
      self.to = to
      self.seat = seat
    }
  }
}
