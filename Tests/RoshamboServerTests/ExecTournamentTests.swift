import Foundation
import ProcessFixtures
import Testing

/// `roshambo bot --tournament --exec`: programs in Python and shell enter a tournament
/// beside built-in bots, each played by `roshambo bot` processes, as the built-in bots do.
@Suite("Bot programs in a tournament", .serialized)
struct ExecTournamentTests {
  @Test("two programs and two built-in bots play a round-robin to its champion")
  func roundRobin() async throws {
    let server = try ServerProcess([
      "--host", "127.0.0.1", "--port", "0", "--data-dir", temporaryDataDirectory(),
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
      // Every bot connects from 127.0.0.1.
      "--best-of", "1", "--tournament-entries-per-address", "0",
      "--tournament", "round-robin", "--tournament-players", "4", "--tournament-pause", "0.1",
    ])
    defer { kill(server.process.processIdentifier, SIGKILL) }
    let port = try await server.port
    let picks = [
      ["--exec", "cd '\(repositoryRoot)' && python3 scripts/bots/frequency.py"],
      ["--exec", "cd '\(repositoryRoot)' && sh scripts/bots/cycle.sh"],
      ["--strategy", "random"], ["--strategy", "markov"],
    ]
    let bots = try picks.enumerated().map { index, pick in
      try launchRoshambo(
        [
          "bot", "--tournament", "--name", "p\(index + 1)", "--host", "127.0.0.1", "--port",
          String(port), "--ca", TestCertificates.files.caCertificate, "--tls-seconds", "60",
        ] + pick)
    }
    var results: [(Int32, String)] = []
    for bot in bots { results.append(await awaitExit(bot.0, bot.1, seconds: 120)) }
    for (index, (status, printed)) in results.enumerated() {
      #expect(status == 0, "p\(index + 1): \(printed)")
      #expect(printed.contains("3 matches: "), "p\(index + 1): \(printed)")
      #expect(printed.contains("tournament over: "), "p\(index + 1): \(printed)")
    }
  }
}
