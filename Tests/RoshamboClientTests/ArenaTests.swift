import Foundation
import Logging
import NIOCore
import RoshamboArena
import RoshamboClient
import RoshamboGame
import RoshamboJournal
import RoshamboLoad
import RoshamboServer
import RoshamboTLS
import Testing

/// An in-process server as the arena starts one for itself: no rate limit, matches best
/// of 9.
private func withArenaServer<T>(
  isolation: isolated (any Actor)? = #isolation, _ body: (ServedServer) async throws -> T
) async throws -> T {
  try await withTestServer(
    configure: { configuration in
      configuration.limits.framesPerSecond = .max
      configuration.limits.frameBurst = .max
      configuration.roomSettings.bestOf = 9
    }, body)
}

@Suite struct ArenaTests {
  static let settings = ArenaResult.Settings(
    roundsPerGame: 60, games: 1, seed: 11, test: SequentialTest.Parameters(), jobs: 3,
    bestOf: 9, server: "a test server")

  static func play(
    _ bots: [BotStrategy], port: Int, seed: UInt64 = 11
  ) async throws -> ArenaResult {
    let tls = try ClientTestCertificates.clientTLS()
    let runner = ArenaRunner(
      bots: bots.map { .builtIn($0) },
      schedule: ArenaSchedule(bots: bots.count, roundsPerGame: 60, games: 1, seed: seed),
      test: SequentialTest.Parameters(), jobs: 3)
    return try await runner.run(host: "127.0.0.1", port: port, tls: tls, settings: settings)
  }

