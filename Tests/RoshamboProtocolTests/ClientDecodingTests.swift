import Foundation
import ProcessFixtures
import RoshamboGame
import RoshamboJSON
import Testing

@testable import RoshamboProtocol

/// `ClientMessage.decode` as it was written on `JSONDecoder` (the envelope only; the
/// checks after it are shared): the reference the hand-written reading must agree with.
enum ReferenceClientDecoder {
  struct Envelope: Decodable, Equatable {
    var type: String?
    var id: Int?
    var `protocol`: Int?
    var name: String?
    var role: String?
    var room: String?
    var resume: String?
    var round: Int?
    var weapon: String?
  }

  /// The error's code and, for a wrong type, the field; or the envelope.
  enum Outcome: Equatable {
    case envelope(Envelope)
    case badFrame
    case wrongType(String)
  }

  static func decode(_ bytes: [UInt8]) -> Outcome {
    do {
      return .envelope(try JSONDecoder().decode(Envelope.self, from: Data(bytes)))
    } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
      return .wrongType(context.codingPath.map(\.stringValue).joined(separator: "."))
    } catch {
      return .badFrame
    }
  }
}

@Suite("Client messages read by hand", .cpuBound)
struct ClientDecodingTests {
  static let samples: [ClientMessage] = [
    .hello(
      protocol: WireProtocol.version, name: "Zoë \"Z\" 🎲", role: .player, room: "den_2",
      resume: nil, id: 1),
    .hello(
      protocol: WireProtocol.version, name: "Eve", role: .spectator, room: "den", resume: nil,
      id: nil),
    .hello(
      protocol: WireProtocol.version, name: "Bob", role: .player, room: nil, resume: "00ff", id: 12),
    .choose(round: 12, weapon: .scissors, id: 345), .choose(round: 1, weapon: .rock, id: nil),
    .rematch(id: 7), .leave(id: nil), .ping(id: 99),
  ]

  /// What our decoding says of `bytes`, in the reference's terms where they compare.
  static func agree(_ bytes: [UInt8]) -> Bool {
    let reference = ReferenceClientDecoder.decode(bytes)
    let ours = ClientMessage.decode(bytes)
    switch (reference, ours) {
    case (.badFrame, .failure(let error)):
      if error.code == .badFrame { return true }
      // JSON that is valid but holds a number no integer can: JSONDecoder calls that
      // corrupt data; we name the field.
      return error.message.contains("wrong type")
        && (try? bytes.withUnsafeBytes { try JSONReader.read($0) { try $0.skipValue() } }) != nil
    case (.wrongType(let field), .failure(let error)):
      return error.code == .badMessage
        && error.message.hasPrefix("The field \(field) has the wrong type")
    case (.envelope, .failure(let error)) where error.code == .badFrame:
      // The one leniency of JSONDecoder we do not share: a comma before } or ].
      let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
      return text.contains(",}") || text.contains(",]")
    case (.envelope, _):
      // The same envelope gives the same result: compare with a frame rebuilt from it.
      return ClientMessage.decode(rebuilt(bytes)) == ours
    default:
      return false
    }
  }

  /// The reference's envelope as a canonical frame, for the shared checks.
  static func rebuilt(_ bytes: [UInt8]) -> [UInt8] {
    guard case .envelope(let envelope) = ReferenceClientDecoder.decode(bytes) else { return [] }
    var object: [String: Any] = [:]
    object["type"] = envelope.type
    object["id"] = envelope.id
    object["protocol"] = envelope.protocol
    object["name"] = envelope.name
    object["role"] = envelope.role
    object["room"] = envelope.room
    object["resume"] = envelope.resume
    object["round"] = envelope.round
    object["weapon"] = envelope.weapon
    return Array(try! JSONSerialization.data(withJSONObject: object))
  }

  @Test("every truncation and single-byte change is judged as JSONDecoder judged it")
  func mutations() {
    var checked = 0
    for message in Self.samples {
      let bytes = message.encoded()
      let changes = Mutations.byteChanges(of: bytes)
      for input in Mutations.truncations(of: bytes) + changes where !Self.agree(input) {
        let text = String(decoding: input, as: UTF8.self)
        let ours = ClientMessage.decode(input)
        let reference = ReferenceClientDecoder.decode(input)
        Issue.record("disagree on \(text): \(ours) vs \(reference)")
      }
      checked += changes.count
    }
    #expect(checked > 5_000)
  }

  @Test(
    "shapes beyond the samples",
    arguments: [
      #"{"type":"ping","type":"leave"}"#,
      #"{"id":3,"type":"choose","weapon":"rock","round":2.0}"#,
      #"{"type":"choose","round":1e400,"weapon":"rock"}"#,
      #"{"type":"choose","round":99999999999999999999,"weapon":"rock"}"#,
      #"{"type":"choose","round":"1","weapon":7}"#,
      #"{"type":"choose","round":[1],"weapon":{"x":1},"id":true}"#,
      #"{"type":null,"id":null}"#,
      #"{"type":"hello","protocol":1,"name":"\u0041\u00e9","x":{"y":[1,2,{"z":null}]}}"#,
      #"[1,2"#, #"[1,2]"#, #""ping""#, "42", "null", " ", "{} {}",
    ])
  func shapes(text: String) {
    #expect(Self.agree(Array(text.utf8)), "\(text): \(ClientMessage.decode(Array(text.utf8)))")
  }
}
