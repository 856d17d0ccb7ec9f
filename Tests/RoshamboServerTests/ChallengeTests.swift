import Foundation
import Logging
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboServer

/// Challenges over real TLS: one accepted and played, one declined, one left to expire,
/// one withdrawn by the challenger going, the refusals, and a restart after an accept.
@Suite("Server: challenges in the lobby")
struct ChallengeTests {
  /// Connects `name` as a follower of the lobby that takes challenges (or only looks),
  /// and waits until its first view lists `sees` people.
  func follower(
    _ name: String, port: Int, takesChallenges: Bool = true, fair: Bool? = true, sees: Int = 1
  ) async throws -> TestClient {
    let client = try await TestClient.connect(port: port, as: name)
    client.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: fair, challenges: takesChallenges, id: 1))
    _ = try await client.lobby { $0.peopleCount >= sees }
    return client
  }

  @Test("accepted: both are told, welcomed into duel-1 with the terms, and play it")
  func accepted() async throws {
    try await withServer(settings: .init(bestOf: 3)) { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      let seen = try await alice.lobby { $0.peopleCount == 2 }
      #expect(
        seen.people == [
          .init(name: "Alice", status: .idle, room: nil, takesChallenges: true),
          .init(name: "Bob", status: .idle, room: nil, takesChallenges: true),
        ])
      alice.send(.challenge(name: "Bob", bestOf: 1, ruleset: .lizardSpock, fair: false, id: 2))
      let offered = try await alice.challenge()
      #expect(offered.status == .pending)
      #expect(
        [offered.from, offered.to, "\(offered.bestOf)", offered.ruleset.rawValue]
          == ["Alice", "Bob", "1", "lizardSpock"])
      #expect(try await bob.challenge() == offered)

      bob.send(.accept(challenge: offered.id, id: 3))
      for (client, seat) in [(alice, Seat.one), (bob, .two)] {
        #expect(try await client.challenge().status == .accepted)
        guard case .welcome(let room, seat?, let token?, _) = try await client.next() else {
          Issue.record("no welcome after the accept")
          return
        }
        #expect(room == "duel-1")
        #expect(!token.isEmpty)
        let state = try await client.state { _ in true }
        #expect(state.phase == .choosing && state.you == seat)
        #expect(state.ruleset == .lizardSpock && state.bestOf == 1)
      }
      // They play it as any match; a lobby view no longer goes to them.
      alice.send(.choose(round: 1, weapon: .spock, id: 4))
      bob.send(.choose(round: 1, weapon: .rock, id: 5))
      let over = try await alice.state { $0.phase == .over }
      #expect(over.winner == .one)
      // Eve's first view may be the only one (nothing changes after it): read it.
      let eve = try await TestClient.connect(port: server.port)
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          id: 1))
      let lobby = try await eve.lobby { $0.rooms.first?.name == "duel-1" }
      #expect(lobby.rooms.first?.players == ["Alice", "Bob"])
      let messages = alice.inbox.messages
      let welcomed = try #require(
        messages.firstIndex { if case .welcome = $0 { true } else { false } })
      #expect(!messages[welcomed...].contains { $0.isLobby })
      await alice.close()
      await bob.close()
      await eve.close()
    }
  }

  @Test("on a --fair server a challenge that does not say fair is fair, and so is its room")
  func fairByDefault() async throws {
    try await withServer(settings: .init(bestOf: 1, fair: true)) { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      _ = try await alice.lobby { $0.peopleCount == 2 }
      // fair: false is not sent: the challenge names no "fair" at all.
      alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      let offered = try await alice.challenge()
      #expect(offered.fair, "the challenge's terms are not fair on a --fair server")
      #expect(try await bob.challenge() == offered)
      bob.send(.accept(challenge: offered.id, id: 3))
      for client in [alice, bob] {
        #expect(try await client.challenge().status == .accepted)
        guard case .welcome = try await client.next() else {
          Issue.record("no welcome after the accept")
          return
        }
        let state = try await client.state { _ in true }
        #expect(state.fair, "the challenge's room is not fair on a --fair server")
      }
      await alice.close()
      await bob.close()
    }
  }

  @Test("declined, withdrawn: both sides told how it ended, once")
  func endings() async throws {
    try await withServer { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      let first = try await bob.challenge()
      #expect(first.bestOf == 3 && first.ruleset == .classic)
      bob.send(.decline(challenge: first.id, id: 3))
      #expect(try await alice.challenge(skipping: .pending) == with(first, .declined))
      #expect(try await bob.challenge() == with(first, .declined))
      bob.send(.accept(challenge: first.id, id: 4))
      #expect(try await bob.expectError(.noSuchChallenge, skippingLobby: true).re == 4)

      // The challenger goes: Bob is told it is withdrawn.
      alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 6))
      let second = try await bob.challenge()
      await alice.close()
      #expect(try await bob.challenge() == with(second, .withdrawn))
      await bob.close()
    }
  }

  @Test("seated by another challenge: both sides of the one it ends are told withdrawn")
  func withdrawnToBoth() async throws {
    try await withServer { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      let carol = try await follower("Carol", port: server.port, sees: 3)
      alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      let toBob = try await bob.challenge()
      carol.send(.challenge(name: "Alice", bestOf: nil, ruleset: nil, fair: false, id: 3))
      var toAlice = try await alice.challenge()
      while toAlice.from != "Carol" { toAlice = try await alice.challenge() }
      alice.send(.accept(challenge: toAlice.id, id: 4))
      // Alice, seated with Carol, hears that her challenge to Bob ended, then her welcome.
      var heard: [ChallengeNotice] = []
      while true {
        let message = try await alice.next()
        if case .challenge(let notice) = message { heard.append(notice) }
        if case .welcome = message { break }
      }
      #expect(heard.contains(with(toBob, .withdrawn)), "\(heard.map(\.status))")
      #expect(heard.last == with(toAlice, .accepted), "accepted comes right before the welcome")
      #expect(try await bob.challenge() == with(toBob, .withdrawn))
      for client in [alice, bob, carol] { await client.close() }
    }
  }

  @Test("keyless connections at one address cannot keep someone busy; declined for the evening")
  func griefersAndTheEvening() async throws {
    try await withServer { server in
      let bob = try await follower("Bob", port: server.port)
      // Five followers without an identity, from one address (every test client's).
      var griefers: [TestClient] = []
      for index in 0..<5 {
        let griefer = try await TestClient.connect(port: server.port)
        griefer.send(
          .hello(
            protocol: WireProtocol.version, name: "G\(index)", role: .lobby, room: nil,
            resume: nil, fair: true, challenges: true, id: 1))
        _ = try await griefer.lobby { _ in true }
        griefers.append(griefer)
      }
      griefers[0].send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      #expect(try await griefers[0].challenge().status == .pending)
      for griefer in griefers.dropFirst() {
        griefer.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 3))
        #expect(try await griefer.expectError(.challengeLimit, skippingLobby: true).re == 3)
      }
      // Bob is not busy to others: Carol challenges him, and he declines her for the
      // evening.
      let carol = try await follower("Carol", port: server.port, sees: 7)
      carol.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 4))
      let fromCarol = try await carol.challenge()
      #expect(fromCarol.status == .pending)
      bob.send(.decline(challenge: fromCarol.id, block: true, id: 5))
      // She is told it is for the evening.
      var forTheEvening = with(fromCarol, .declined)
      forTheEvening.forTheEvening = true
      #expect(try await carol.challenge(skipping: .pending) == forTheEvening)
      carol.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 6))
      let refused = try await carol.expectError(.busy, skippingLobby: true)
      #expect(refused.re == 6)
      #expect(refused.error.message.contains("Bob declines your challenges"))
      // Her lobby opened again (her identity) is refused too; Bob may still challenge her.
      let again = try await follower("Carol", port: server.port, sees: 7)
      await carol.waitUntilClosed()
      again.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 7))
      #expect(try await again.expectError(.busy, skippingLobby: true).re == 7)
      bob.send(.challenge(name: "Carol", bestOf: nil, ruleset: nil, fair: false, id: 8))
      #expect(try await again.challenge().status == .pending)
      for client in griefers + [bob, carol, again] { await client.close() }
    }
  }

  @Test("expired: nobody answers in time, both are told, and a late answer is refused")
  func expired() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.challengeLifetimeMillis = 300
    try await withServer(configuration) { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      alice.send(.challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      let offered = try await bob.challenge()
      #expect(try await bob.challenge() == with(offered, .expired))
      #expect(try await alice.challenge(skipping: .pending) == with(offered, .expired))
      bob.send(.accept(challenge: offered.id, id: 5))
      #expect(try await bob.expectError(.noSuchChallenge, skippingLobby: true).re == 5)
      await alice.close()
      await bob.close()
    }
  }

  @Test("refusals: nobody, yourself, someone playing, someone only looking, fair, not following")
  func refusals() async throws {
    try await withServer { server in
      let alice = try await follower("Alice", port: server.port)
      let eve = try await follower("Eve", port: server.port, takesChallenges: false, sees: 2)
      let old = try await follower("Olga", port: server.port, fair: nil, sees: 3)
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol", room: "den")
      _ = try await carol.state { _ in true }
      _ = try await alice.lobby { $0.peopleCount == 4 }
      for (name, code, fair) in [
        ("Nobody", ErrorCode.noSuchPlayer, false), ("Alice", .noSuchPlayer, false),
        ("Carol", .busy, false), ("Eve", .busy, false), ("Olga", .fairRoom, true),
      ] {
        alice.send(.challenge(name: name, bestOf: nil, ruleset: nil, fair: fair, id: 7))
        let refused = try await alice.expectError(code, skippingLobby: true)
        #expect(refused.re == 7, "\(name)")
        #expect(!refused.error.fatal)
      }
      // Someone who only looks at the lobby, or plays, cannot challenge.
      eve.send(.challenge(name: "Alice", bestOf: nil, ruleset: nil, fair: false, id: 8))
      #expect(try await eve.expectError(.notPlaying, skippingLobby: true).re == 8)
      carol.send(.challenge(name: "Alice", bestOf: nil, ruleset: nil, fair: false, id: 9))
      #expect(try await carol.expectError(.notPlaying).re == 9)
      // A hello that takes challenges must follow the lobby.
      let dave = try await TestClient.connect(port: server.port)
      dave.send(
        .hello(
          protocol: WireProtocol.version, name: "Dave", role: .player, room: nil, resume: nil,
          challenges: true, id: 1))
      _ = try await dave.expectError(.badMessage)
      for client in [alice, eve, old, carol, dave] { await client.close() }
    }
  }

  @Test("an accepted challenge is journaled: after a restart duel-1 is there to resume")
  func restart() async throws {
    let directory = temporaryDataDirectory()
    var tokens: [Seat: String] = [:]
    // The seats wait through the restart: a grace longer than a loaded machine's restart.
    let settings = RoomState.Settings(graceMillis: 300_000)
    try await withServer(settings: settings, dataDirectory: directory) { server in
      let alice = try await follower("Alice", port: server.port)
      let bob = try await follower("Bob", port: server.port, sees: 2)
      alice.send(.challenge(name: "Bob", bestOf: 5, ruleset: nil, fair: false, id: 2))
      let offered = try await bob.challenge()
      bob.send(.accept(challenge: offered.id, id: 3))
      for client in [alice, bob] {
        _ = try await client.challenge(skipping: .pending)
        guard case .welcome(_, let seat?, let token?, _) = try await client.next() else {
          Issue.record("no welcome")
          return
        }
        tokens[seat] = token
        _ = try await client.state { _ in true }
      }
      alice.send(.choose(round: 1, weapon: .rock, id: 4))
      _ = try await alice.state { $0.player(.one)?.chosen == true }
    }
    try await withServer(settings: settings, dataDirectory: directory) { server in
      let alice = try await TestClient.connect(port: server.port)
      try await alice.hello(name: "Alice", resume: tokens[.one])
      #expect(alice.room == "duel-1" && alice.seat == .one)
      let view = try await alice.state { _ in true }
      #expect(view.bestOf == 5 && view.player(.one)?.chosen == true)
      await alice.close()
    }
  }

  func with(_ notice: ChallengeNotice, _ status: ChallengeNotice.Status) -> ChallengeNotice {
    var ended = notice
    ended.status = status
    return ended
  }
}

