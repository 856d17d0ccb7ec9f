import RoshamboGame

/// A message from the server, as the contract defines it.
///
/// Invariant: a `state` message's encoded length does not depend on the receiving seat's
/// own hidden pick (it is padded to the longest weapon), so neither do its TLS records.
public enum ServerMessage: Sendable, Equatable {
  case welcome(room: String, seat: Seat?, token: String?)
  case state(seq: Int, view: RoomView)
  case error(ProtocolError, re: Int?)
  case pong(id: Int?)

  /// The message as JSON bytes (see the invariant above for `state`).
  public func encoded() -> [UInt8] {
    var json = JSONText()
    switch self {
    case .welcome(let room, let seat, let token):
      json.raw("{\"type\":\"welcome\",")
      json.key("protocol"); json.int(WireProtocol.version); json.comma()
      json.key("room"); json.string(room); json.comma()
      json.key("seat"); json.optionalInt(seat?.rawValue)  // null for spectators
      if let token { json.comma(); json.key("token"); json.string(token) }
      json.raw("}")
    case .state(let seq, let view):
      json = JSONText(capacity: 640)
      json.raw("{\"type\":\"state\",")
      json.key("seq"); json.int(seq); json.comma()
      json.key("view"); json.view(view)
      json.raw("}")
      let own = view.you.flatMap { view.player($0)?.weapon }
      let width = own.map { $0.rawValue.utf8.count + 2 } ?? 4  // "rock" with quotes, or null
      for _ in 0..<(WireProtocol.weaponFieldWidth - width) { json.raw(" ") }
    case .error(let error, let re):
      json.raw("{\"type\":\"error\",")
      json.key("code"); json.string(error.code.rawValue); json.comma()
      json.key("message"); json.string(error.message); json.comma()
      json.key("fatal"); json.bool(error.fatal)
      if let re { json.comma(); json.key("re"); json.int(re) }
      json.raw("}")
    case .pong(let id):
      json.raw("{\"type\":\"pong\",")
      json.key("id"); json.optionalInt(id)
      json.raw("}")
    }
    return json.bytes
  }

  /// Decodes a server message (for clients), in any key order. Unknown fields are
  /// ignored; a missing or ill-typed field, or an unknown type, throws an error that
  /// names it.
  public static func decode(_ bytes: some Collection<UInt8>) throws -> ServerMessage {
    try JSONReader.withBuffer(bytes) { try decode($0) }
  }

  /// Decodes a server message from a frame's bytes (see the generic overload).
  public static func decode(_ buffer: UnsafeRawBufferPointer) throws -> ServerMessage {
    try JSONReader.read(buffer) { reader in
      var type: String?
      var room: String?
      var seat: Seat?
      var token: String?
      var seq: Int?
      var view: RoomView?
      var code: String?
      var message: String?
      var fatal: Bool?
      var re: Int?
      var id: Int?
      var version: Int?
      try reader.object { reader, key in
        switch key {
        case "type": type = try reader.string()
        case "protocol": version = try reader.int()
        case "room": room = try reader.string()
        case "seat": seat = try reader.optionalSeat()
        case "token": token = try reader.optionalString()
        case "seq": seq = try reader.int()
        case "view": view = try reader.view()
        case "code": code = try reader.string()
        case "message": message = try reader.string()
        case "fatal": fatal = try reader.bool()
        case "re": re = try reader.optionalInt()
        case "id": id = try reader.optionalInt()
        default: try reader.skipValue()
        }
      }
      func required<T>(_ value: T?, _ field: String) throws -> T {
        guard let value else {
          throw reader.failure("a \(type ?? "server") message without \"\(field)\"")
        }
        return value
      }
      switch try required(type, "type") {
      case "welcome":
        _ = try required(version, "protocol")
        return .welcome(room: try required(room, "room"), seat: seat, token: token)
      case "state":
        return .state(seq: try required(seq, "seq"), view: try required(view, "view"))
      case "error":
        let error = ProtocolError(
          code: ErrorCode(rawValue: try required(code, "code")),
          message: try required(message, "message"),
          fatal: try required(fatal, "fatal"))
        return .error(error, re: re)
      case "pong":
        return .pong(id: id)
      case let other:
        throw reader.failure("unknown server message type \"\(other.prefix(32))\"")
      }
    }
  }
}

