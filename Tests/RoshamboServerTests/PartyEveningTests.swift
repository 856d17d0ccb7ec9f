import ClientFixtures
import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboServer

/// A server with a single-elimination tournament of best-of-1 matches that starts once
/// two have entered.
func tournamentConfiguration() -> ServerConfiguration {
  var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
  configuration.roomSettings = .init(bestOf: 1)
  configuration.tournament = .singleElimination
  configuration.tournamentPlayers = 2
  configuration.limits.maxConnectionsPerAddress = 10_000
  return configuration
}

/// `name` following the lobby, able to play from it, with the identity kept for
/// `person` (by default `name`'s own; nil: none).
func lobbyFollower(
  _ name: String, port: Int, as person: String?? = .none, challenges: Bool = true
) async throws -> TestClient {
  let client = try await TestClient.connect(port: port, as: person ?? name)
  client.send(
    .hello(
      protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
      fair: true, challenges: challenges, id: 1))
  return client
}

/// What went wrong in the first minutes of a real party, each against a real server over
/// TLS: someone idle in the lobby, a tournament entrant coming back.
@Suite("A party evening: the lobby and the tournament over time")
struct PartyEveningTests {
  func connection(port: Int) async throws -> ServerConnection {
    try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: TestCertificates.client)
  }

  @Test("someone sitting in the lobby without a key pressed is never dropped as idle")
  func idleLobby() async throws {
    // An idle limit of 10 s and Alice's pings every 2 s: her core takes a server silent
    // for two intervals with a ping unanswered for lost, and on a loaded CI machine a
    // pong took longer than the 400 ms that pings every 200 ms allowed (she left first).
    try await withServer(limits: { $0.idleTimeoutSeconds = 10 }) { server in
      let port = server.port
      // Alice follows first, as the lobby screen does, pinging every 2 s; a client that
      // sends nothing after its hello follows after her and is dropped by the idle limit.
      let alice = try await connection(port: port)
      let seen = NIOLockedValueBox<(mute: Bool, muteGone: Bool)>((false, false))
      let following = Task {
        await LobbyFollower.follow(
          alice, name: "Alice", takesChallenges: true, keepaliveMillis: 2_000
        ) { news, _ in
          guard case .view(_, let view) = news else { return true }
          let mute = view.people.contains { $0.name == "Mute" }
          return seen.withLockedValue {
            if mute { $0.mute = true } else if $0.mute { $0.muteGone = true }
            return !$0.muteGone
          }
        }
      }
      let mute = try await TestClient.connect(port: port)
      mute.send(
        .hello(
          protocol: WireProtocol.version, name: "Mute", role: .lobby, room: nil, resume: nil,
          id: 1))
      await mute.waitUntilClosed()
      // Alice, idle longer than Mute, is still there to see Mute go.
      let outcome = await following.value
      #expect(outcome == .stopped, "\(outcome)")
      #expect(seen.withLockedValue { $0.muteGone })
      await alice.close()
    }
  }

  @Test("a tournament entrant who lost their connection is seated again on returning")
  func returningEntrant() async throws {
    let configuration = tournamentConfiguration()
    try await withServer(configuration) { server in
      var seats: [String: String] = [:]
      var clients: [TestClient] = []
      for name in ["Alice", "Bob"] {
        let client = try await lobbyFollower(name, port: server.port)
        _ = try await client.lobby { _ in true }
        client.send(.enter(id: 2))
        clients.append(client)
      }
      for (name, client) in zip(["Alice", "Bob"], clients) {
        while true {
          if case .welcome(let room, _?, _?, _) = try await client.next() {
            seats[name] = room
            break
          }
        }
      }
      let room = try #require(seats["Bob"])
      #expect(seats["Alice"] == room && Tournament.isTournamentRoom(room))
      // Bob's connection goes; he comes back through the lobby, as `roshambo` does.
      await clients[1].close()
      _ = try await clients[0].state { view in
        view.players.contains { $0.name == "Bob" && !$0.connected }
      }
      let again = try await ServerConnection.connect(
        host: "127.0.0.1", port: server.port, tls: TestCertificates.client(as: "Bob"))
      let seated = await LobbyFollower.follow(again, name: "Bob", takesChallenges: true) {
        _, _ in true
      }
      #expect(
        seated == .seated(room: room, seat: .two) || seated == .seated(room: room, seat: .one),
        "\(seated)")
      await again.close()
      await clients[0].close()
    }
  }

  @Test("an entrant watching a match from the lobby is called to their own when it is paired")
  func watchingEntrantCalled() async throws {
    var configuration = tournamentConfiguration()
    configuration.tournamentPlayers = 3
    configuration.tournamentPauseMillis = 100
    try await withServer(configuration) { server in
      var followers: [String: TestClient] = [:]
      for name in ["Alice", "Bob", "Carol"] {
        let client = try await lobbyFollower(name, port: server.port)
        _ = try await client.lobby { _ in true }
        client.send(.enter(id: 2))
        followers[name] = client
      }
      // Round 1: two are seated, the third has a bye.
      let view = try await followers["Alice"]!.lobby { $0.tournament?.phase == .running }
      let round = try #require(view.tournament?.pairings.first { !$0.isBye })
      let room = try #require(round.room)
      let bye = try #require(["Alice", "Bob", "Carol"].first { !round.players.contains($0) })
      // The one with the bye leaves the lobby to watch the round's match, as `w` does; an
      // impostor watches under the same name with another identity.
      await followers[bye]!.close()
      var watchers: [TestClient] = []
      for person in [bye, "Mallory"] {
        let watcher = try await TestClient.connect(port: server.port, as: person)
        watcher.send(
          .hello(
            protocol: WireProtocol.version, name: bye, role: .spectator, room: room,
            resume: nil, fair: nil, challenges: false, id: 1))
        _ = try await watcher.state { _ in true }
        watchers.append(watcher)
      }
      // The match is played; the final pairs the winner with the one watching.
      for name in round.players {
        let player = followers[name]!
        let seated = try await player.state { $0.room == room && $0.phase == .choosing }
        player.send(
          .choose(round: seated.round, weapon: name == round.players[0] ? .rock : .scissors, id: 3))
      }
      let called = try await watchers[0].nextError()
      #expect(called.code == .matchReady)
      #expect(!called.fatal)
      #expect(called.message.contains("Your tournament match is ready"), "\(called)")
      // The impostor is not called: its next answer is its ping's.
      watchers[1].send(.ping(id: 9))
      while true {
        let message = try await watchers[1].next()
        if case .error(let error, _) = message { Issue.record("impostor told \(error)") }
        if case .pong = message { break }
      }
      for client in watchers + Array(followers.values) { await client.close() }
    }
  }

  @Test("a player whose link goes quiet after promising pings is shown away within seconds")
  func quietLink() async throws {
    try await withServer { server in
      // The idle limit stays at 60 s: Alice promised a ping every second, so three
      // seconds' silence (at least five) is enough to take her connection for lost.
      let alice = try await TestClient.connect(port: server.port)
      alice.send(
        .hello(
          protocol: WireProtocol.version, name: "Alice", role: .player, room: "den",
          resume: nil, keepalive: 1, id: 1))
      let bob = try await TestClient.connect(port: server.port)
      try await bob.hello(name: "Bob", room: "den")
      _ = try await bob.state { $0.phase == .choosing }
      // Alice sends nothing more, as over a dead link: Bob is told well before the idle
      // limit (each state must come within 10 s).
      let away = try await bob.state { view in
        view.players.contains { $0.name == "Alice" && !$0.connected }
      }
      #expect(away.phase == .choosing)
      // What Alice's connection was told last, had it still been there to read it.
      var last = try await alice.next()
      while case .state = last { last = try await alice.next() }
      if case .welcome = last { last = try await alice.next() }
      while case .state = last { last = try await alice.next() }
      guard case .error(let closing, _) = last else {
        Issue.record("Alice's connection was not told why it closed: \(last)")
        return
      }
      #expect(closing.code == .timeout)
      #expect(closing.message.contains("Nothing came from your program for 5 s"))
      await bob.close()
    }
  }

  @Test("a tournament's entries say when they close; its rooms say their round and the champion")
  func tournamentStage() async throws {
    var configuration = tournamentConfiguration()
    configuration.announceName = "attic"
    let news = NIOLockedValueBox<[String]>([])
    configuration.news = { sentence in news.withLockedValue { $0.append(sentence) } }
    try await withServer(configuration) { server in
      var clients: [TestClient] = []
      for name in ["Alice", "Bob"] {
        let client = try await lobbyFollower(name, port: server.port)
        let view = try await client.lobby { _ in true }
        #expect(view.server == "attic")
        #expect(view.tournament?.startsWith == 2)
        client.send(.enter(id: 2))
        clients.append(client)
      }
      for client in clients {
        let first = try await client.state { $0.phase == .choosing }
        #expect(
          first.tournament
            == .init(kind: .singleElimination, phase: .running, round: 1, rounds: 1))
      }
      clients[0].send(.choose(round: 1, weapon: .rock, id: 3))
      clients[1].send(.choose(round: 1, weapon: .scissors, id: 3))
      let over = try await clients[0].state { $0.phase == .over }
      #expect(over.tournament?.phase == .finished)
      #expect(over.tournament?.champion == "Alice")
      for client in clients { await client.close() }
      // The host read it in sentences.
      #expect(
        news.withLockedValue { $0 }.suffix(5) == [
          "Alice entered the tournament (1 of 2)", "Bob entered the tournament (2 of 2)",
          "round 1 of 1 paired: Alice vs Bob", "Alice beat Bob 1–0 in cup-1-1-1",
          "Alice is the champion",
        ])
    }
  }
}

