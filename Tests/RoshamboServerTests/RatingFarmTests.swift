import Foundation
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboJournal
@testable import RoshamboServer

/// Issue 49, vulnerability 3, as the review ran it: ratings farmed by forfeits of free
/// keyless sybils, by a ring of identities at one address, and by one identity under two
/// names. Real TLS clients, each with its own key and source address.
@Suite("Server: ratings cannot be farmed")
struct RatingFarmTests {
  /// `winner` and `loser` meet in `room` (best of 1); the loser leaves before a round,
  /// or, with `playRound`, loses one. Waits until the winner sees the match over.
  func play(
    _ winner: (name: String, client: TestClient), _ loser: (name: String, client: TestClient),
    in room: String, playRound: Bool
  ) async throws {
    _ = try await winner.client.hello(name: winner.name, room: room, fair: false)
    _ = try await loser.client.hello(name: loser.name, room: room, fair: false)
    _ = try await winner.client.state { $0.phase == .choosing }
    if playRound {
      winner.client.send(.choose(round: 1, weapon: .rock, id: 2))
      loser.client.send(.choose(round: 1, weapon: .scissors, id: 2))
    } else {
      loser.client.send(.leave(id: 2))
    }
    _ = try await winner.client.state { $0.phase == .over }
  }

  @Test("keyless sybils' forfeits, a ring at one address, one key under two names: no rating")
  func farms() async throws {
    let data = temporaryDataDirectory()
    var configuration = testConfiguration(dataDirectory: data)
    configuration.roomSettings = .init(bestOf: 1)
    try await withServer(configuration) { server in
      // Free keyless sybils, each at an address of its own, give Main their forfeits.
      for index in 1...3 {
        let main = try await TestClient.connect(port: server.port, from: "127.0.0.2", as: "main")
        let sybil = try await TestClient.connect(port: server.port, from: "127.0.1.\(index)")
        try await play(
          ("Main", main), ("sybil\(index)", sybil), in: "farm-\(index)", playRound: false)
        for client in [main, sybil] { await client.close() }
      }
      // A ring of identities at Main's own address lose rounds to Main.
      for index in 1...3 {
        let main = try await TestClient.connect(port: server.port, from: "127.0.0.2", as: "main")
        let ring = try await TestClient.connect(
          port: server.port, from: "127.0.0.2", as: "ring\(index)")
        try await play(("Main", main), ("ring\(index)", ring), in: "ring-\(index)", playRound: true)
        for client in [main, ring] { await client.close() }
      }
      // Main's own key, from another address, under a second name.
      let main = try await TestClient.connect(port: server.port, from: "127.0.0.2", as: "main")
      let alt = try await TestClient.connect(port: server.port, from: "127.0.2.1", as: "main")
      try await play(("Main", main), ("Alt", alt), in: "self", playRound: true)
      for client in [main, alt] { await client.close() }
      // An honest match, for contrast: two keys at two addresses, a round played.
      let honest = try await TestClient.connect(port: server.port, from: "127.0.0.2", as: "main")
      let bob = try await TestClient.connect(port: server.port, from: "127.0.3.1", as: "bob")
      try await play(("Main", honest), ("Bob", bob), in: "honest", playRound: true)
      for client in [honest, bob] { await client.close() }
    }
    let history = try MatchHistory(dataDirectory: data)
    let matches = try history.matches(.init(limit: 100))
    #expect(matches.count == 8)
    #expect(
      matches.filter(\.rated).map(\.room) == ["honest"],
      "\(matches.map { "\($0.room) rated \($0.rated)" })")
    // Main's rating is one honest win's; nobody is listed in the lobby.
    let journal = try Journal(directory: data)
    let expected = Glicko2.standard.afterMatch(winner: .unrated, loser: .unrated).winner
    #expect(journal.ratings["Main"] == expected)
    #expect(try journal.leaderboard(limit: 10).isEmpty)
  }
}

/// Issue 49, vulnerability 5, as the review ran it: one key taking name after name, and
/// fresh keys from one address. Real TLS clients with keys and addresses of their own.
@Suite("Server: names cannot be squatted")
struct NameSquatTests {
  /// `client` follows the lobby under `name`; returns once its first view came.
  func follow(_ client: TestClient, as name: String) async throws {
    client.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        challenges: true, id: 1))
    _ = try await client.lobby { _ in true }
  }

  @Test("one key keeps five names; fresh keys from one address keep ten an hour")
  func squat() async throws {
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.limits.maxConnectionsPerAddress = 1_000
    try await withServer(configuration) { server in
      var open: [TestClient] = []
      for index in 1...8 {
        let client = try await TestClient.connect(
          port: server.port, from: "127.0.6.1", as: "squatter")
        try await follow(client, as: "login\(index)")
        open.append(client)
      }
      var names = try await server.lobby().names
      let squatter = try #require(names.holder(of: "login1"))
      #expect(names.count(heldBy: squatter) == 5)
      #expect((6...8).allSatisfy { names.holder(of: "login\($0)") == nil })
      for client in open { await client.close() }
      // A newcomer whose login name the squatter reached for gets it.
      let newcomer = try await TestClient.connect(
        port: server.port, from: "127.0.6.2", as: "newcomer")
      try await follow(newcomer, as: "login7")
      names = try await server.lobby().names
      #expect(names.holder(of: "login7") != nil && names.holder(of: "login7") != squatter)
      await newcomer.close()
      // Eleven fresh keys from one address: the first ten keep their names.
      for index in 1...11 {
        let client = try await TestClient.connect(
          port: server.port, from: "127.0.7.1", as: "fresh\(index)")
        try await follow(client, as: "fresh\(index)")
        await client.close()
      }
      names = try await server.lobby().names
      #expect((1...10).allSatisfy { names.holder(of: "fresh\($0)") != nil })
      #expect(names.holder(of: "fresh11") == nil)
    }
  }
}
