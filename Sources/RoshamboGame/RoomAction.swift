/// Everything that can happen to a room. Time arrives inside the action (`at`, ms since
/// 1970), never from a clock, so folding the same actions always gives the same room.
///
/// Invariant: an action names the seat it concerns; the server attaches it from the
/// connection, a client never names its own seat.
public enum RoomAction: Sendable, Equatable {
  /// A player takes the first free seat with this name and resume token.
  case playerJoined(name: String, token: String, at: Int64)
  case spectatorJoined
  case spectatorLeft
  /// A seat picks a weapon for the named round.
  case chose(seat: Seat, round: Int, weapon: Weapon, at: Int64)
  /// In a fair room, a seat commits to a weapon for the named round without saying it:
  /// `digest` is the ``Commitment`` (64 lower-case hex digits).
  case committed(seat: Seat, round: Int, digest: String, at: Int64)
  /// In a fair room, a seat reveals its weapon and nonce once both seats have committed.
  /// `matches` says whether they hash to the seat's commitment; the server computes it
  /// (SHA-256 is not the reducer's business), so the fold stays pure and replayable. A
  /// reveal that does not match loses the round for that seat.
  case revealed(seat: Seat, round: Int, weapon: Weapon, nonce: String, matches: Bool, at: Int64)
  /// A seat's connection dropped; its grace period starts.
  case disconnected(seat: Seat, at: Int64)
  /// A seat was taken back with its token.
  case reconnected(seat: Seat, at: Int64)
  /// A seat was taken back without its token by the one its name belongs to (the token
  /// never reached them, or the server restarted since and kept only its hash): `token`,
  /// the hash of a new one, replaces the old.
  case tokenRenewed(seat: Seat, token: String, at: Int64)
  /// A seat was given up on purpose (forfeit if the match is running).
  case left(seat: Seat, at: Int64)
  /// The current round's deadline has come: missing picks lose the round.
  case deadlinePassed(round: Int, at: Int64)
  /// A disconnected seat's grace has run out: forfeit if the match is running.
  case graceExpired(seat: Seat, at: Int64)
  /// A seat asks for a new match in the same room once the match is over.
  case rematchRequested(seat: Seat, at: Int64)
}
