import Foundation
import RoshamboGame
import RoshamboProtocol
import Testing

func decode(_ text: String) -> Result<ClientMessage, ProtocolError> {
  ClientMessage.decode(Array(text.utf8))
}

@Suite("Client messages")
struct ClientMessageTests {
  @Test("a hello may promise pings: 1 to 60 s, kept through encoding; the silence allowed")
  func keepalive() {
    let hello = ClientMessage.hello(
      protocol: 1, name: "Alice", role: .lobby, room: nil, resume: nil, keepalive: 3, id: 1)
    #expect(ClientMessage.decode(hello.encoded()) == .success(hello))
    for bad in [0, 61, -1] {
      let text = #"{"type":"hello","protocol":1,"name":"Alice","keepalive":\#(bad)}"#
      guard case .failure(let error) = ClientMessage.decode(Array(text.utf8)) else {
        Issue.record("keepalive \(bad) was taken")
        continue
      }
      #expect(error.code == .badMessage)
    }
    #expect(ClientMessage.keepaliveLimit(for: 3, idleLimit: 60) == 9)
    #expect(ClientMessage.keepaliveLimit(for: 1, idleLimit: 60) == 5)
    #expect(ClientMessage.keepaliveLimit(for: 30, idleLimit: 60) == 60)
    #expect(ClientMessage.keepaliveLimit(for: nil, idleLimit: 60) == 60)
  }

  @Test("valid messages decode to their cases")
  func valid() throws {
    #expect(
      try decode(#"{"type":"hello","protocol":1,"name":"Alice","room":"den","id":7}"#).get()
        == .hello(
          protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: nil,
          id: 7))
    #expect(
      try decode(#"{"type":"hello","protocol":1,"name":"Eve","role":"spectator","room":"den"}"#)
        .get()
        == .hello(
          protocol: WireProtocol.version, name: "Eve", role: .spectator, room: "den", resume: nil,
          id: nil))
    #expect(
      try decode(#"{"type":"choose","round":2,"weapon":"spock","extra":[1,2]}"#).get()
        == .choose(round: 2, weapon: .spock, id: nil))
    #expect(try decode(#"{"type":"rematch"}"#).get() == .rematch(id: nil))
    #expect(try decode(#"{"type":"leave","id":3}"#).get() == .leave(id: 3))
    #expect(try decode(#"{"type":"ping","id":99}"#).get() == .ping(id: 99))
    let hex = String(repeating: "0a", count: 32)
    #expect(
      try decode(#"{"type":"hello","protocol":1,"name":"Ann","room":"f","fair":true}"#).get()
        == .hello(
          protocol: WireProtocol.version, name: "Ann", role: .player, room: "f", resume: nil,
          fair: true, id: nil))
    #expect(
      try decode(#"{"type":"commit","round":3,"digest":"\#(hex)","id":5}"#).get()
        == .commit(round: 3, digest: hex, id: 5))
    #expect(
      try decode(#"{"type":"reveal","round":3,"weapon":"paper","nonce":"\#(hex)"}"#).get()
        == .reveal(round: 3, weapon: .paper, nonce: hex, id: nil))
  }

