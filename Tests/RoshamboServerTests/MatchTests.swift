import Foundation
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import Testing

/// Two players seated in `room` (or quick match), with the opening states read.
func seatTwo(port: Int, room: String? = "den") async throws -> (TestClient, TestClient) {
  let alice = try await TestClient.connect(port: port)
  try await alice.hello(name: "Alice", room: room)
  _ = try await alice.state { $0.phase == .waiting }
  // Bob connects only now: a connection idling while Alice's part runs could meet the
  // server's 10 s hello deadline on a loaded machine (seen under ThreadSanitizer).
  let bob = try await TestClient.connect(port: port)
  try await bob.hello(name: "Bob", room: room)
  _ = try await alice.state { $0.phase == .choosing }
  _ = try await bob.state { $0.phase == .choosing }
  return (alice, bob)
}

/// Both pick for the current round; returns the views once it has resolved.
func playRound(
  _ alice: TestClient, _ a: Weapon, _ bob: TestClient, _ b: Weapon, round: Int
) async throws -> (RoomView, RoomView) {
  alice.send(.choose(round: round, weapon: a, id: nil))
  bob.send(.choose(round: round, weapon: b, id: nil))
  let resolved: (RoomView) -> Bool = { $0.history.count >= round }
  return (try await alice.state(where: resolved), try await bob.state(where: resolved))
}

