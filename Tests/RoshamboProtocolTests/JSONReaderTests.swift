import Foundation
import ProcessFixtures
import RoshamboGame
import RoshamboJSON
import Testing

@testable import RoshamboProtocol

/// `ServerMessage.decode` as it was written on `JSONDecoder`: the reference the
/// hand-written reader must agree with.
enum ReferenceDecoder {
  private struct Welcome: Decodable {
    var `protocol`: Int
    var room: String
    var seat: Int?
    var token: String?
  }

  private struct State: Decodable {
    var seq: Int
    var view: View
  }

  /// The `view` object as the contract describes it, decoded by `JSONDecoder`: a second,
  /// independent reading of the same text.
  private struct View: Decodable {
    var room: String
    var ruleset: String
    var bestOf: Int
    var phase: String
    var round: Int
    var you: Int?
    var players: [Player]
    var history: [Round]
    var winner: Int?
    var deadline: Int64?
    var spectators: Int?
    var rematch: [Int]?
  }

  private struct Player: Decodable {
    var seat: Int
    var name: String
    var connected: Bool
    var chosen: Bool
    var weapon: String?
    var score: Int
    var left: Bool?
    var leftBy: String?
  }

  private struct Round: Decodable {
    var round: Int
    var weapons: [String?]
    var winner: Int
    var reason: String?
    var at: Int64?
  }

  struct Invalid: Error {}

  private static func seat(_ number: Int) throws -> Seat {
    guard let seat = Seat(rawValue: number) else { throw Invalid() }
    return seat
  }

  private static func value<T: RawRepresentable<String>>(_ text: String) throws -> T {
    guard let value = T(rawValue: text) else { throw Invalid() }
    return value
  }

  private static func roomView(_ view: View) throws -> RoomView {
    RoomView(
      room: view.room, ruleset: try value(view.ruleset), bestOf: view.bestOf,
      phase: try value(view.phase), round: view.round, you: try view.you.map(seat),
      players: try view.players.map { player in
        PlayerView(
          seat: try seat(player.seat), name: player.name, connected: player.connected,
          chosen: player.chosen, weapon: try player.weapon.map { try value($0) },
          score: player.score, left: player.left ?? false,
          leftBy: player.leftBy.flatMap(RoomState.Leaving.init(rawValue:)))
      },
      history: try view.history.map { round in
        guard round.winner == 0 || Seat(rawValue: round.winner) != nil else { throw Invalid() }
        return RoundResult(
          round: round.round, weapons: try round.weapons.map { try $0.map { try value($0) } },
          winner: Seat(rawValue: round.winner), reason: round.reason, at: round.at)
      },
      winner: try view.winner.map(seat), deadline: view.deadline,
      spectators: view.spectators ?? 0, rematch: try (view.rematch ?? []).map(seat))
  }

  private struct ErrorBody: Decodable {
    var code: String
    var message: String
    var fatal: Bool
    var re: Int?
  }

  private struct Pong: Decodable {
    var id: Int?
  }

  private struct TypeOnly: Decodable {
    var type: String
  }

  struct UnknownType: Error {}

  static func decode(_ bytes: [UInt8]) throws -> ServerMessage {
    let data = Data(bytes)
    let decoder = JSONDecoder()
    switch try decoder.decode(TypeOnly.self, from: data).type {
    case "welcome":
      let w = try decoder.decode(Welcome.self, from: data)
      return .welcome(room: w.room, seat: try w.seat.map(seat), token: w.token)
    case "state":
      let s = try decoder.decode(State.self, from: data)
      return .state(seq: s.seq, view: try roomView(s.view))
    case "error":
      let e = try decoder.decode(ErrorBody.self, from: data)
      return .error(
        ProtocolError(code: ErrorCode(rawValue: e.code), message: e.message, fatal: e.fatal),
        re: e.re)
    case "pong":
      return .pong(id: try decoder.decode(Pong.self, from: data).id)
    default:
      throw UnknownType()
    }
  }
}

@Suite("JSON reader", .cpuBound)
struct JSONReaderTests {
  /// Messages that use every field: a played lizard-Spock match with a deadline, a
  /// forfeit, a spectator, rematch requests, awkward names.
  static func sampleMessages() -> [ServerMessage] {
    var room = RoomState(
      name: "den_2", settings: .init(ruleset: .lizardSpock, bestOf: 3, roundMillis: 9_000))
    room.apply(.playerJoined(name: "Zoë \"Z\" 🎲", token: "a", at: 0))
    room.apply(.playerJoined(name: "back\\slash\ttab", token: "b", at: 0))
    room.apply(.spectatorJoined)
    room.apply(.chose(seat: .one, round: 1, weapon: .spock, at: 1))
    room.apply(.chose(seat: .two, round: 1, weapon: .lizard, at: 2))
    room.apply(.chose(seat: .two, round: 2, weapon: .scissors, at: 3))
    var over = room
    room.apply(.deadlinePassed(round: 2, at: 100_000))
    over.apply(.left(seat: .one, at: 5))
    over.apply(.rematchRequested(seat: .two, at: 6))
    return [
      .welcome(room: "den_2", seat: .two, token: "00ff"),
      .welcome(room: "den_2", seat: nil, token: nil),
      .state(seq: room.version, view: room.view(for: .one)),
      .state(seq: room.version, view: room.view(for: nil)),
      .state(seq: over.version, view: over.view(for: .two)),
      .error(
        ProtocolError(code: .wrongRound, message: "Round 3 is \"over\".", fatal: false), re: 4),
      .error(ProtocolError(code: .badFrame, message: "x", fatal: true), re: nil),
      .pong(id: 12), .pong(id: nil),
    ]
  }

