import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboServer

/// What went wrong in the first minutes of a real party, each against a real server over
/// TLS: someone idle in the lobby, a tournament entrant coming back.
@Suite("A party evening: the lobby and the tournament over time")
struct PartyEveningTests {
  func connection(port: Int) async throws -> ServerConnection {
    try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: TestCertificates.client)
  }

  @Test("someone sitting in the lobby without a key pressed is never dropped as idle")
  func idleLobby() async throws {
    try await withServer(limits: { $0.idleTimeoutSeconds = 1 }) { server in
      let port = server.port
      // Alice follows first, as the lobby screen does, pinging every 200 ms; a client that
      // sends nothing after its hello follows after her and is dropped by the idle limit.
      let alice = try await connection(port: port)
      let seen = NIOLockedValueBox<(mute: Bool, muteGone: Bool)>((false, false))
      let following = Task {
        try await LobbyFollower.follow(
          alice, name: "Alice", takesChallenges: true, keepalive: .milliseconds(200)
        ) { event in
          guard case .view(_, let view) = event else { return true }
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
      _ = try await following.value
      #expect(seen.withLockedValue { $0.muteGone })
      await alice.close()
    }
  }

  @Test("a tournament entrant who lost their connection is seated again on returning")
  func returningEntrant() async throws {
    var configuration = ServerConfiguration(
      certificateChainFile: TestCertificates.files.serverCertificate,
      privateKeyFile: TestCertificates.files.serverKey, dataDirectory: temporaryDataDirectory())
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.roomSettings = .init(bestOf: 1)
    configuration.tournament = .singleElimination
    configuration.tournamentPlayers = 2
    configuration.limits.maxConnectionsPerAddress = 10_000
    var logger = Logger(label: "test.server")
    logger.logLevel = .warning
    try await withServer(configuration, logger: logger) { server in
      var seats: [String: String] = [:]
      var clients: [TestClient] = []
      for name in ["Alice", "Bob"] {
        let client = try await TestClient.connect(port: server.port)
        client.send(
          .hello(
            protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
            fair: true, challenges: true, id: 1))
        _ = try await client.lobby { _ in true }
        client.send(.enter(id: 2))
        clients.append(client)
      }
      for (name, client) in zip(["Alice", "Bob"], clients) {
        while true {
          if case .welcome(let room, _?, _?) = try await client.next() {
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
      let again = try await connection(port: server.port)
      let seated = try await LobbyFollower.follow(again, name: "Bob", takesChallenges: true) {
        _ in true
      }
      #expect(seated?.room == room)
      #expect(seated?.seat == .two || seated?.seat == .one)
      await again.close()
      await clients[0].close()
    }
  }

  @Test("a tournament's entries say when they close; its rooms say their round and the champion")
  func tournamentStage() async throws {
    var configuration = ServerConfiguration(
      certificateChainFile: TestCertificates.files.serverCertificate,
      privateKeyFile: TestCertificates.files.serverKey, dataDirectory: temporaryDataDirectory())
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.roomSettings = .init(bestOf: 1)
    configuration.tournament = .singleElimination
    configuration.tournamentPlayers = 2
    configuration.announceName = "attic"
    let news = NIOLockedValueBox<[String]>([])
    configuration.news = { sentence in news.withLockedValue { $0.append(sentence) } }
    configuration.limits.maxConnectionsPerAddress = 10_000
    var logger = Logger(label: "test.server")
    logger.logLevel = .warning
    try await withServer(configuration, logger: logger) { server in
      var clients: [TestClient] = []
      for name in ["Alice", "Bob"] {
        let client = try await TestClient.connect(port: server.port)
        client.send(
          .hello(
            protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
            fair: true, challenges: true, id: 1))
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
