import RoshamboGame
import RoshamboJSON

/// A message from the server, as the contract defines it.
///
/// Invariant: a `state` message's encoded length does not depend on the receiving seat's
/// own hidden pick (it is padded to the longest weapon), so neither do its TLS records.
public enum ServerMessage: Sendable, Equatable {
  /// `rate` (extension): how fast the server takes this connection's frames; nil from a
  /// server that does not say.
  case welcome(room: String, seat: Seat?, token: String?, rate: FrameRate? = nil)
  case state(seq: Int, view: RoomView)
  case error(ProtocolError, re: Int?)
  case pong(id: Int?)
  /// The lobby as its followers see it (`hello` with role `lobby`); `seq` rises with each.
  case lobby(seq: Int, view: LobbyView)
  /// What changed in the lobby since the view at `base`, to a follower whose `hello`
  /// asked for patches: applied to that view it gives the view at `seq`, whose
  /// ``LobbyView/fingerprint`` is `fingerprint`.
  case lobbyPatch(seq: Int, base: Int, fingerprint: String, patch: LobbyPatch)
  /// To both sides of a challenge, when it is made and when it ends (followers that take
  /// challenges only).
  case challenge(ChallengeNotice)
  /// The record of a finished match a client asked for (`match`); `re` is the asking
  /// message's `id`.
  case record(FinishedMatch, re: Int?)

  /// This message, a `welcome` announcing `rate` (any other message as it is).
  public func announcing(_ rate: FrameRate?) -> ServerMessage {
    guard case .welcome(let room, let seat, let token, _) = self else { return self }
    return .welcome(room: room, seat: seat, token: token, rate: rate)
  }