/// Names are identities: who may play under which name, over real TLS with each client's
/// key, across a restart.
@Suite("Server: names held by player identities")
struct NameIdentityTests {
  func follow(_ name: String, port: Int, as person: String?, challenges: Bool = true)
    async throws -> TestClient
  {
    try await lobbyFollower(name, port: port, as: .some(person), challenges: challenges)
  }

  @Test("the first key to use a name holds it, after a restart too; others are refused")
  func heldAcrossRestart() async throws {
    let data = temporaryDataDirectory()
    try await withServer(dataDirectory: data) { server in
      let carol = try await follow("Carol", port: server.port, as: "carol-key")
      _ = try await carol.lobby { _ in true }
      // Another key under her name, in the lobby or as a player, is refused at the door.
      let other = try await follow("Carol", port: server.port, as: "other-key")
      let refused = try await other.expectError(.nameTaken)
      #expect(refused.error.fatal)
      #expect(refused.error.message.contains("belongs to another player"))
      let player = try await TestClient.connect(port: server.port, as: "other-key")
      #expect(
        try await player.hello(name: "Carol", room: "den")
          == .error(refused.error, re: 1))
      // Nor in other letters' case.
      let lower = try await follow("carol", port: server.port, as: "other-key")
      #expect(try await lower.expectError(.nameTaken).error.fatal)
      // A client without any key too.
      let keyless = try await TestClient.connect(port: server.port)
      guard case .error(let error, _) = try await keyless.hello(name: "Carol", room: "den")
      else {
        Issue.record("a client without a key took a name a key holds")
        return
      }
      #expect(error.code == .nameTaken)
      await carol.close()
    }
    try await withServer(dataDirectory: data) { server in
      let other = try await follow("Carol", port: server.port, as: "other-key")
      #expect(try await other.expectError(.nameTaken).error.fatal)
      let carol = try await follow("Carol", port: server.port, as: "carol-key")
      let view = try await carol.lobby { _ in true }
      #expect(view.people.map(\.name) == ["Carol"])
      await carol.close()
    }
    // The host releases the name: the next key to use it holds it.
    var configuration = testConfiguration(dataDirectory: data)
    configuration.releasedNames = ["Carol"]
    try await withServer(configuration) { server in
      let other = try await follow("Carol", port: server.port, as: "other-key")
      _ = try await other.lobby { _ in true }
      await other.close()
      let carol = try await follow("Carol", port: server.port, as: "carol-key")
      #expect(try await carol.expectError(.nameTaken).error.fatal)
    }
  }

  @Test("a look at the lobby under a held name never keeps the name's holder out")
  func looksLockNobodyOut() async throws {
    try await withServer { server in
      let alice = try await follow("Alice", port: server.port, as: "alice-key")
      _ = try await alice.lobby { _ in true }
      await alice.close()
      // Someone else's `roshambo who` under the same login name, and a keyless one: both
      // stay (they ping), and neither is anyone.
      let look = try await follow("Alice", port: server.port, as: "mallory-key", challenges: false)
      _ = try await look.lobby { _ in true }
      let keyless = try await follow("Alice", port: server.port, as: nil, challenges: false)
      _ = try await keyless.lobby { _ in true }
      // Alice's lobby screen, and a match of hers, are let in while they look.
      let back = try await follow("Alice", port: server.port, as: "alice-key")
      let view = try await back.lobby { view in
        view.people.contains { $0.name == "Alice" && $0.takesChallenges }
      }
      #expect(view.people.filter { $0.name == "Alice" }.count == 1)
      let player = try await TestClient.connect(port: server.port, as: "alice-key")
      let answer = try await player.hello(name: "Alice", room: "den")
      guard case .welcome(let room, _, _, _) = answer else {
        Issue.record("Alice's own match was refused while others looked: \(answer)")
        return
      }
      #expect(room == "den")
      await look.close()
      await keyless.close()
    }
  }

  @Test("two people in the lobby never share a name; the same person's screens are one")
  func oneNameOnePerson() async throws {
    try await withServer { server in
      // Without keys nobody can tell two Daves apart: the second is refused.
      let dave = try await follow("Dave", port: server.port, as: nil)
      _ = try await dave.lobby { _ in true }
      let second = try await follow("Dave", port: server.port, as: nil)
      let refused = try await second.expectError(.nameTaken)
      #expect(refused.error.message.contains("Someone here is already called Dave"))
      // Erin's lobby screen and her `roshambo who` beside it are one person.
      let erin = try await follow("Erin", port: server.port, as: "erin-key")
      _ = try await erin.lobby { $0.people.contains { $0.name == "Erin" } }
      let who = try await follow("Erin", port: server.port, as: "erin-key", challenges: false)
      let seen = try await who.lobby { _ in true }
      #expect(seen.people.filter { $0.name == "Erin" }.count == 1)
      #expect(seen.peopleCount == 2)
      await who.close()
      // A look from another machine whose login name is Erin too: not refused (it acts on
      // nothing), and not shown as her.
      let look = try await follow("Erin", port: server.port, as: "frank-key", challenges: false)
      let looked = try await look.lobby { _ in true }
      #expect(looked.people.filter { $0.name == "Erin" }.count == 1)
      await look.close()
      // Her `who` leaving takes nothing from her: she is still there, able to play.
      let after = try await dave.lobby { view in
        view.people.contains { $0.name == "Erin" && $0.takesChallenges }
      }
      #expect(after.peopleCount == 2)
      // Erin opens her lobby again elsewhere: the old one is told, and fatally, so that it
      // does not come back and take the lobby from the new one.
      let again = try await follow("Erin", port: server.port, as: "erin-key")
      _ = try await again.lobby { _ in true }
      let told = try await erin.nextError()
      #expect(told.fatal)
      #expect(told.message.contains("opened again in another terminal"), "\(told)")
      await erin.waitUntilClosed()
      for client in [dave, again] { await client.close() }
    }
  }

  @Test("an entrant's own lookers leaving keep the entry; an impostor cannot withdraw it")
  func entryKept() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.tournament = .roundRobin
    configuration.limits.maxConnectionsPerAddress = 10_000
    try await withServer(configuration) { server in
      let alice = try await follow("Alice", port: server.port, as: "alice-key")
      _ = try await alice.lobby { _ in true }
      alice.send(.enter(id: 2))
      _ = try await alice.lobby { $0.tournament?.standings.map(\.name) == ["Alice"] }
      let who = try await follow("Alice", port: server.port, as: "alice-key", challenges: false)
      _ = try await who.lobby { _ in true }
      who.send(.leave(id: 3))
      await who.waitUntilClosed()
      let impostor = try await follow("Alice", port: server.port, as: "mallory-key")
      #expect(try await impostor.expectError(.nameTaken).error.fatal)
      // A change everyone sees, after both: the entry is still there.
      let bob = try await follow("Bob", port: server.port, as: "bob-key")
      let view = try await alice.lobby { $0.people.contains { $0.name == "Bob" } }
      #expect(view.tournament?.standings.map(\.name) == ["Alice"])
      for client in [alice, bob] { await client.close() }
    }
  }
}