  @Test(
    "fair-room messages with a bad digest, nonce or flag are refused with the field named",
    arguments: [
      (#"{"type":"commit","round":1,"digest":"ABCD"}"#, ErrorCode.badMessage, "digest"),
      (
        #"{"type":"commit","digest":"\#(String(repeating: "a", count: 64))"}"#, .badMessage, "round"
      ),
      (
        #"{"type":"commit","round":1,"digest":"\#(String(repeating: "A", count: 64))"}"#,
        .badMessage, "lower-case"
      ),
      (#"{"type":"reveal","round":1,"weapon":"rock","nonce":"12"}"#, .badMessage, "nonce"),
      (
        #"{"type":"reveal","round":1,"weapon":"stone","nonce":"\#(String(repeating: "a", count: 64))"}"#,
        .invalidWeapon, "stone"
      ),
      (#"{"type":"hello","protocol":1,"name":"A","fair":"yes"}"#, .badMessage, "true or false"),
    ])
  func fairMalformed(input: String, code: ErrorCode, mention: String) {
    guard case .failure(let error) = decode(input) else {
      Issue.record("\(input) was accepted")
      return
    }
    #expect(error.code == code, "\(input): \(error.message)")
    #expect(error.message.contains(mention), "\(error.message)")
  }

  @Test("a reveal has the same encoded length whatever the weapon")
  func revealPadding() {
    let nonce = String(repeating: "f", count: 64)
    let lengths = Set(
      Weapon.allCases.map {
        ClientMessage.reveal(round: 4, weapon: $0, nonce: nonce, id: 1).encoded().count
      })
    #expect(lengths.count == 1)
  }

  @Test(
    "malformed input gets the contract's code",
    arguments: [
      ("not json", ErrorCode.badFrame),
      ("[1,2]", .badFrame),
      ("\u{FF}\u{FE}", .badFrame),
      (#"{"id":1}"#, .badMessage),
      (#"{"type":"dance"}"#, .badMessage),
      (#"{"type":"choose","round":"two","weapon":"rock"}"#, .badMessage),
      (#"{"type":"choose","weapon":"rock"}"#, .badMessage),
      (#"{"type":"choose","round":1}"#, .badMessage),
      (#"{"type":"choose","round":1,"weapon":"banana"}"#, .invalidWeapon),
      (#"{"type":"hello","name":"A"}"#, .badMessage),
      (#"{"type":"hello","protocol":1}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":""}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":"0123456789012345678901234"}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":"a\u0007b"}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":"A","room":"no spaces"}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":"A","role":"judge"}"#, .badMessage),
      (#"{"type":"hello","protocol":1,"name":"A","role":"spectator"}"#, .badMessage),
    ])
  func malformed(input: String, code: ErrorCode) {
    guard case .failure(let error) = decode(input) else {
      Issue.record("\(input) was accepted")
      return
    }
    #expect(error.code == code, "\(input): \(error.message)")
    #expect(!error.message.isEmpty)
  }

  @Test("room names follow [A-Za-z0-9_-]{1,32}")
  func roomNames() {
    #expect(ClientMessage.isValidRoom("den_2-B"))
    #expect(!ClientMessage.isValidRoom(""))
    #expect(!ClientMessage.isValidRoom(String(repeating: "a", count: 33)))
    #expect(!ClientMessage.isValidRoom("café"))
  }

  @Test("a choose has the same encoded length whatever the weapon")
  func choosePadding() throws {
    let lengths = Set(
      Weapon.allCases.map { ClientMessage.choose(round: 3, weapon: $0, id: 5).encoded().count })
    #expect(lengths.count == 1)
    for weapon in Weapon.allCases {
      #expect(
        try decode(
          String(
            decoding: ClientMessage.choose(round: 3, weapon: weapon, id: 5).encoded(), as: UTF8.self
          )
        ).get() == .choose(round: 3, weapon: weapon, id: 5))
    }
  }
}

@Suite("Server messages")
struct ServerMessageTests {
  func object(_ message: ServerMessage) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(message.encoded())) as! [String: Any]
  }

  @Test("welcome, error and pong carry the contract's fields")
  func fields() throws {
    let welcome = try object(.welcome(room: "den", seat: .two, token: "abc"))
    #expect(welcome["type"] as? String == "welcome")
    #expect(welcome["protocol"] as? Int == 1)
    #expect(welcome["seat"] as? Int == 2)
    #expect(welcome["token"] as? String == "abc")
    let spectator = try object(.welcome(room: "den", seat: nil, token: nil))
    #expect(spectator["seat"] is NSNull)
    #expect(spectator["token"] == nil)
    let error = try object(.error(ProtocolError(code: .wrongRound, message: "m"), re: 4))
    #expect(error["code"] as? String == "wrong_round")
    #expect(error["fatal"] as? Bool == false)
    #expect(error["re"] as? Int == 4)
    #expect(try object(.pong(id: 9))["id"] as? Int == 9)
    #expect(error["seconds"] == nil)
    let closing = try object(.error(.closing(seconds: 30), re: nil))
    #expect(closing["code"] as? String == "closing")
    #expect(closing["fatal"] as? Bool == false)
    #expect(closing["seconds"] as? Int == 30)
    #expect((closing["message"] as? String)?.contains("closing in 30 s") == true)
    // A count no person could read is cut to a day.
    let huge = #"{"type":"error","code":"closing","message":"m","fatal":false,"seconds":9999999}"#
    #expect(
      try ServerMessage.decode(Array(huge.utf8))
        == .error(ProtocolError(code: .closing, message: "m", seconds: 86_400), re: nil))
  }

  @Test("a welcome may announce the rate: an object of two positive numbers, absent when unsaid")
  func welcomeRate() throws {
    let rate = FrameRate(perSecond: 20, burst: 40)
    let announced = ServerMessage.welcome(room: "den", seat: .one, token: "t").announcing(rate)
    #expect(announced == .welcome(room: "den", seat: .one, token: "t", rate: rate))
    #expect(
      try object(announced)["rate"] as? [String: Int] == ["perSecond": 20, "burst": 40])
    #expect(try object(.welcome(room: "den", seat: .one, token: "t"))["rate"] == nil)
    #expect(try ServerMessage.decode(announced.encoded()) == announced)
    #expect(ServerMessage.pong(id: 1).announcing(rate) == .pong(id: 1))
    // A protocol 1 welcome, and one with fields of a rate this client does not know.
    let old = #"{"type":"welcome","protocol":1,"room":"den","seat":1,"token":"t"}"#
    #expect(
      try ServerMessage.decode(Array(old.utf8)) == .welcome(room: "den", seat: .one, token: "t"))
    let wider =
      #"{"type":"welcome","protocol":1,"room":"den","seat":1,"rate":{"burst":4,"perSecond":2,"perMinute":60}}"#
    #expect(
      try ServerMessage.decode(Array(wider.utf8))
        == .welcome(room: "den", seat: .one, token: nil, rate: FrameRate(perSecond: 2, burst: 4)))
    let zero =
      #"{"type":"welcome","protocol":1,"room":"den","seat":1,"rate":{"perSecond":0,"burst":4}}"#
    #expect(throws: (any Error).self) { try ServerMessage.decode(Array(zero.utf8)) }
  }

  @Test("every server message decodes back to itself")
  func roundTrip() throws {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "A", token: "a", at: 0))
    room.apply(.playerJoined(name: "B", token: "b", at: 0))
    let messages: [ServerMessage] = [
      .welcome(room: "den", seat: .one, token: "t"), .state(seq: 2, view: room.view(for: .one)),
      .error(ProtocolError(code: .roomFull, message: "full", fatal: true), re: nil),
      .error(.closing(seconds: 12), re: nil), .error(.closing(seconds: 0, fatal: true), re: 3),
      .pong(id: 1),
      .challenge(
        ChallengeNotice(
          id: 7, status: .pending, from: "Zoë \"Z\"", to: "Bob", bestOf: 5,
          ruleset: .lizardSpock, fair: true, expires: 1_764_083_262_000)),
    ]
    for message in messages {
      #expect(try ServerMessage.decode(message.encoded()) == message)
    }
    for status in ChallengeNotice.Status.allCases {
      let notice = ChallengeNotice(
        id: 1, status: status, from: "A", to: "B", bestOf: 1, ruleset: .classic, fair: false,
        expires: 0)
      #expect(
        try ServerMessage.decode(ServerMessage.challenge(notice).encoded()) == .challenge(notice))
    }
  }

  @Test("challenge, accept and decline: what they carry, and what is refused by name")
  func challenges() throws {
    #expect(
      try decode(
        #"{"type":"challenge","name":"Bob","bestOf":5,"ruleset":"lizardSpock","fair":true,"id":2}"#
      )
      .get() == .challenge(name: "Bob", bestOf: 5, ruleset: .lizardSpock, fair: true, id: 2))
    #expect(
      try decode(#"{"type":"challenge","name":"Bob"}"#).get()
        == .challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: nil))
    #expect(
      try decode(#"{"type":"accept","challenge":3,"id":4}"#).get() == .accept(challenge: 3, id: 4))
    #expect(
      try decode(#"{"type":"decline","challenge":3}"#).get() == .decline(challenge: 3, id: nil))
    // Declined for the evening: an optional field, false when absent.
    #expect(
      try decode(#"{"type":"decline","challenge":3,"block":true,"id":9}"#).get()
        == .decline(challenge: 3, block: true, id: 9))
    #expect(
      String(decoding: ClientMessage.decline(challenge: 3, id: nil).encoded(), as: UTF8.self)
        == #"{"type":"decline","challenge":3}"#, "a plain decline is what protocol 1 sends")
    #expect(
      try decode(#"{"type":"hello","protocol":1,"name":"E","role":"lobby","challenges":true}"#)
        .get()
        == .hello(
          protocol: 1, name: "E", role: .lobby, room: nil, resume: nil, challenges: true, id: nil))
    for (text, field) in [
      (#"{"type":"challenge"}"#, "name"),
      (#"{"type":"challenge","name":"a\u0007b"}"#, "name"),
      (#"{"type":"challenge","name":"Bob","bestOf":4}"#, "bestOf"),
      (#"{"type":"challenge","name":"Bob","bestOf":101}"#, "bestOf"),
      (#"{"type":"challenge","name":"Bob","ruleset":"chess"}"#, "ruleset"),
      (#"{"type":"challenge","name":"Bob","bestOf":"3"}"#, "bestOf"),
      (#"{"type":"accept"}"#, "challenge"),
      (#"{"type":"decline","challenge":1.5}"#, "challenge"),
      (#"{"type":"decline","challenge":1,"block":"yes"}"#, "block"),
      (#"{"type":"hello","protocol":1,"name":"E","challenges":true}"#, "lobby"),
    ] {
      guard case .failure(let error) = decode(text) else {
        Issue.record("\(text) was accepted")
        continue
      }
      #expect(error.code == .badMessage, "\(text)")
      #expect(error.message.contains(field), "\(text): \(error.message)")
    }
  }

  @Test("a state's length does not depend on the seat's own hidden pick")
  func statePadding() {
    var base = RoomState(name: "den", settings: .init(ruleset: .lizardSpock))
    base.apply(.playerJoined(name: "A", token: "a", at: 0))
    base.apply(.playerJoined(name: "B", token: "b", at: 0))
    var lengths: Set<Int> = [
      ServerMessage.state(seq: 2, view: base.view(for: .one)).encoded().count
    ]
    for weapon in Ruleset.lizardSpock.weapons {
      var room = base
      room.apply(.chose(seat: .one, round: 1, weapon: weapon, at: 1))
      room.version = base.version  // compare bodies alike but for the pick
      lengths.insert(ServerMessage.state(seq: 2, view: room.view(for: .one)).encoded().count + 1)
    }
    // "chosen": true is one byte shorter than false; that says that, not what.
    #expect(lengths.count == 1)
  }
}

@Suite("Hand-written JSON")
struct JSONEncodingTests {
  static let awkwardNames = [
    "Alice", "O\"Brien", "back\\slash", "tab\there", "Zoë 🎲", "new\nline", "\u{01}ctl", "日本語",
  ]

  @Test(
    "names with quotes, backslashes, control characters and non-ASCII survive",
    arguments: awkwardNames)
  func awkwardStrings(name: String) throws {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: name, token: "t\"1", at: 0))
    let messages: [ServerMessage] = [
      .state(seq: 1, view: room.view(for: .one)),
      .error(ProtocolError(code: .badMessage, message: name, fatal: true), re: 3),
      .welcome(room: "den", seat: .one, token: name),
    ]
    for message in messages {
      let bytes = message.encoded()
      #expect(try JSONSerialization.jsonObject(with: Data(bytes)) is [String: Any])
      #expect(try ServerMessage.decode(bytes) == message)
    }
    let hello = ClientMessage.hello(
      protocol: WireProtocol.version, name: name, role: .player, room: "r", resume: "x\\y", id: 2)
    #expect(try JSONSerialization.jsonObject(with: Data(hello.encoded())) is [String: Any])
  }

  @Test("every client message decodes back to itself")
  func clientRoundTrips() throws {
    let messages: [ClientMessage] = [
      .hello(
        protocol: WireProtocol.version, name: "Alice", role: .spectator, room: "den", resume: nil,
        id: nil),
      .hello(
        protocol: WireProtocol.version, name: "Bob", role: .player, room: nil, resume: "tok", id: 9),
      .hello(
        protocol: WireProtocol.version, name: "Cy", role: .player, room: "f", resume: nil,
        fair: false, id: 2),
      .commit(round: 2, digest: String(repeating: "b", count: 64), id: 3),
      .reveal(round: 2, weapon: .spock, nonce: String(repeating: "c", count: 64), id: nil),
      .choose(round: 12, weapon: .lizard, id: nil), .rematch(id: 1), .rematch(id: nil),
      .leave(id: 4), .ping(id: nil), .ping(id: 77),
      .hello(
        protocol: WireProtocol.version, name: "Di", role: .lobby, room: nil, resume: nil,
        fair: false, challenges: true, id: 1),
      .challenge(name: "Zoë", bestOf: 99, ruleset: .classic, fair: true, id: 5),
      .challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: nil),
      .accept(challenge: 12, id: nil), .decline(challenge: Int.max, id: 6),
      .decline(challenge: 4, block: true, id: nil),
    ]
    for message in messages {
      #expect(try decode(String(decoding: message.encoded(), as: UTF8.self)).get() == message)
    }
  }

  @Test("states of played games decode to the views they were made from")
  func stateRoundTrips() throws {
    var room = RoomState(
      name: "den", settings: .init(ruleset: .lizardSpock, bestOf: 5, roundMillis: 9_000))
    room.apply(.playerJoined(name: "A", token: "a", at: 0))
    room.apply(.playerJoined(name: "B", token: "b", at: 0))
    room.apply(.spectatorJoined)
    let picks: [(Weapon, Weapon)] = [(.spock, .rock), (.lizard, .lizard), (.paper, .scissors)]
    for (round, (a, b)) in picks.enumerated() {
      room.apply(.chose(seat: .one, round: round + 1, weapon: a, at: 1))
      for viewer in [Seat.one, .two, nil] {
        let message = ServerMessage.state(seq: room.version, view: room.view(for: viewer))
        #expect(try ServerMessage.decode(message.encoded()) == message)
      }
      room.apply(.chose(seat: .two, round: round + 1, weapon: b, at: 1))
    }
    room.apply(.deadlinePassed(round: 4, at: 100_000))
    let message = ServerMessage.state(seq: room.version, view: room.view(for: .two))
    #expect(try ServerMessage.decode(message.encoded()) == message)
  }
}

@Suite("Error codes")
struct ErrorCodeContractTests {
  @Test("the codes are exactly those docs/PROTOCOL.md lists, in its order")
  func documented() throws {
    let document = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("docs/PROTOCOL.md")
    let text = try String(contentsOf: document, encoding: .utf8)
    let section = try #require(text.components(separatedBy: "### Error codes").dropFirst().first)
    let codes = section.split(separator: "\n").prefix { !$0.hasPrefix("## ") }.compactMap {
      line -> String? in
      guard line.hasPrefix("| `") else { return nil }
      return String(line.dropFirst(3).prefix { $0 != "`" })
    }
    #expect(codes == ErrorCode.contract.map(\.rawValue))
  }

  @Test("every refusal by the rules maps to a code of the contract")
  func refusals() {
    let refusals: [Refusal] = [
      .roomFull, .noSuchRoom("x"), .wrongRound(current: 2), .alreadyChosen,
      .invalidWeapon(.lizard, .classic), .notPlaying("why"), .stale("when"),
    ]
    for refusal in refusals {
      #expect(ErrorCode.contract.contains(ErrorCode(refusal)), "\(refusal)")
    }
    #expect(ErrorCode(.wrongRound(current: 2)) == .wrongRound)
  }
}