@Suite("Server: matches over real TLS", .serialized)
struct MatchTests {
  @Test("a full best-of-3 in a named room")
  func bestOfThree() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      #expect(alice.seat == .one && bob.seat == .two)
      #expect(alice.token != nil && alice.token != bob.token)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      _ = try await playRound(alice, .paper, bob, .paper, round: 2)
      let (final, seen) = try await playRound(alice, .paper, bob, .rock, round: 3)
      #expect(final.phase == .over)
      #expect(final.winner == .one)
      #expect(final.player(.one)?.score == 2)
      #expect(final.history.map(\.winner) == [.one, nil, .one])
      #expect(final.history[0].weapons == [.rock, .scissors])
      #expect(
        seen
          == RoomView(
            room: final.room, ruleset: final.ruleset, bestOf: 3, phase: .over, round: final.round,
            you: .two, players: final.players, history: final.history, winner: .one, deadline: nil,
            spectators: 0, rematch: []))
      // seq rises strictly with each state a connection sees.
      let seqs = alice.inbox.messages.compactMap {
        if case .state(let seq, _) = $0 { seq } else { nil }
      }
      #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
    }
  }

  @Test("quick match pairs the next two players")
  func quickMatch() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port, room: nil)
      #expect(alice.room == "quick-1" && bob.room == "quick-1")
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol")
      #expect(carol.room == "quick-2" && carol.seat == .one)
    }
  }

  @Test("a quick-match player whose opponent leaves is paired with the one waiting")
  func strandedQuickMatchPlayerIsPaired() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port, room: nil)
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol")
      #expect(carol.room == "quick-2")
      _ = try await carol.state { $0.phase == .waiting }
      bob.send(.leave(id: 2))
      // Alice sees how her match ended, then is welcomed (same token) into Carol's room.
      let ended = try await alice.nextState()
      #expect(ended.view.room == "quick-1" && ended.view.phase == .over)
      #expect(ended.view.player(.two)?.left == true && ended.view.winner == .one)
      let token = alice.token
      let welcome = try await alice.next()
      #expect(
        welcome
          == ServerMessage.welcome(room: "quick-2", seat: .two, token: token).announcing(
            .serverDefault))
      let joined = try await alice.nextState()
      #expect(joined.view.room == "quick-2" && joined.view.you == .two)
      #expect(joined.view.phase == .choosing)
      #expect(joined.view.player(.one)?.name == "Carol")
      let seen = try await carol.state { $0.phase == .choosing }
      #expect(seen.player(.two)?.name == "Alice")
      // The next newcomer waits alone, and is counted as waiting.
      let dave = try await TestClient.connect(port: server.port)
      try await dave.hello(name: "Dave")
      #expect(dave.room == "quick-3")
      _ = try await dave.state { $0.phase == .waiting }
      #expect(try await server.lobby().waitingPlayers == 1)
      // Alice's token still takes her seat back, in the room she was moved to.
      await alice.close()
      _ = try await carol.state { $0.player(.two)?.connected == false }
      let again = try await TestClient.connect(port: server.port)
      let resumed = try await again.hello(name: "Alice", resume: token)
      #expect(
        resumed
          == ServerMessage.welcome(room: "quick-2", seat: .two, token: token).announcing(
            .serverDefault))
    }
  }

  @Test("a quick-match player away when the opponent left is paired on resuming")
  func awayPlayerIsPairedOnResume() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port, room: nil)
      let token = alice.token
      await alice.close()
      _ = try await bob.state { $0.player(.one)?.connected == false }
      bob.send(.leave(id: 2))
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol")
      #expect(carol.room == "quick-2")
      _ = try await carol.state { $0.phase == .waiting }
      // Alice comes back: into Carol's room, where a match starts at once.
      let again = try await TestClient.connect(port: server.port)
      let welcome = try await again.hello(name: "Alice", resume: token)
      #expect(
        welcome
          == ServerMessage.welcome(room: "quick-2", seat: .two, token: token).announcing(
            .serverDefault))
      let joined = try await again.nextState()
      #expect(joined.view.room == "quick-2" && joined.view.phase == .choosing)
      _ = try await carol.state { $0.phase == .choosing && $0.player(.two)?.name == "Alice" }
      #expect(try await server.lobby().rooms["quick-1"] == nil)
    }
  }

  @Test("spectators see who has chosen, never what, and cannot play")
  func spectators() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      let eve = try await TestClient.connect(port: server.port)
      let welcome = try await eve.hello(name: "Eve", room: "den", role: .spectator)
      #expect(
        welcome
          == ServerMessage.welcome(room: "den", seat: nil, token: nil).announcing(.serverDefault))
      let first = try await eve.nextState()
      #expect(first.view.you == nil && first.view.spectators == 1)
      alice.send(.choose(round: 1, weapon: .paper, id: nil))
      let chosen = try await eve.state { $0.player(.one)?.chosen == true }
      #expect(chosen.players.allSatisfy { $0.weapon == nil })
      eve.send(.choose(round: 1, weapon: .rock, id: 5))
      let refused = try await eve.expectError(.notPlaying)
      #expect(refused.re == 5)
      bob.send(.choose(round: 1, weapon: .rock, id: nil))
      let resolved = try await eve.state { $0.history.count == 1 }
      #expect(resolved.history[0].weapons == [.paper, .rock])
    }
  }

  @Test("rematch: when both ask, a new match starts with scores at 0")
  func rematch() async throws {
    try await withServer(settings: .init(bestOf: 1)) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      let (over, _) = try await playRound(alice, .rock, bob, .scissors, round: 1)
      #expect(over.phase == .over)
      alice.send(.rematch(id: nil))
      let asked = try await bob.state { $0.rematch == [.one] }
      #expect(asked.phase == .over)
      bob.send(.rematch(id: nil))
      let fresh = try await alice.state { $0.phase == .choosing }
      #expect(fresh.round == 1 && fresh.history.isEmpty)
      #expect(fresh.players.allSatisfy { $0.score == 0 })
    }
  }

  @Test("a round deadline passing resolves the round against the seat that did not pick")
  func deadline() async throws {
    try await withServer(settings: .init(roundMillis: 400)) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      alice.send(.choose(round: 1, weapon: .rock, id: nil))
      let resolved = try await bob.state { $0.history.count == 1 }
      #expect(resolved.history[0].weapons == [.rock, nil])
      #expect(resolved.history[0].winner == .one)
      #expect(resolved.round == 2 && resolved.deadline != nil)
    }
  }

  @Test("a dropped seat is held, taken back with its token, then forfeited after the grace")
  func dropResumeForfeit() async throws {
    try await withServer(settings: .init(graceMillis: 600)) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      let token = try #require(bob.token)
      await bob.close()
      let away = try await alice.state { $0.player(.two)?.connected == false }
      #expect(away.phase == .choosing)
      let again = try await TestClient.connect(port: server.port)
      let welcome = try await again.hello(name: "Bob", resume: token)
      #expect(
        welcome
          == ServerMessage.welcome(room: "den", seat: .two, token: token).announcing(.serverDefault)
      )
      let back = try await alice.state { $0.player(.two)?.connected == true }
      #expect(back.phase == .choosing)
      // Now drop for good: the grace runs out and Alice wins by forfeit.
      await again.close()
      let over = try await alice.state { $0.phase == .over }
      #expect(over.winner == .one)
      #expect(over.player(.two)?.left == true)
      let late = try await TestClient.connect(port: server.port)
      late.send(
        .hello(
          protocol: WireProtocol.version, name: "Bob", role: .player, room: nil, resume: token,
          id: 3)
      )
      let (error, re) = try await late.expectError(.badToken)
      #expect(error.fatal && re == 3)
      await late.waitUntilClosed()
      #expect(late.inbox.isClosed)
    }
  }

  @Test("no byte sent to a seat reveals the other seat's pick before the round resolves")
  func secrecyOnTheWire() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      // Bob picks first each round, with weapons Alice does not use.
      let rounds: [(alice: Weapon, bob: Weapon)] = [
        (.rock, .scissors), (.rock, .paper), (.scissors, .paper),
      ]
      for (index, round) in rounds.enumerated() {
        let number = index + 1
        let before = alice.inbox.frames.count
        bob.send(.choose(round: number, weapon: round.bob, id: nil))
        let told = try await alice.state { $0.player(.two)?.chosen == true && $0.round == number }
        #expect(told.player(.two)?.weapon == nil)
        let earlierBobWeapons = Set(rounds.prefix(index).map(\.bob))
        if !earlierBobWeapons.contains(round.bob) {
          for frame in alice.inbox.frames[before...] {
            #expect(!String(decoding: frame, as: UTF8.self).contains("\"\(round.bob.rawValue)\""))
          }
        }
        alice.send(.choose(round: number, weapon: round.alice, id: nil))
        _ = try await alice.state { $0.history.count == number || $0.phase == .over }
      }
    }
  }

  @Test("100 rooms played at once")
  func hundredRooms() async throws {
    try await withServer(dataDirectory: temporaryDataDirectory()) { server in
      try await withThrowingTaskGroup(of: Seat?.self) { group in
        for index in 0..<100 {
          group.addTask {
            let (alice, bob) = try await seatTwo(port: server.port, room: "room-\(index)")
            var round = 1
            while true {
              let (view, _) = try await playRound(
                alice, [.rock, .paper, .scissors][index % 3], bob,
                [.scissors, .rock, .paper][round % 3],
                round: round)
              if view.phase == .over {
                await alice.close()
                await bob.close()
                return view.winner
              }
              round = view.round
            }
          }
        }
        var finished = 0
        for try await winner in group where winner != nil { finished += 1 }
        #expect(finished == 100)
      }
    }
  }

  @Test("every player hears welcome before any state, even when both hellos arrive together")
  func welcomeComesFirst() async throws {
    try await withServer { server in
      var clients: [TestClient] = []
      for _ in 0..<60 { clients.append(try await TestClient.connect(port: server.port)) }
      // Both players of a room say hello at once, so the hub often takes both in one tick.
      for (index, client) in clients.enumerated() {
        client.send(
          .hello(
            protocol: WireProtocol.version, name: "P\(index)", role: .player, room: "r\(index / 2)",
            resume: nil, id: nil
          ))
      }
      for client in clients {
        guard case .welcome = try await client.next() else {
          Issue.record("the first message was not welcome: \(client.inbox.messages)")
          continue
        }
      }
    }
  }
}
