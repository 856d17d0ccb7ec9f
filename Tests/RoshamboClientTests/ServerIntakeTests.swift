import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// SplitMix64: a seeded generator, so a failing mutation is found again on the next run.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

@Suite("Client intake: whatever the server sends", .cpuBound)
struct ServerIntakeTests {
  /// What a seat-1 client receives over a whole lizard–Spock match, with wide names and
  /// hostile text where the protocol allows free text, as the server encodes it.
  static func recordedMatch() -> [[UInt8]] {
    var room = RoomState(name: "den", settings: .init(ruleset: .lizardSpock))
    var messages: [ServerMessage] = [.welcome(room: "den", seat: .one, token: "t")]
    var seq = 0
    func record() {
      seq += 1
      messages.append(.state(seq: seq, view: room.view(for: .one)))
    }
    room.apply(.playerJoined(name: "石頭剪刀布石頭剪刀布", token: "a", at: 0))
    record()
    room.apply(.playerJoined(name: "Eve ⚔️ 🎮", token: "b", at: 0))
    record()
    let picks: [(Weapon, Weapon)] = [(.rock, .rock), (.lizard, .spock), (.spock, .scissors)]
    for (a, b) in picks where room.phase == .choosing {
      room.apply(.chose(seat: .one, round: room.round, weapon: a, at: 1))
      record()
      room.apply(.chose(seat: .two, round: room.round, weapon: b, at: 1))
      record()
    }
    room.apply(.rematchRequested(seat: .two, at: 2))
    record()
    messages.append(
      .error(ProtocolError(code: .wrongRound, message: "not now\u{9B}2J", fatal: false), re: 3))
    messages.append(.pong(id: 7))
    return messages.map { $0.encoded() }
  }

  /// One random change: a byte set (often to a character JSON or a terminal cares about),
  /// a run deleted or repeated, or the end cut off.
  static func mutate(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
    var bytes = bytes
    let interesting: [UInt8] = Array(#""\{}[]:,-019eE.tfn "#.utf8) + [0x1B, 0x07, 0x80, 0xFF, 0xC2]
    for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
      let at = Int.random(in: 0..<bytes.count, using: &random)
      let length = Int.random(in: 1...min(16, bytes.count - at), using: &random)
      switch Int.random(in: 0..<4, using: &random) {
      case 0: bytes[at] = interesting.randomElement(using: &random)!
      case 1: bytes[at] = UInt8.random(in: 0...255, using: &random)
      case 2: bytes.removeSubrange(at..<at + length)
      default: bytes.insert(contentsOf: bytes[at..<at + length], at: at)
      }
    }
    return bytes
  }

  /// Feeds `payload` to a client that has received `before`, through decoding, the intake,
  /// the reducer and the renderer, and checks what must hold whatever the bytes were.
  static func check(_ payload: [UInt8], after before: ClientState, welcomed: Bool = true) {
    guard let message = try? ServerMessage.decode(payload) else { return }
    #expect((try? ServerMessage.decode(message.encoded())) == message, "re-encodes to itself")
    var state = before
    switch ServerIntake.outcome(of: message, state: before, welcomed: welcomed) {
    case .violation(let why):
      #expect(!why.isEmpty)
      return
    case .pong:
      return
    case .action(let action):
      ClientReducer().reduce(into: &state, action: action)
    }
    for width in [80, 40] {
      for line in ScreenRenderer(width: width, color: false).lines(for: state.props) {
        #expect(DisplayWidth.columns(of: line) <= width, "\(width) columns: \(line)")
        #expect(
          !line.unicodeScalars.contains {
            $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}"
          }, "\(line.unicodeScalars.map(\.value))")
      }
    }
  }

  @Test("the recorded match itself is accepted in order and drawn")
  func recordedIsAccepted() throws {
    var state = ClientState()
    var welcomed = false
    for payload in Self.recordedMatch() {
      let message = try ServerMessage.decode(payload)
      let outcome = ServerIntake.outcome(of: message, state: state, welcomed: welcomed)
      if case .welcome = message { welcomed = true }
      if case .violation(let why) = outcome { Issue.record("\(why)") }
      if case .action(let action) = outcome { ClientReducer().reduce(into: &state, action: action) }
    }
    #expect(state.view?.phase == .over)
    let screen = ScreenRenderer(width: 80, color: false).lines(for: state.props).joined()
    #expect(screen.contains("石頭剪刀布"))
    #expect(screen.contains("Eve") && !screen.contains("\u{1B}"))
  }

  @Test("every mutation of every recorded frame decodes, passes the gate or is refused, and draws")
  func mutatedFrames() {
    let recorded = Self.recordedMatch()
    var random = SeededGenerator(state: 0x5EED)
    var state = ClientState()
    var welcomed = false
    for payload in recorded {
      for _ in 0..<600 {
        Self.check(Self.mutate(payload, using: &random), after: state, welcomed: welcomed)
      }
      // Then the real message, so the next frame's mutations meet a client mid-match.
      let message = try! ServerMessage.decode(payload)
      defer { if case .welcome = message { welcomed = true } }
      if case .action(let action) = ServerIntake.outcome(
        of: message, state: state, welcomed: welcomed)
      {
        ClientReducer().reduce(into: &state, action: action)
      }
    }
  }

  @Test("arbitrary bytes never trap the decoder or the screen")
  func arbitraryBytes() {
    var random = SeededGenerator(state: 0xB17E5)
    for _ in 0..<5_000 {
      let count = Int.random(in: 0...64, using: &random)
      Self.check((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }, after: .init())
    }
  }
}

