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

extension JSONText {
  /// The lobby as the journal's snapshot stores it: the JSON that `LobbyState`'s
  /// `Codable` conformance reads, written by hand (for thousands of rooms `JSONEncoder`
  /// took a tenth of a second of a core that the game needs).
  mutating func lobby(_ lobby: LobbyState) {
    raw("{\"rooms\":{")
    for (index, (name, room)) in lobby.rooms.enumerated() {
      if index > 0 { comma() }
      string(name)
      raw(":")
      self.room(room)
    }
    raw("},")
    key("quickMatchRoom"); optionalString(lobby.quickMatchRoom); comma()
    key("nextQuickMatchNumber"); int(lobby.nextQuickMatchNumber); comma()
    key("defaults"); settings(lobby.defaults)
    raw("}")
  }

  private mutating func room(_ room: RoomState) {
    raw("{")
    key("name"); string(room.name); comma()
    key("settings"); settings(room.settings); comma()
    // A dictionary keyed by an Int-backed enum is a flat array: key, value, key, value.
    key("seats"); raw("[")
    for (index, seat) in Seat.allCases.filter({ room.seats[$0] != nil }).enumerated() {
      if index > 0 { comma() }
      int(seat.rawValue); comma()
      self.seat(room.seats[seat]!)
    }
    raw("],")
    key("spectators"); int(room.spectators); comma()
    key("round"); int(room.round); comma()
    key("history"); raw("[")
    for (index, result) in room.history.enumerated() {
      if index > 0 { comma() }
      raw("{")
      key("round"); int(result.round); comma()
      key("weapons"); weapons(result.weapons); comma()
      key("winner"); optionalInt(result.winner?.rawValue); comma()
      key("reason"); optionalString(result.reason)
      raw("}")
    }
    raw("],")
    key("phase"); string(room.phase.rawValue); comma()
    key("winner"); optionalInt(room.winner?.rawValue); comma()
    key("deadline"); optionalInt(room.deadline); comma()
    key("version"); int(room.version)
    raw("}")
  }

  private mutating func seat(_ seat: RoomState.SeatState) {
    raw("{")
    key("name"); string(seat.name); comma()
    key("token"); string(seat.token); comma()
    key("connected"); bool(seat.connected); comma()
    key("score"); int(seat.score); comma()
    key("pick"); optionalString(seat.pick?.rawValue); comma()
    key("graceEndsAt"); optionalInt(seat.graceEndsAt); comma()
    key("wantsRematch"); bool(seat.wantsRematch); comma()
    key("hasLeft"); bool(seat.hasLeft)
    raw("}")
  }

  private mutating func settings(_ settings: RoomState.Settings) {
    raw("{")
    key("ruleset"); string(settings.ruleset.rawValue); comma()
    key("bestOf"); int(settings.bestOf); comma()
    key("roundMillis"); int(settings.roundMillis); comma()
    key("graceMillis"); int(settings.graceMillis)
    raw("}")
  }
}
