import Foundation
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
      "--key", TestCertificates.files.serverKey, "--no-announce", "--log-level", "warning",
      // Every bot connects from 127.0.0.1.
      "--best-of", "1", "--tournament-entries-per-address", "0",
    ] + more
  }

  func bot(_ name: String, port: Int) throws -> (Process, Pipe) {
    try launchRoshambo([
      "bot", "--tournament", "--name", name, "--host", "127.0.0.1", "--port", String(port),
      "--ca", TestCertificates.files.caCertificate,
    ])
  }

  /// Waits for the launched processes on a thread of their own (not the tasks' pool).
  func finish(_ started: [(Process, Pipe)]) async -> [(Int32, String)] {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        let watchdog = DispatchWorkItem {
          for (process, _) in started where process.isRunning { process.terminate() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        let results = started.map(finishLaunched)
        watchdog.cancel()
        continuation.resume(returning: results)
      }
    }
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
    let port = try server.port
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
        result.1.split(separator: "\n").last { $0.contains(" matches: ") }!
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
    let port = try first.port
    let bots = try (1...4).map { try bot("p\($0)", port: port) }
    // Round 1 is over (its pause runs): SIGKILL, the next round not yet paired.
    let before = try await tournament(port: port) { tournament in
      tournament.round == 1 && tournament.pairings.allSatisfy { $0.winner != nil }
    }
    kill(first.process.processIdentifier, SIGKILL)
    _ = first.finish()
    let second = try ServerProcess(
      serverArguments(data: data, port: port, ["--tournament", "round-robin"]))
    defer { kill(second.process.processIdentifier, SIGKILL) }
    _ = try second.port
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
    let history = ServerProcess.history(data: data)
    #expect(history.components(separatedBy: "cup-1-").count - 1 == 6, "\(history)")
  }
}

extension ServerProcess {
  /// What `roshambo-server history` prints for the journal in `data`.
  static func history(data: String) -> String {
    guard let history = try? ServerProcess(["history", "--data-dir", data, "--limit", "50"])
    else { return "" }
    return history.finish().1
  }
}
