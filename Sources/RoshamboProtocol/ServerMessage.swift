import Foundation
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

  private struct Welcome: Decodable {
    var type = "welcome"
    var `protocol`: Int
    var room: String
    var seat: Seat?
    var token: String?
  }

  private struct State: Decodable {
    var type = "state"
    var seq: Int
    var view: RoomView
  }

  private struct ErrorBody: Decodable {
    var type = "error"
    var code: String
    var message: String
    var fatal: Bool
    var re: Int?
  }

  private struct Pong: Decodable {
    var type = "pong"
    var id: Int?
  }

  private struct TypeOnly: Decodable {
    var type: String
  }

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
      json.key("code"); json.string(error.code); json.comma()
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

  /// Decodes a server message (for clients). Unknown fields are ignored.
  public static func decode(_ bytes: some Collection<UInt8>) throws -> ServerMessage {
    let data = Data(bytes)
    let decoder = JSONDecoder()
    switch try decoder.decode(TypeOnly.self, from: data).type {
    case "welcome":
      let w = try decoder.decode(Welcome.self, from: data)
      return .welcome(room: w.room, seat: w.seat, token: w.token)
    case "state":
      let s = try decoder.decode(State.self, from: data)
      return .state(seq: s.seq, view: s.view)
    case "error":
      let e = try decoder.decode(ErrorBody.self, from: data)
      return .error(ProtocolError(code: e.code, message: e.message, fatal: e.fatal), re: e.re)
    case "pong":
      return .pong(id: try decoder.decode(Pong.self, from: data).id)
    case let other:
      throw DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "unknown server message type \(other)"))
    }
  }
}