  /// The message as JSON bytes (see the invariant above for `state`).
  public func encoded() -> [UInt8] {
    var json = JSONText()
    switch self {
    case .welcome(let room, let seat, let token, let rate):
      json.raw("{\"type\":\"welcome\",")
      json.key("protocol"); json.int(WireProtocol.version); json.comma()
      json.key("room"); json.string(room); json.comma()
      json.key("seat"); json.optionalInt(seat?.rawValue)  // null for spectators
      if let token { json.comma(); json.key("token"); json.string(token) }
      if let rate { json.comma(); json.key("rate"); json.frameRate(rate) }
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
      if let seconds = error.seconds { json.comma(); json.key("seconds"); json.int(seconds) }
      if let re { json.comma(); json.key("re"); json.int(re) }
      json.raw("}")
    case .pong(let id):
      json.raw("{\"type\":\"pong\",")
      json.key("id"); json.optionalInt(id)
      json.raw("}")
    case .lobby(let seq, let view):
      json = JSONText(capacity: 1024)
      json.raw("{\"type\":\"lobby\",")
      json.key("seq"); json.int(seq); json.comma()
      json.key("lobby"); json.lobbyView(view)
      json.raw("}")
    case .lobbyPatch(let seq, let base, let fingerprint, let patch):
      json = JSONText(capacity: 512)
      json.raw("{\"type\":\"lobbyPatch\",")
      json.key("seq"); json.int(seq); json.comma()
      json.key("base"); json.int(base); json.comma()
      json.key("hash"); json.string(fingerprint); json.comma()
      json.key("patch"); json.lobbyPatch(patch)
      json.raw("}")
    case .challenge(let notice):
      json = JSONText(capacity: 256)
      json.raw("{\"type\":\"challenge\",")
      json.key("challenge"); json.int(notice.id); json.comma()
      json.key("status"); json.string(notice.status.rawValue); json.comma()
      json.key("from"); json.string(notice.from); json.comma()
      json.key("to"); json.string(notice.to); json.comma()
      json.key("bestOf"); json.int(notice.bestOf); json.comma()
      json.key("ruleset"); json.string(notice.ruleset.rawValue); json.comma()
      json.key("fair"); json.bool(notice.fair); json.comma()
      json.key("expires"); json.int(notice.expires)
      if notice.forTheEvening { json.comma(); json.key("forTheEvening"); json.bool(true) }
      json.raw("}")
    case .record(let match, let re):
      json = JSONText(capacity: MatchRecord.estimatedBytes(match) + 64)
      json.raw("{\"type\":\"record\",")
      json.key("record"); json.matchRecord(match)
      if let re { json.comma(); json.key("re"); json.int(re) }
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
      var lobby: LobbyView?
      var base: Int?
      var hash: String?
      var patch: LobbyPatch?
      var code: String?
      var message: String?
      var fatal: Bool?
      var re: Int?
      var id: Int?
      var version: Int?
      var challenge: Int?
      var status: ChallengeNotice.Status?
      var from: String?
      var to: String?
      var bestOf: Int?
      var ruleset: Ruleset.ID?
      var expires: Int?
      var fair: Bool?
      var forTheEvening = false
      var record: FinishedMatch?
      var seconds: Int?
      var rate: FrameRate?
      try reader.object { reader, key in
        switch key {
        case "type": type = try reader.string()
        case "protocol": version = try reader.int()
        case "room": room = try reader.string()
        case "seat": seat = try reader.optionalSeat()
        case "token": token = try reader.optionalString()
        case "seq": seq = try reader.int()
        case "view": view = try reader.view()
        case "lobby": lobby = try reader.lobbyView()
        case "base": base = try reader.int()
        case "hash": hash = try reader.string()
        case "patch": patch = try reader.lobbyPatch()
        case "code": code = try reader.string()
        case "message": message = try reader.string()
        case "fatal": fatal = try reader.bool()
        case "re": re = try reader.optionalInt()
        case "id": id = try reader.optionalInt()
        case "challenge": challenge = try reader.int()
        case "status": status = try reader.raw(ChallengeNotice.Status.self, "status")
        case "from": from = try reader.string()
        case "to": to = try reader.string()
        case "bestOf": bestOf = try reader.int()
        case "ruleset": ruleset = try reader.raw(Ruleset.ID.self, "ruleset")
        case "expires": expires = try reader.int()
        case "fair": fair = try reader.bool()
        case "forTheEvening": forTheEvening = try reader.bool()
        case "record": record = try reader.matchRecord()
        case "seconds": seconds = try reader.int()
        case "rate": rate = try reader.frameRate()
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
        return .welcome(room: try required(room, "room"), seat: seat, token: token, rate: rate)
      case "state":
        return .state(seq: try required(seq, "seq"), view: try required(view, "view"))
      case "error":
        let error = ProtocolError(
          code: ErrorCode(rawValue: try required(code, "code")),
          message: try required(message, "message"),
          fatal: try required(fatal, "fatal"),
          // Only a count a person can read is kept: at most a day.
          seconds: seconds.map { min(max($0, 0), 86_400) })
        return .error(error, re: re)
      case "pong":
        return .pong(id: id)
      case "lobby":
        return .lobby(seq: try required(seq, "seq"), view: try required(lobby, "lobby"))
      case "lobbyPatch":
        return .lobbyPatch(
          seq: try required(seq, "seq"), base: try required(base, "base"),
          fingerprint: try required(hash, "hash"), patch: try required(patch, "patch"))
      case "challenge":
        return .challenge(
          ChallengeNotice(
            id: try required(challenge, "challenge"), status: try required(status, "status"),
            from: try required(from, "from"), to: try required(to, "to"),
            bestOf: try required(bestOf, "bestOf"), ruleset: try required(ruleset, "ruleset"),
            fair: try required(fair, "fair"), expires: Int64(try required(expires, "expires")),
            forTheEvening: forTheEvening))
      case "record":
        return .record(try required(record, "record"), re: re)
      case let other:
        throw reader.failure("unknown server message type \"\(other.prefix(32))\"")
      }
    }
  }
}
