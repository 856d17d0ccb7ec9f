import RoshamboGame
import RoshamboJSON
import RoshamboProtocol

extension JournalFormat {
  /// Format 1, read only to migrate a data directory written before format 2: the shape
  /// the game types' synthesized `Codable` gave (a case's name as the key of a one-key
  /// object, unlabeled values as `_0`, `_1`; a seat dictionary as `[seat, value, …]`;
  /// an absent optional the same as `null`). Frozen here: it no longer follows the
  /// Swift types, which may change.
  public enum Version1 {
    /// The action a format 1 row holds.
    public static func action(from bytes: some Collection<UInt8>) throws -> LobbyAction {
      try JSONReader.withBuffer(bytes) { buffer in
        try JSONReader.read(buffer) { try $0.version1Action() }
      }
    }

    /// The lobby a format 1 snapshot holds.
    public static func lobby(from bytes: some Collection<UInt8>) throws -> LobbyState {
      try JSONReader.withBuffer(bytes) { buffer in
        try JSONReader.read(buffer) { try $0.version1Lobby() }
      }
    }
  }
}

extension JSONReader {
  /// `{"case": {fields}}`: the case's name and its fields, read by `fields`.
  private mutating func version1Case<T>(
    _ fields: (inout JSONReader, String) throws -> T
  ) throws -> T {
    var result: T?
    try object { reader, key in
      guard result == nil else { throw reader.failure("a format 1 action with two cases") }
      result = try fields(&reader, key)
    }
    guard let result else { throw failure("a format 1 action with no case") }
    return result
  }

  /// The fields of one case, by name (only integers, strings and null occur).
  private mutating func version1Fields() throws -> [String: Version1Value] {
    var fields: [String: Version1Value] = [:]
    try object { reader, key in
      switch try reader.kind() {
      case .string: fields[key] = .text(try reader.string())
      case .number: fields[key] = .number(try reader.int())
      default: try reader.skipValue()
      }
    }
    return fields
  }

  fileprivate mutating func version1Action() throws -> LobbyAction {
    try version1Case { reader, name in
      switch name {
      case "join":
        let fields = try reader.version1Fields()
        return .join(
          room: fields.text("room"), name: try fields.required("name", reader),
          token: try fields.required("token", reader), at: Int64(try fields.number("at", reader)))
      case "spectate":
        return .spectate(room: try reader.version1Fields().required("room", reader))
      case "room":
        var room: String?
        var action: RoomAction?
        try reader.object { reader, key in
          switch key {
          case "_0": room = try reader.string()
          case "_1": action = try reader.version1RoomAction()
          default: try reader.skipValue()
          }
        }
        guard let room, let action else { throw reader.failure("a room action without _0 or _1") }
        return .room(room, action)
      default:
        throw reader.failure("a format 1 action of unknown case \"\(name.prefix(32))\"")
      }
    }
  }

  private mutating func version1RoomAction() throws -> RoomAction {
    try version1Case { reader, name in
      let fields = try reader.version1Fields()
      func seat() throws -> Seat {
        guard let seat = Seat(rawValue: try fields.number("seat", reader)) else {
          throw reader.failure("a seat must be 1 or 2")
        }
        return seat
      }
      func at() throws -> Int64 { Int64(try fields.number("at", reader)) }
      switch name {
      case "playerJoined":
        return .playerJoined(
          name: try fields.required("name", reader), token: try fields.required("token", reader),
          at: try at())
      case "spectatorJoined": return .spectatorJoined
      case "spectatorLeft": return .spectatorLeft
      case "chose":
        guard let weapon = Weapon(rawValue: try fields.required("weapon", reader)) else {
          throw reader.failure("not a weapon")
        }
        return .chose(
          seat: try seat(), round: try fields.number("round", reader), weapon: weapon, at: try at())
      case "disconnected": return .disconnected(seat: try seat(), at: try at())
      case "reconnected": return .reconnected(seat: try seat(), at: try at())
      case "left": return .left(seat: try seat(), at: try at())
      case "deadlinePassed":
        return .deadlinePassed(round: try fields.number("round", reader), at: try at())
      case "graceExpired": return .graceExpired(seat: try seat(), at: try at())
      case "rematchRequested": return .rematchRequested(seat: try seat(), at: try at())
      default:
        throw reader.failure("a format 1 room action of unknown case \"\(name.prefix(32))\"")
      }
    }
  }

  fileprivate mutating func version1Lobby() throws -> LobbyState {
    var rooms: [String: RoomState]?
    var quickMatchRoom: String?
    var next: Int?
    var defaults: RoomState.Settings?
    try object { reader, key in
      switch key {
      case "rooms":
        var found: [String: RoomState] = [:]
        try reader.object { reader, name in
          let room = try reader.journalRoom(format: 1)
          // The key is the room's name; a snapshot where they differ is damaged.
          guard room.name == name else {
            throw reader.failure(
              "a format 1 snapshot lists room \(room.name.prefix(32)) under \(name.prefix(32))")
          }
          found[name] = room
        }
        rooms = found
      case "quickMatchRoom": quickMatchRoom = try reader.optionalString()
      case "nextQuickMatchNumber": next = try reader.int()
      case "defaults": defaults = try reader.journalSettings()
      default: try reader.skipValue()
      }
    }
    guard let rooms, let next, let defaults else {
      throw failure("a format 1 snapshot without one of rooms, nextQuickMatchNumber, defaults")
    }
    var lobby = LobbyState(defaults: defaults)
    lobby.rooms = rooms
    lobby.quickMatchRoom = quickMatchRoom
    lobby.nextQuickMatchNumber = next
    return lobby
  }
}

/// A field's value in a format 1 action.
private enum Version1Value {
  case text(String)
  case number(Int)
}

extension [String: Version1Value] {
  fileprivate func text(_ key: String) -> String? {
    if case .text(let text) = self[key] { text } else { nil }
  }

  fileprivate func required(_ key: String, _ reader: JSONReader) throws -> String {
    guard let text = text(key) else { throw reader.failure("a format 1 action without \(key)") }
    return text
  }

  fileprivate func number(_ key: String, _ reader: JSONReader) throws -> Int {
    guard case .number(let number) = self[key] else {
      throw reader.failure("a format 1 action without \(key)")
    }
    return number
  }
}