  /// Three built-in bots, 60 rounds a game, on a real server over TLS: every pair played in
  /// both seat orders, each bot's connections saw the mirror image of its opponent's, and
  /// the ratings rank the bots as their head-to-head rates do (frequency beats paper and
  /// rock, paper beats rock). The same seed again gives the same counts.
  @Test(.timeLimit(.minutes(5)))
  func aSmallArenaOnARealServerIsConsistent() async throws {
    let bots: [BotStrategy] = [.rock, .paper, .frequency]
    let (result, again) = try await withArenaServer { server in
      (
        try await Self.play(bots, port: server.port),
        try await Self.play(bots, port: server.port)
      )
    }
    #expect(result.pairings.count == 3)
    for pairing in result.pairings {
      #expect(pairing.bySeatOrder[0].rounds > 0 && pairing.bySeatOrder[1].rounds > 0)
      #expect(pairing.seen[0].wins == pairing.seen[1].losses)
      #expect(pairing.seen[0].losses == pairing.seen[1].wins)
      #expect(pairing.seen[0].draws == pairing.seen[1].draws)
      #expect(pairing.seen[0].wins == pairing.total.firstWins)
      #expect(pairing.total.rounds <= 120)
      #expect(
        pairing.verdict == .second,
        "\(result.bots[pairing.first]) against \(result.bots[pairing.second])")
    }
    // Every round a room played was counted or set aside: none was lost between its seats.
    #expect(
      result.roundsPlayed == result.pairings.reduce(0) { $0 + $1.total.rounds + $1.uncounted })
    #expect(result.ranking.map { result.bots[$0] } == ["frequency", "paper", "rock"])
    for row in 0..<3 {
      for column in 0..<3 where row != column {
        let rate = try #require(result.winRate(row, against: column))
        if rate.rate > 0.5 {
          #expect(result.ratings.strengths[row] > result.ratings.strengths[column])
        }
      }
    }
    #expect(again.pairings.map(\.bySeatOrder) == result.pairings.map(\.bySeatOrder))
  }

  /// On a server that keeps its rate limit (20 messages a second after a burst of 40),
  /// the arena's connections pace themselves to the rate its welcome announces (a frame
  /// refused all the same is sent again): two bots that always draw play all 60 rounds of
  /// each game.
  @Test(.timeLimit(.minutes(5)))
  func pacedUnderARateLimit() async throws {
    let result = try await withTestServer { server in
      try await Self.play([.rock, .rock], port: server.port)
    }
    #expect(result.pairings.first?.total == PairingTally(draws: 120))
  }

  static func runPrograms(_ bots: [ArenaBot]) async throws -> ArenaResult {
    let tls = try ClientTestCertificates.clientTLS()
    let runner = ArenaRunner(
      bots: bots, schedule: ArenaSchedule(bots: bots.count, roundsPerGame: 30, games: 1, seed: 4),
      test: SequentialTest.Parameters(), jobs: 2)
    return try await withArenaServer { server in
      try await runner.run(host: "127.0.0.1", port: server.port, tls: tls, settings: settings)
    }
  }

  /// A program picks for an `exec:` bot: one that always plays rock loses every decisive
  /// round to paper, and its picks are timed.
  @Test(.timeLimit(.minutes(5)))
  func aProgramPlays() async throws {
    let program = "python3 \(repositoryRoot)/Benchmarks/arena/python-bot.py rock"
    let result = try await Self.runPrograms([
      try ArenaBot(argument: "exec:" + program), .builtIn(.paper),
    ])
    let pairing = try #require(result.pairings.first)
    #expect(pairing.total.firstWins == 0 && pairing.total.secondWins > 0)
    #expect(pairing.verdict == .second)
    let picks = try #require(result.programPicks)
    #expect(picks.starts == 2 && picks.picks > 0)
  }

  /// The bots written for `roshambo bot --exec` (docs/BOTS.md) play in the arena as they
  /// are: the shell bot that always plays rock loses to paper, and the Python frequency
  /// counter beats rock (it reads `start`, `result` and `pick` lines).
  @Test(.timeLimit(.minutes(5)))
  func botsWrittenForExecPlay() async throws {
    let rock = try await Self.runPrograms([
      try ArenaBot(argument: "exec:sh \(repositoryRoot)/scripts/bots/rock.sh"), .builtIn(.paper),
    ])
    let lost = try #require(rock.pairings.first)
    #expect(lost.total.firstWins == 0 && lost.total.secondWins > 0)
    let counter = try await Self.runPrograms([
      try ArenaBot(argument: "exec:python3 \(repositoryRoot)/scripts/bots/frequency.py"),
      .builtIn(.rock),
    ])
    let won = try #require(counter.pairings.first)
    #expect(won.total.firstWins > won.total.secondWins, "\(won.total)")
  }

  /// A program that ignores `bye` and the end of its input, and leaves a process of its
  /// own behind, is stopped with everything it started once the arena ends.
  @Test(.timeLimit(.minutes(5)))
  func programsDoNotOutliveTheArena() async throws {
    let marker = "\(300 + Int.random(in: 1...99_999)).\(Int.random(in: 1...9))"
    let program = """
      trap '' TERM HUP; while read -r line; do case "$line" in *'"type":"pick"'*) echo rock;; \
      esac; done; sleep \(marker) & wait
      """
    _ = try await Self.runPrograms([try ArenaBot(argument: "exec:" + program), .builtIn(.paper)])
    let left = Process()
    left.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
    left.arguments = ["-f", "sleep \(marker)"]
    try left.run()
    left.waitUntilExit()
    #expect(left.terminationStatus == 1, "a program's process outlived the arena")
  }

  /// A program that stops stops the arena, with a sentence naming it.
  @Test(.timeLimit(.minutes(5)))
  func aProgramThatStopsStopsTheArena() async throws {
    await #expect(throws: ArenaFailure.self) {
      _ = try await Self.runPrograms([try ArenaBot(argument: "exec:exit 0"), .builtIn(.paper)])
    }
    do {
      _ = try await Self.runPrograms([try ArenaBot(argument: "exec:echo lizard"), .builtIn(.rock)])
      Issue.record("a program answering lizard in a classic room played on")
    } catch let failure as ArenaFailure {
      #expect(failure.description.contains("exec:echo lizard"), "\(failure)")
    }
  }

  @Test func botsAreNamedAsTheCommandLineSays() throws {
    #expect(try ArenaBot(argument: "markov") == .builtIn(.markov))
    #expect(try ArenaBot(argument: "exec:./my bot") == .program(command: "./my bot"))
    #expect(try ArenaBot(argument: "exec:./my bot").name == "exec:./my bot")
    #expect(throws: ArenaFailure.self) { try ArenaBot(argument: "markvo") }
    #expect(throws: ArenaFailure.self) { try ArenaBot(argument: "exec: ") }
  }
}