extension JSONReader {
  fileprivate mutating func seat() throws -> Seat {
    let number = try int()
    guard let seat = Seat(rawValue: number) else {
      throw failure("a seat must be 1 or 2, not \(number)")
    }
    return seat
  }

  fileprivate mutating func optionalSeat() throws -> Seat? {
    try null() ? nil : seat()
  }

  fileprivate mutating func raw<T: RawRepresentable<String>>(_: T.Type, _ what: String) throws -> T
  {
    let text = try string()
    guard let value = T(rawValue: text) else {
      throw failure("\"\(text.prefix(32))\" is not a \(what)")
    }
    return value
  }

  /// The contract's `view` object (see ``RoomView``).
  fileprivate mutating func view() throws -> RoomView {
    var room: String?
    var ruleset: Ruleset.ID?
    var bestOf: Int?
    var phase: RoomState.Phase?
    var round: Int?
    var you: Seat?
    var players: [PlayerView]?
    var history: [RoundView]?
    var winner: Seat?
    var deadline: Int?
    var spectators = 0
    var rematch: [Seat] = []
    try object { reader, key in
      switch key {
      case "room": room = try reader.string()
      case "ruleset": ruleset = try reader.raw(Ruleset.ID.self, "ruleset")
      case "bestOf": bestOf = try reader.int()
      case "phase": phase = try reader.raw(RoomState.Phase.self, "phase")
      case "round": round = try reader.int()
      case "you": you = try reader.optionalSeat()
      case "players": players = try reader.array(of: { try $0.player() })
      case "history": history = try reader.array(of: { try $0.roundView() })
      case "winner": winner = try reader.optionalSeat()
      case "deadline": deadline = try reader.optionalInt()
      case "spectators": spectators = try reader.null() ? 0 : reader.int()
      case "rematch": rematch = try reader.null() ? [] : reader.array(of: { try $0.seat() })
      default: try reader.skipValue()
      }
    }
    guard let room, let ruleset, let bestOf, let phase, let round, let players, let history
    else {
      throw failure("a view without one of room, ruleset, bestOf, phase, round, players, history")
    }
    return RoomView(
      room: room, ruleset: ruleset, bestOf: bestOf, phase: phase, round: round, you: you,
      players: players, history: history, winner: winner, deadline: deadline.map(Int64.init),
      spectators: spectators, rematch: rematch)
  }

  fileprivate mutating func player() throws -> PlayerView {
    var seat: Seat?
    var name: String?
    var connected: Bool?
    var chosen: Bool?
    var weapon: Weapon?
    var score: Int?
    var left = false
    try object { reader, key in
      switch key {
      case "seat": seat = try reader.seat()
      case "name": name = try reader.string()
      case "connected": connected = try reader.bool()
      case "chosen": chosen = try reader.bool()
      case "weapon": weapon = try reader.null() ? nil : reader.raw(Weapon.self, "weapon")
      case "score": score = try reader.int()
      case "left": left = try reader.null() ? false : reader.bool()
      default: try reader.skipValue()
      }
    }
    guard let seat, let name, let connected, let chosen, let score else {
      throw failure("a player without one of seat, name, connected, chosen, score")
    }
    return PlayerView(
      seat: seat, name: name, connected: connected, chosen: chosen, weapon: weapon, score: score,
      left: left)
  }

  fileprivate mutating func roundView() throws -> RoundView {
    var round: Int?
    var weapons: [Weapon?]?
    var winner: Int?
    var reason: String?
    try object { reader, key in
      switch key {
      case "round": round = try reader.int()
      case "weapons":
        weapons = try reader.array(of: { try $0.null() ? nil : $0.raw(Weapon.self, "weapon") })
      case "winner": winner = try reader.int()
      case "reason": reason = try reader.optionalString()
      default: try reader.skipValue()
      }
    }
    guard let round, let weapons, let winner else {
      throw failure("a round without one of round, weapons, winner")
    }
    guard winner == 0 || Seat(rawValue: winner) != nil else {
      throw failure("a round's winner must be 0, 1 or 2, not \(winner)")
    }
    return RoundView(round: round, weapons: weapons, winner: Seat(rawValue: winner), reason: reason)
  }
}