/// One tournament after another on the same server and journal.
@Suite("Server: the next tournament")
struct NextTournamentTests {
  @Test("once a tournament ends the next opens by itself, numbered on, the matches kept")
  func nextOpens() async throws {
    let data = temporaryDataDirectory()
    var configuration = testConfiguration(dataDirectory: data)
    configuration.roomSettings = .init(bestOf: 1)
    configuration.tournament = .singleElimination
    configuration.tournamentPlayers = 2
    configuration.tournamentNextMillis = 100
    configuration.limits.maxConnectionsPerAddress = 10_000
    try await withServer(configuration) { server in
      var clients: [TestClient] = []
      for name in ["Alice", "Bob"] {
        let client = try await lobbyFollower(name, port: server.port)
        _ = try await client.lobby { $0.tournament?.phase == .entry }
        clients.append(client)
      }
      for round in 1...2 {
        for client in clients { client.send(.enter(id: 10 + round)) }
        for client in clients {
          let view = try await client.state { $0.phase == .choosing }
          #expect(view.room == "cup-\(round)-1-1")
        }
        clients[0].send(.choose(round: 1, weapon: .paper, id: 20 + round))
        clients[1].send(.choose(round: 1, weapon: .rock, id: 20 + round))
        _ = try await clients[0].state { $0.phase == .over }
        // Back in the lobby: the champion named, then the next tournament taking entries.
        for client in clients {
          client.send(.leave(id: 30 + round))
          await client.waitUntilClosed()
        }
        clients = []
        for name in ["Alice", "Bob"] {
          let client = try await lobbyFollower(name, port: server.port)
          let view = try await client.lobby {
            $0.tournament?.phase == .entry && $0.recent.count == round
          }
          #expect(view.recent.allSatisfy { $0.players[$0.winner.rawValue - 1] == "Alice" })
          clients.append(client)
        }
      }
      for client in clients { await client.close() }
    }
  }
  @Test("an entrant whose connection drops keeps the entry for the grace, and loses it after")
  func entryGrace() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.roomSettings = .init(bestOf: 1, graceMillis: 5_000)
    configuration.tournament = .roundRobin
    configuration.limits.maxConnectionsPerAddress = 10_000
    try await withServer(configuration) { server in
      func follow(_ name: String) async throws -> TestClient {
        let client = try await lobbyFollower(name, port: server.port)
        _ = try await client.lobby { _ in true }
        return client
      }
      let alice = try await follow("Alice")
      for name in ["Bob", "Carol"] {
        let client = try await follow(name)
        client.send(.enter(id: 2))
        _ = try await alice.lobby { $0.tournament?.standings.contains { $0.name == name } == true }
        await client.close()
      }
      // Bob is back within the grace, Carol is not: hers goes, his stays.
      let bob = try await follow("Bob")
      let view = try await alice.lobby { view in
        view.tournament?.standings.contains { $0.name == "Carol" } == false
      }
      #expect(view.tournament?.standings.map(\.name) == ["Bob"])
      // One entrant left: no countdown to a start that cannot come.
      #expect(view.tournament?.startsAt == nil)
      // Carol, back, is told her entry went, after her first lobby view.
      let carol = try await follow("Carol")
      let told = try await carol.nextError()
      #expect(told.code == .tournamentClosed)
      #expect(!told.fatal)
      #expect(told.message.contains("Your tournament entry was withdrawn"), "\(told)")
      for client in [alice, bob, carol] { await client.close() }
    }
  }
}
