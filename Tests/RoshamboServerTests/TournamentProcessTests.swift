import Foundation
import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import Testing

/// Tournaments with the real programs: a `roshambo-server --tournament` process and
/// eight `roshambo bot --tournament` processes over TLS, for each kind; and a server
/// killed with SIGKILL between two rounds, started again, the tournament picked up and
/// finished with nothing played twice.
@Suite("Tournaments with the real programs", .serialized)
struct TournamentProcessTests {
  func serverArguments(data: String, port: Int, _ more: [String]) -> [String] {
    [
      "--host", "127.0.0.1", "--port", String(port), "--data-dir", data,
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
      // Every bot connects from 127.0.0.1.
      "--best-of", "1", "--tournament-entries-per-address", "0",
    ] + more
  }

  func bot(_ name: String, port: Int) throws -> (Process, Pipe) {
    try launchRoshambo([
      "bot", "--tournament", "--name", name, "--host", "127.0.0.1", "--port", String(port),
      "--ca", TestCertificates.files.caCertificate, "--tls-seconds", "60",
    ])
  }

  /// Waits for the launched processes on a thread of their own (not the tasks' pool).
  func finish(_ started: [(Process, Pipe)]) async -> [(Int32, String)] {
    var results: [(Int32, String)] = []
    for (process, pipe) in started { results.append(await awaitExit(process, pipe, seconds: 120)) }
    return results
  }

  /// The lobby's tournament as a follower sees it, once `condition` holds.
  func tournament(
    port: Int, where condition: @escaping (LobbyView.TournamentView) -> Bool
  ) async throws -> LobbyView.TournamentView {
    let eve = try await TestClient.connect(port: port)
    defer { Task { await eve.close() } }
    eve.send(
      .hello(
        protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
        id: 1))
    let view = try await eve.lobby { $0.tournament.map(condition) == true }
    return view.tournament!
  }

  @Test(
    "eight bots play a whole tournament: one champion, the matches its kind plays",
    arguments: Tournament.Kind.allCases)
  func eightBots(kind: Tournament.Kind) async throws {
    let server = try ServerProcess(
      serverArguments(
        data: temporaryDataDirectory(), port: 0,
        ["--tournament", kind.rawValue, "--tournament-players", "8", "--tournament-pause", "0.1"]))
    defer { kill(server.process.processIdentifier, SIGKILL) }
    let port = try await server.port
    let bots = try (1...8).map { try bot("p\($0)", port: port) }
    let results = await finish(bots)
    for (index, (status, printed)) in results.enumerated() {
      #expect(status == 0, "p\(index + 1): \(printed)")
    }
    let champions = Set(
      results.compactMap { $0.1.split(separator: "\n").last { $0.hasPrefix("tournament over:") } })
    #expect(champions.count == 1, "\(champions)")
    let final = try await tournament(port: port) { $0.phase == .finished }
    #expect(champions.first?.contains("\(final.champion ?? "?") is the champion") == true)
    // Matches each bot played, as its summary says.
    let played = results.map { result in
      Int(
        result.1.split(separator: "\n").last {
          $0.contains(" matches: ") || $0.contains(" match: ")
        }!
        .split(separator: " ")[0])!
    }
    switch kind {
    case .roundRobin: #expect(played == Array(repeating: 7, count: 8))
    case .swiss: #expect(played == Array(repeating: 3, count: 8))
    case .singleElimination:
      #expect(played.reduce(0, +) == 2 * 7)
      #expect(played.sorted() == [1, 1, 1, 1, 2, 2, 3, 3])
    }
    #expect(final.standings.first?.name == final.champion)
    let wins: Int = final.standings.map(\.wins).reduce(0, +)
    let matches: Int = played.reduce(0, +) / 2
    #expect(wins == matches)
  }

