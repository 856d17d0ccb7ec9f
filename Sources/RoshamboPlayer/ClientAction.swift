import RoshamboGame
import RoshamboProtocol

/// Everything that happens to a client: from the server, from the keys, from the clock.
public enum ClientAction: Equatable, Sendable {
  case connection(ClientContext.Connection)
  case welcome(room: String, seat: Seat?, token: String?)
  case synced(view: RoomView, seq: Int)
  case serverError(ProtocolError)
  /// The player picks (shown as pending at once; the reducer returns it to send). In a
  /// fair room the session turns it into ``commit(_:nonce:)`` with a fresh nonce.
  case choose(Weapon)
  /// In a fair room: commit to `weapon` with `nonce` (64 hex digits, from `RAND_bytes`).
  case commit(Weapon, nonce: String)
  /// The server broke the protocol (the intake's words): the connection ends. In a fair
  /// room, a round this client committed in that can now never be checked is a lie.
  case brokeProtocol(String)
  /// The evidence of a server's lie was written to this file.
  case evidenceSaved(path: String)
  /// Time to send again what the server could not save (``ClientEffect/retryLater``),
  /// if the view still shows it missing.
  case retryUnsaved
  case rematch
  case quit
  /// A line for the player from this client itself (a question, a hint), or nil to clear.
  case notice(String?)
  case tick(now: Int64)
  /// The server said it is closing: at `closesAt`, ms since 1970 by this client's clock.
  case serverClosing(closesAt: Int64)
  /// A `pong` came back this long after its `ping`.
  case roundTrip(millis: Double)
}
