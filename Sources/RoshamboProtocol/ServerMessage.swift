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

  private struct Welcome: Codable {
    var type = "welcome"
    var `protocol`: Int
    var room: String
    var seat: Seat?
    var token: String?

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(type, forKey: .type)
      try c.encode(self.protocol, forKey: .protocol)
      try c.encode(room, forKey: .room)
      try c.encode(seat, forKey: .seat)  // null for spectators
      try c.encodeIfPresent(token, forKey: .token)
    }
  }

  private struct State: Codable {
    var type = "state"
    var seq: Int
    var view: RoomView
  }

  private struct ErrorBody: Codable {
    var type = "error"
    var code: String
    var message: String
    var fatal: Bool
    var re: Int?
  }

  private struct Pong: Codable {
    var type = "pong"
    var id: Int?

    func encode(to encoder: any Encoder) throws {
      var c = encoder.container(keyedBy: CodingKeys.self)
      try c.encode(type, forKey: .type)
      try c.encode(id, forKey: .id)
    }
  }

  private struct TypeOnly: Decodable {
    var type: String
  }

  /// The message as JSON bytes (see the invariant above for `state`).
  public func encoded() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    switch self {
    case .welcome(let room, let seat, let token):
      return Array(
        try! encoder.encode(
          Welcome(protocol: WireProtocol.version, room: room, seat: seat, token: token)))
    case .state(let seq, let view):
      var bytes = Array(try! encoder.encode(State(seq: seq, view: view)))
      let own = view.you.flatMap { view.player($0)?.weapon }
      let width = own.map { $0.rawValue.utf8.count + 2 } ?? 4  // "rock" with quotes, or null
      bytes += Array(repeating: UInt8(ascii: " "), count: WireProtocol.weaponFieldWidth - width)
      return bytes
    case .error(let error, let re):
      return Array(
        try! encoder.encode(
          ErrorBody(code: error.code, message: error.message, fatal: error.fatal, re: re)))
    case .pong(let id):
      return Array(try! encoder.encode(Pong(id: id)))
    }
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