  @Test("killed between two rounds and started again: the tournament goes on, nothing twice")
  func killedMidTournament() async throws {
    let data = temporaryDataDirectory()
    let first = try ServerProcess(
      serverArguments(
        data: data, port: 0,
        ["--tournament", "round-robin", "--tournament-players", "4", "--tournament-pause", "2"]))
    let port = try await first.port
    let bots = try (1...4).map { try bot("p\($0)", port: port) }
    // Round 1 is over (its pause runs): SIGKILL, the next round not yet paired.
    let before = try await tournament(port: port) { tournament in
      tournament.round == 1 && tournament.pairings.allSatisfy { $0.winner != nil }
    }
    kill(first.process.processIdentifier, SIGKILL)
    _ = await first.finish()
    let second = try ServerProcess(
      serverArguments(data: data, port: port, ["--tournament", "round-robin"]))
    defer { kill(second.process.processIdentifier, SIGKILL) }
    _ = try await second.port
    let results = await finish(bots)
    for (index, (status, printed)) in results.enumerated() {
      #expect(status == 0, "p\(index + 1): \(printed)")
    }
    let final = try await tournament(port: port) { $0.phase == .finished }
    // Three rounds of two matches: six, each pair met once; round 1 as it was.
    #expect(final.round == 3)
    let wins: Int = final.standings.map(\.wins).reduce(0, +)
    let losses: Int = final.standings.map(\.losses).reduce(0, +)
    #expect(wins == 6 && losses == 6)
    let winnersOfRoundOne = before.pairings.compactMap(\.winner)
    #expect(winnersOfRoundOne.count == 2)
    // Nothing replayed twice: the history holds six matches.
    let history = await ServerProcess.history(data: data)
    #expect(history.components(separatedBy: "cup-1-").count - 1 == 6, "\(history)")
  }
}

/// `roshambo bot --lobby` and `--tournament` over a server drained, killed and started
/// again on the same port and data directory: the bots come back by themselves, say so,
/// and play.
@Suite("Bots coming back to the lobby by themselves", .serialized)
struct BotReconnectTests {
  let identities = temporaryDataDirectory()

  func arguments(data: String, port: Int, _ more: [String] = []) -> [String] {
    [
      "--host", "127.0.0.1", "--port", String(port), "--data-dir", data,
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
      "--best-of", "1", "--drain-seconds", "1", "--grace-seconds", "60",
    ] + more
  }

  /// `roshambo bot` as `name` with an identity of its own, and `more` arguments.
  func bot(_ name: String, port: Int, _ more: [String]) throws -> (Process, Pipe) {
    try launchRoshambo(
      [
        "bot", "--name", name, "--host", "127.0.0.1", "--port", String(port),
        "--ca", TestCertificates.files.caCertificate, "--tls-seconds", "60", "--identity",
        identities + "/\(name).pem",
      ] + more)
  }

  /// The lobby, once `condition` holds (a follower of our own, which then leaves).
  func lobby(port: Int, where condition: @escaping (LobbyView) -> Bool) async throws -> LobbyView {
    let eve = try await TestClient.connect(port: port, as: nil)
    defer { Task { await eve.close() } }
    eve.send(
      .hello(
        protocol: WireProtocol.version, name: "eve-\(UInt16.random(in: 0...9999))", role: .lobby,
        room: nil, resume: nil, id: 1))
    return try await eve.lobby(where: condition)
  }

  /// Whether every one of `names` follows the lobby able to take challenges.
  static func following(_ names: [String]) -> (LobbyView) -> Bool {
    { view in
      names.allSatisfy { name in view.people.contains { $0.name == name && $0.takesChallenges } }
    }
  }