  /// Both decoders on the same bytes: the same message, or both refuse. The one
  /// leniency of `JSONDecoder` the reader does not share (RFC 8259 has none): a comma
  /// before `}` or `]`.
  static func agree(_ bytes: [UInt8]) -> Bool {
    let ours = try? ServerMessage.decode(bytes)
    let reference = try? ReferenceDecoder.decode(bytes)
    if ours == nil, reference != nil {
      let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
      return text.contains(",}") || text.contains(",]")
    }
    return ours == reference
  }

  @Test("every sample decodes to itself, as the reference decodes it")
  func samples() throws {
    for message in Self.sampleMessages() {
      let bytes = message.encoded()
      #expect(try ServerMessage.decode(bytes) == message)
      #expect(try ReferenceDecoder.decode(bytes) == message)
    }
  }

  @Test("every truncation and every single-byte change is read as JSONDecoder reads it")
  func mutations() {
    var checked = 0
    for message in Self.sampleMessages() {
      let bytes = message.encoded()
      let changes = Mutations.byteChanges(of: bytes)
      for input in Mutations.truncations(of: bytes) + changes where !Self.agree(input) {
        Issue.record("disagree on \(String(decoding: input, as: UTF8.self))")
      }
      checked += changes.count
    }
    #expect(checked > 20_000)
  }

  @Test(
    "JSON in other shapes: key order, whitespace, escapes, numbers, unknown fields",
    arguments: [
      #" { "id" : 7 , "type" : "pong" } "#,
      "{\n\t\"type\":\"pong\",\r\n\"id\":null}",
      #"{"type":"pong","id":7.0}"#,
      #"{"type":"pong","id":7e0}"#,
      #"{"type":"pong","id":70E-1}"#,
      #"{"type":"pong","id":-0}"#,
      #"{"type":"pong","extra":{"a":[1,{"b":[]},"\"]"],"c":-1.5e+3},"id":1}"#,
      #"{"type":"welcome","protocol":1,"room":"\u0064\u0065n","seat":1,"token":"\ud83c\udfb2\/"}"#,
      #"{"type":"error","code":"x","message":"a\nb\u00e9","fatal":false,"re":null}"#,
    ])
  func otherShapes(text: String) throws {
    let bytes = Array(text.utf8)
    #expect(try ServerMessage.decode(bytes) == ReferenceDecoder.decode(bytes))
  }

  @Test(
    "malformed JSON is refused with a reason (trailing commas too, unlike JSONDecoder)",
    arguments: [
      #"{"type":"pong","id":01}"#,
      #"{"type":"pong","id":1.}"#,
      #"{"type":"pong","id":1.5}"#,
      #"{"type":"pong","id":+1}"#,
      #"{"type":"pong","id":99999999999999999999}"#,
      #"{"type":"pong","id":1e400}"#,
      #"{"type":"pong",}"#,
      #"{"type":"pong","x":[1,]}"#,
      #"{"type":"pong"} x"#,
      #"{"type":"pong","id":nul}"#,
      #"{"type":"welcome","protocol":1,"room":"\ud83c"}"#,
      #"{"type":"welcome","protocol":1,"room":"\x"}"#,
      #"{"type":"welcome","protocol":1,"room":"a"#,
      #"{'type':'pong'}"#,
      "[]",
      "",
    ])
  func malformed(text: String) {
    let bytes = Array(text.utf8)
    #expect(throws: JSONReader.Failure.self) { try ServerMessage.decode(bytes) }
    if !text.contains(",}"), !text.contains(",]") {
      #expect((try? ReferenceDecoder.decode(bytes)) == nil)
    }
  }

  @Test("nesting deeper than the limit is refused without exhausting the stack")
  func deepNesting() {
    let deep = #"{"type":"pong","x":"# + String(repeating: "[", count: 100_000)
    #expect(throws: JSONReader.Failure.self) { try ServerMessage.decode(Array(deep.utf8)) }
    let fine =
      #"{"type":"pong","x":"# + String(repeating: "[", count: 60)
      + String(repeating: "]", count: 60) + "}"
    #expect(throws: Never.self) { try ServerMessage.decode(Array(fine.utf8)) }
  }

  @Test("errors name the missing field")
  func missingField() {
    do {
      _ = try ServerMessage.decode(Array(#"{"type":"state"}"#.utf8))
      Issue.record("accepted a state without seq")
    } catch {
      #expect("\(error)".contains("seq"))
    }
  }
}