@Suite("The client's event queue")
struct ServerEventsTests {
  static let state = ServerMessage.state(
    seq: 1,
    view: RoomView(
      room: "den", ruleset: .classic, bestOf: 3, phase: .waiting, round: 1, you: nil,
      players: [], history: [], winner: nil, deadline: nil))

  @Test("states waiting in a row keep only the newest; other messages keep their order")
  func conflation() async {
    let events = ServerEvents()
    for seq in 1...10_000 {
      guard case .state(_, let view) = Self.state else { return }
      #expect(events.yield(.state(seq: seq, view: view)))
    }
    #expect(events.waiting == 1)
    #expect(events.yield(.pong(id: 1)))
    #expect(events.yield(Self.state))
    #expect(events.waiting == 3)
    events.finish(nil)
    var read: [ConnectionEvent] = []
    for await event in events { read.append(event) }
    guard read.count == 4, case .message(.state(let seq, _)) = read[0],
      case .message(.pong(1)) = read[1], case .message(.state(1, _)) = read[2],
      case .closed(nil) = read[3]
    else {
      Issue.record("read \(read)")
      return
    }
    #expect(seq == 10_000)
  }

  @Test("a state of another room, or with a seq not above the one queued, is kept to be caught")
  func violationsAreNotConflated() {
    guard case .state(_, var view) = Self.state else { return }
    let events = ServerEvents()
    #expect(events.yield(.state(seq: 5, view: view)))
    #expect(events.yield(.state(seq: 4, view: view)))
    #expect(events.waiting == 2, "seq going back is not hidden")
    view.room = "other"
    #expect(events.yield(.state(seq: 6, view: view)))
    #expect(events.waiting == 3, "another room is not hidden")
    #expect(events.yield(.state(seq: 7, view: view)))
    #expect(events.waiting == 3, "the same room, seq rising: replaced")
  }

  @Test("a match's end is never replaced by the next match's views: a bot counts every match")
  func matchEndsAreKept() {
    guard case .state(_, var view) = Self.state else { return }
    view.phase = .over
    let events = ServerEvents()
    #expect(events.yield(.state(seq: 5, view: view)))
    view.phase = .choosing
    #expect(events.yield(.state(seq: 6, view: view)))
    #expect(events.yield(.state(seq: 7, view: view)))
    #expect(events.waiting == 2, "the end kept, the next match's views conflated after it")
  }

  @Test("a player's fair views are each kept: every one is checked")
  func fairViewsAreKept() {
    guard case .state(_, var view) = Self.state else { return }
    view.fair = true
    view.you = .one
    let events = ServerEvents()
    for seq in 1...ServerEvents.limit {
      #expect(events.yield(.state(seq: seq, view: view)))
    }
    #expect(events.waiting == ServerEvents.limit)
    #expect(!events.yield(.state(seq: 0, view: view)), "past the limit: a flood")
    view.you = nil
    let watching = ServerEvents()
    for seq in 1...100 { #expect(watching.yield(.state(seq: seq, view: view))) }
    #expect(watching.waiting == 1, "a spectator's are conflated")
  }

  @Test("past the limit of waiting messages the queue refuses more (the flood is closed)")
  func bound() {
    let events = ServerEvents()
    for index in 0..<ServerEvents.limit {
      #expect(events.yield(index % 2 == 0 ? .pong(id: index) : Self.state))
    }
    #expect(!events.yield(.pong(id: -1)))
    #expect(events.waiting == ServerEvents.limit)
  }
}