extension ServerMessage {
  var isLobby: Bool { if case .lobby = self { true } else { false } }
}

extension TestClient {
  /// The next challenge notice, skipping lobby views (and notices with `skipping`'s
  /// status).
  func challenge(skipping: ChallengeNotice.Status? = nil) async throws -> ChallengeNotice {
    while true {
      switch try await next() {
      case .challenge(let notice) where notice.status != skipping: return notice
      case .lobby, .challenge: continue
      case let other: throw TestClientError.unexpected("expected a challenge, got \(other)")
      }
    }
  }

  /// The next error, which must have `code`, skipping lobby views when asked.
  func expectError(_ code: ErrorCode, skippingLobby: Bool) async throws -> (
    error: ProtocolError, re: Int?
  ) {
    while true {
      let message = try await next()
      if skippingLobby, message.isLobby { continue }
      guard case .error(let error, let re) = message, error.code == code else {
        throw TestClientError.unexpected("expected error \(code), got \(message)")
      }
      return (error, re)
    }
  }
}

/// Entering the server's tournament from the lobby: who may, and the refusals.
@Suite("Server: entering the tournament")
struct TournamentEntryTests {
  @Test(
    "a fair tournament refuses a client that cannot play fair; twice, or not following, refused")
  func entries() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.tournament = .swiss
    configuration.tournamentSettings = .init(bestOf: 1, fair: true)
    try await withServer(configuration) { server in
      let entries = ChallengeTests()
      let old = try await entries.follower("Olga", port: server.port, fair: nil)
      old.send(.enter(id: 2))
      #expect(try await old.expectError(.fairRoom, skippingLobby: true).re == 2)
      let alice = try await entries.follower("Alice", port: server.port, sees: 2)
      alice.send(.enter(id: 3))
      let entered = try await alice.lobby { $0.tournament?.standings.count == 1 }
      #expect(entered.tournament?.standings.map(\.name) == ["Alice"])
      #expect(entered.tournament?.phase == .entry)
      // Alice's lobby again (her identity) is the same person coming back: it replaces
      // the one left behind, keeps her entry, and entering twice is refused. Someone else
      // under her name is refused at the door.
      let twin = try await entries.follower("Alice", port: server.port, sees: 2)
      await alice.waitUntilClosed()
      twin.send(.enter(id: 4))
      #expect(try await twin.expectError(.nameTaken, skippingLobby: true).re == 4)
      let impostor = try await TestClient.connect(port: server.port, as: "Mallory")
      impostor.send(
        .hello(
          protocol: WireProtocol.version, name: "Alice", role: .lobby, room: nil, resume: nil,
          fair: true, challenges: true, id: 1))
      let refused = try await impostor.expectError(.nameTaken)
      #expect(refused.error.fatal)
      #expect(refused.error.message.contains("belongs to another player"))
      // A client without an identity may follow and play, not enter.
      let keyless = try await TestClient.connect(port: server.port)
      keyless.send(
        .hello(
          protocol: WireProtocol.version, name: "Kim", role: .lobby, room: nil, resume: nil,
          fair: true, challenges: true, id: 1))
      _ = try await keyless.lobby { _ in true }
      keyless.send(.enter(id: 2))
      let needs = try await keyless.expectError(.notPlaying, skippingLobby: true)
      #expect(needs.error.message.contains("needs a player identity"))
      twin.send(.withdraw(id: 5))
      _ = try await twin.lobby { $0.tournament?.standings.isEmpty == true }
      let player = try await TestClient.connect(port: server.port)
      try await player.hello(name: "Pat", room: "den", fair: false)
      _ = try await player.state { _ in true }
      player.send(.enter(id: 6))
      #expect(try await player.expectError(.notPlaying).re == 6)
      for client in [old, alice, twin, player, impostor, keyless] { await client.close() }
    }
  }

  @Test("one address enters at most two names, however many identities it makes")
  func entriesPerAddress() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.tournament = .swiss
    configuration.tournamentEntriesPerAddress = 2
    try await withServer(configuration) { server in
      let entries = ChallengeTests()
      var clients: [TestClient] = []
      // Four identities, one address (every test client's): two enter, two are refused.
      for (index, name) in ["Ann", "Ben", "Cid", "Dot"].enumerated() {
        let client = try await entries.follower(name, port: server.port, sees: index + 1)
        clients.append(client)
        client.send(.enter(id: 2))
        if index < 2 {
          _ = try await client.lobby { $0.tournament?.standings.count == index + 1 }
        } else {
          let refused = try await client.expectError(.tournamentClosed, skippingLobby: true)
          #expect(refused.re == 2)
          #expect(refused.error.message.contains("2 entries"), "\(refused.error.message)")
        }
      }
      // A withdrawal frees its place.
      clients[0].send(.withdraw(id: 3))
      _ = try await clients[2].lobby { $0.tournament?.standings.map(\.name) == ["Ben"] }
      clients[2].send(.enter(id: 4))
      let view = try await clients[2].lobby { $0.tournament?.standings.count == 2 }
      #expect(view.tournament?.standings.map(\.name) == ["Ben", "Cid"])
      for client in clients { await client.close() }
    }
  }
}