  @Test("bot --lobby, its server killed and started again, comes back and plays the challenge")
  func lobbyBotAfterRestart() async throws {
    let data = temporaryDataDirectory()
    let first = try ServerProcess(arguments(data: data, port: 0))
    let port = try await first.port
    let alice = try bot("Alice", port: port, ["--lobby", "--matches", "1"])
    _ = try await lobby(port: port, where: Self.following(["Alice"]))
    kill(first.process.processIdentifier, SIGKILL)
    _ = await first.finish()
    let second = try ServerProcess(arguments(data: data, port: port))
    defer { kill(second.process.processIdentifier, SIGKILL) }
    _ = try await second.port
    _ = try await lobby(port: port, where: Self.following(["Alice"]))
    let bob = try bot("Bob", port: port, ["--challenge", "Alice", "--matches", "1"])
    let results = await TournamentProcessTests().finish([alice, bob])
    #expect(results[1].0 == 0, "Bob: \(results[1].1)")
    let (status, printed) = results[0]
    #expect(status == 0, "Alice: \(printed)")
    #expect(printed.contains("lost the connection; reconnecting…"), "\(printed)")
    #expect(printed.contains("back in the lobby"), "\(printed)")
    #expect(printed.contains("accepting Bob's challenge"), "\(printed)")
    #expect(printed.contains("1 match: "), "\(printed)")
  }

  @Test("bot --tournament keeps its entry over a drain and a restart, and plays its matches")
  func tournamentBotsAfterDrain() async throws {
    let data = temporaryDataDirectory()
    let tournament = [
      "--tournament", "single-elimination", "--tournament-players", "3",
      "--tournament-start", "600", "--tournament-pause", "0.1",
    ]
    let first = try ServerProcess(arguments(data: data, port: 0, tournament))
    let port = try await first.port
    let entrants = try ["p1", "p2"].map { try bot($0, port: port, ["--tournament"]) }
    _ = try await lobby(port: port) { view in
      Set(view.tournament?.standings.map(\.name) ?? []) == ["p1", "p2"]
    }
    // Drained (SIGTERM: `closing`, then the close), and started again at once.
    kill(first.process.processIdentifier, SIGTERM)
    _ = await first.finish()
    let second = try ServerProcess(arguments(data: data, port: port, tournament))
    defer { kill(second.process.processIdentifier, SIGKILL) }
    _ = try await second.port
    let back = try await lobby(port: port, where: Self.following(["p1", "p2"]))
    #expect(Set(back.tournament?.standings.map(\.name) ?? []) == ["p1", "p2"])
    // The third entry starts it: both came back in time, so both play.
    let third = try bot("p3", port: port, ["--tournament"])
    let results = await TournamentProcessTests().finish(entrants + [third])
    for (index, (status, printed)) in results.enumerated() {
      #expect(status == 0, "p\(index + 1): \(printed)")
      #expect(printed.contains("tournament over: "), "p\(index + 1): \(printed)")
    }
    for (status, printed) in results.prefix(2) where status == 0 {
      #expect(printed.contains("lost the connection; reconnecting…"), "\(printed)")
      #expect(printed.contains("back in the lobby"), "\(printed)")
      #expect(printed.contains(" matches: ") || printed.contains(" match: "), "\(printed)")
    }
  }

  @Test(
    "bot --tournament stopped by SIGINT while it waits to be seated: its summary, exit 1",
    arguments: [SIGINT, SIGTERM])
  func tournamentBotSignalled(signal: Int32) async throws {
    let server = try ServerProcess(
      arguments(
        data: temporaryDataDirectory(), port: 0,
        ["--tournament", "single-elimination", "--tournament-players", "3"]))
    defer { kill(server.process.processIdentifier, SIGKILL) }
    let port = try await server.port
    let (entrant, pipe) = try bot("p1", port: port, ["--tournament"])
    _ = try await lobby(port: port) { view in
      view.tournament?.standings.map(\.name) == ["p1"]
    }
    kill(entrant.processIdentifier, signal)
    let (status, printed) = await awaitExit(entrant, pipe, seconds: 60)
    #expect(status == 1, "\(printed)")
    #expect(printed.contains("0 matches: 0 won, 0 lost"), "\(printed)")
    #expect(
      printed.contains("stopped by a signal before the tournament seated the bot"), "\(printed)")
  }
}

extension ServerProcess {
  /// What `roshambo-server history` prints for the journal in `data`.
  static func history(data: String) async -> String {
    guard let history = try? ServerProcess(["history", "--data-dir", data, "--limit", "50"])
    else { return "" }
    return await history.finish().1
  }
}
