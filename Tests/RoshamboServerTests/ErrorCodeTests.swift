import Foundation
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import Testing

@Suite("Server: every error code from a real connection", .serialized)
struct ErrorCodeTests {
  /// After a non-fatal error the connection still works: a ping gets its pong.
  func expectStillOpen(_ client: TestClient) async throws {
    client.send(.ping(id: 77))
    #expect(try await client.next() == .pong(id: 77))
  }

  @Test("bad_frame: a zero length or a payload that is not JSON closes the connection")
  func badFrame() async throws {
    try await withServer { server in
      let zero = try await TestClient.connect(port: server.port)
      zero.sendRaw([0, 0, 0, 0])
      #expect(try await zero.expectError(.badFrame).error.fatal)
      await zero.waitUntilClosed()
      let garbage = try await TestClient.connect(port: server.port)
      garbage.sendRaw(Array(ByteBufferFrames.frame("this is not json")))
      #expect(try await garbage.expectError(.badFrame).error.fatal)
      await garbage.waitUntilClosed()
      let huge = try await TestClient.connect(port: server.port)
      huge.sendRaw([0, 1, 0, 1])
      #expect(try await huge.expectError(.badFrame).error.message.contains("over the limit"))
    }
  }

  @Test("bad_message, hello_first and unsupported_protocol")
  func helloRules() async throws {
    try await withServer { server in
      let client = try await TestClient.connect(port: server.port)
      client.send(.choose(round: 1, weapon: .rock, id: 4))
      #expect(try await client.expectError(.helloFirst).re == 4)
      client.sendRaw(Array(ByteBufferFrames.frame(#"{"type":"dance","id":9}"#)))
      #expect(try await client.expectError(.badMessage).error.fatal == false)
      try await expectStillOpen(client)
      client.send(.hello(protocol: 2, name: "Future", role: .player, room: nil, resume: nil, id: 1))
      let (error, re) = try await client.expectError(.unsupportedProtocol)
      #expect(error.fatal && re == 1)
      await client.waitUntilClosed()
    }
  }

  @Test("room_full, no_such_room and bad_message for a second hello")
  func rooms() async throws {
    try await withServer { server in
      let (alice, _) = try await seatTwo(port: server.port)
      let carol = try await TestClient.connect(port: server.port)
      carol.send(
        .hello(
          protocol: WireProtocol.version, name: "Carol", role: .player, room: "den", resume: nil,
          id: 2))
      #expect(try await carol.expectError(.roomFull).re == 2)
      carol.send(
        .hello(
          protocol: WireProtocol.version, name: "Carol", role: .spectator, room: "nowhere",
          resume: nil, id: 3))
      #expect(try await carol.expectError(.noSuchRoom).re == 3)
      alice.send(
        .hello(
          protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: nil,
          id: 8))
      #expect(try await alice.expectError(.badMessage).re == 8)
      try await expectStillOpen(carol)
    }
  }

  @Test("wrong_round, already_chosen, invalid_weapon and not_playing")
  func pickRules() async throws {
    try await withServer { server in
      let waiting = try await TestClient.connect(port: server.port)
      try await waiting.hello(name: "Solo", room: "solo")
      _ = try await waiting.nextState()
      waiting.send(.choose(round: 1, weapon: .rock, id: 1))
      #expect(try await waiting.expectError(.notPlaying).re == 1)

      let (alice, _) = try await seatTwo(port: server.port)
      alice.send(.choose(round: 2, weapon: .rock, id: 2))
      #expect(try await alice.expectError(.wrongRound).re == 2)
      alice.send(.choose(round: 1, weapon: .lizard, id: 3))
      #expect(try await alice.expectError(.invalidWeapon).re == 3)
      alice.sendRaw(
        Array(ByteBufferFrames.frame(#"{"type":"choose","round":1,"weapon":"banana","id":4}"#)))
      #expect(try await alice.expectError(.invalidWeapon).error.message.contains("banana"))
      alice.send(.choose(round: 1, weapon: .rock, id: 5))
      _ = try await alice.state { $0.player(.one)?.chosen == true }
      alice.send(.choose(round: 1, weapon: .paper, id: 6))
      #expect(try await alice.expectError(.alreadyChosen).re == 6)
    }
  }

  @Test(
    "rate_limited: each dropped frame with an id is refused naming it, then, if it goes on, fatal")
  func rateLimited() async throws {
    try await withServer(limits: {
      $0.framesPerSecond = 5; $0.frameBurst = 5
    }) { server in
      let client = try await TestClient.connect(port: server.port)
      var burst: [UInt8] = []
      for id in 0..<30 {
        burst += ByteBufferFrames.frame(
          String(decoding: ClientMessage.ping(id: id).encoded(), as: UTF8.self))
      }
      client.sendRaw(burst)
      var pongs = 0
      var warnings: [Bool] = []
      var refused: [Int?] = []
      while true {
        let message = try await client.next()
        if case .pong = message { pongs += 1 }
        if case .error(let error, let re) = message, error.code == .rateLimited {
          warnings.append(error.fatal)
          if error.fatal { break }
          refused.append(re)
        }
      }
      #expect(pongs == 5)
      // The five frames past the burst are refused by id (as many as the rate, a second's
      // worth of refusals), the sixth closes.
      #expect(warnings == [false, false, false, false, false, true])
      #expect(refused == [5, 6, 7, 8, 9])
      await client.waitUntilClosed()
    }
  }

  @Test("closed for flooding: what the frames inside the burst asked is answered first")
  func floodKeepsAnswers() async throws {
    try await withServer(limits: {
      $0.framesPerSecond = 5; $0.frameBurst = 5
    }) { server in
      let client = try await TestClient.connect(port: server.port)
      func frame(_ message: ClientMessage) -> [UInt8] {
        ByteBufferFrames.frame(String(decoding: message.encoded(), as: UTF8.self))
      }
      // The hello and four picks (refused: nobody to play yet) fit the burst; the pings
      // after them are the flood.
      var burst = frame(
        .hello(
          protocol: WireProtocol.version, name: "Alice", role: .player, room: "den",
          resume: nil, id: 1))
      for id in 2...5 { burst += frame(.choose(round: 1, weapon: .rock, id: id)) }
      for id in 100..<140 { burst += frame(.ping(id: id)) }
      client.sendRaw(burst)
      var welcomed = false
      var answered: Set<Int> = []
      var closedForFlooding = false
      while !closedForFlooding {
        switch try await client.next() {
        case .welcome: welcomed = true
        case .error(let error, _) where error.code == .rateLimited:
          closedForFlooding = error.fatal
        case .error(_, let re?): answered.insert(re)
        default: break
        }
      }
      #expect(welcomed, "the hello was answered before the connection closed")
      #expect(answered == [2, 3, 4, 5])
      await client.waitUntilClosed()
    }
  }

  @Test("server_full when the connection limit is reached")
  func serverFull() async throws {
    try await withServer(limits: { $0.maxConnections = 1 }) { server in
      let first = try await TestClient.connect(port: server.port)
      try await first.hello(name: "First", room: "den")
      _ = try await first.nextState()
      let second = try await TestClient.connect(port: server.port)
      #expect(try await second.expectError(.serverFull).error.fatal)
      await second.waitUntilClosed()
      try await expectStillOpen(first)
    }
  }

  @Test("timeout: no hello in time, or silence after it, closes the connection")
  func timeouts() async throws {
    try await withServer(limits: {
      $0.helloTimeoutSeconds = 1; $0.idleTimeoutSeconds = 2
    }) { server in
      let silent = try await TestClient.connect(port: server.port)
      #expect(try await silent.expectError(.timeout).error.message.contains("No hello within 1 s"))
      await silent.waitUntilClosed()
      let idle = try await TestClient.connect(port: server.port)
      try await idle.hello(name: "Idle", room: "den")
      _ = try await idle.nextState()
      let silence = try await idle.expectError(.timeout).error.message
      #expect(silence.contains("Nothing came from your program for 2 s"))
      await idle.waitUntilClosed()
    }
  }

  @Test("bad input on one connection does not disturb another room")
  func isolation() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      let vandal = try await TestClient.connect(port: server.port)
      vandal.sendRaw([0, 0, 0, 0])
      _ = try await vandal.expectError(.badFrame)
      let (view, _) = try await playRound(alice, .rock, bob, .scissors, round: 1)
      #expect(view.history.count == 1)
    }
  }
}

/// Whole frames built by hand, for raw input.
enum ByteBufferFrames {
  static func frame(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    let length = UInt32(bytes.count)
    return [
      UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
      UInt8(length & 0xFF),
    ]
      + bytes
  }
}
