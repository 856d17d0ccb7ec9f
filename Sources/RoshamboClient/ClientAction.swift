import RoshamboGame
import RoshamboProtocol

/// Everything that happens to a client: from the server, from the keys, from the clock.
public enum ClientAction: Equatable, Sendable {
  case connection(ClientContext.Connection)
  case welcome(room: String, seat: Seat?, token: String?)
  case synced(view: RoomView, seq: Int)
  case serverError(ProtocolError)
  /// The player picks (sent by middleware; shown as pending at once).
  case choose(Weapon)
  case rematch
  case quit
  case tick(now: Int64)
  /// A `pong` came back this long after its `ping`.
  case roundTrip(millis: Double)
}
