import RoshamboGame
import RoshamboProtocol

extension JSONText {
  /// A lobby action as the journal stores it: the JSON that `LobbyAction`'s `Codable`
  /// conformance reads (what `JSONEncoder` would write), written by hand because the
  /// journal encodes one per accepted action on the hub's loop (13 µs with
  /// `JSONEncoder`).
  mutating func lobbyAction(_ action: LobbyAction) {
    switch action {
    case .join(let room, let name, let token, let at):
      raw("{\"join\":{")
      key("room"); optionalString(room); comma()
      key("name"); string(name); comma()
      key("token"); string(token); comma()
      key("at"); int(at)
      raw("}}")
    case .spectate(let room):
      raw("{\"spectate\":{")
      key("room"); string(room)
      raw("}}")
    case .room(let room, let action):
      raw("{\"room\":{")
      key("_0"); string(room); comma()
      key("_1"); roomAction(action)
      raw("}}")
    }
  }

  private mutating func roomAction(_ action: RoomAction) {
    switch action {
    case .playerJoined(let name, let token, let at):
      raw("{\"playerJoined\":{")
      key("name"); string(name); comma()
      key("token"); string(token); comma()
      key("at"); int(at)
    case .spectatorJoined:
      raw("{\"spectatorJoined\":{")
    case .spectatorLeft:
      raw("{\"spectatorLeft\":{")
    case .chose(let seat, let round, let weapon, let at):
      raw("{\"chose\":{")
      key("seat"); int(seat.rawValue); comma()
      key("round"); int(round); comma()
      key("weapon"); string(weapon.rawValue); comma()
      key("at"); int(at)
    case .disconnected(let seat, let at):
      raw("{\"disconnected\":{")
      seatAt(seat, at)
    case .reconnected(let seat, let at):
      raw("{\"reconnected\":{")
      seatAt(seat, at)
    case .left(let seat, let at):
      raw("{\"left\":{")
      seatAt(seat, at)
    case .deadlinePassed(let round, let at):
      raw("{\"deadlinePassed\":{")
      key("round"); int(round); comma()
      key("at"); int(at)
    case .graceExpired(let seat, let at):
      raw("{\"graceExpired\":{")
      seatAt(seat, at)
    case .rematchRequested(let seat, let at):
      raw("{\"rematchRequested\":{")
      seatAt(seat, at)
    }
    raw("}}")
  }

  private mutating func seatAt(_ seat: Seat, _ at: Int64) {
    key("seat"); int(seat.rawValue); comma()
    key("at"); int(at)
  }
}
