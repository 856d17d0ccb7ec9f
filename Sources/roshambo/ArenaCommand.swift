import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import RoshamboArena
import RoshamboClient
import RoshamboLoad
import RoshamboServer
import RoshamboTLS
import Sysexits

struct Arena: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play bots against each other on a real server and say which are stronger.",
    discussion: """
      Every pair of the bots plays --games games in each seat order, of --rounds rounds \
      each (matches played back to back in one room), on a server of the arena's own on \
      127.0.0.1 (no rate limit, no journal) or on --host's (its rate limit kept: each \
      connection sends at most 18 messages a second). A pairing stops early once a \
      sequential test on its decisive rounds decides it (--margin, --alpha, --beta). \
      Prints the win-rate matrix, each pairing's win rate with its 95% interval and \
      verdict, Bradley–Terry ratings with their 95% intervals, and the speed; --json \
      writes all of it for scripts. A bot is a built-in strategy (\
      \(BotStrategy.allCases.map(\.rawValue).joined(separator: ", "))) or exec:COMMAND, \
      a program that picks, one process per seat of each game.
      """)

  @Argument(help: ArgumentHelp("The bots: built-in names or exec:COMMAND.", valueName: "bot"))
  var bots: [String]

  @Option(help: "Rounds in a game.")
  var rounds = 1_000

  @Option(help: "Games each pairing plays in each seat order (at most).")
  var games = 1

  @Option(help: "Where every bot's randomness comes from (by default a random one, printed).")
  var seed: UInt64?

  @Option(
    help: ArgumentHelp(
      "Pairings played at once, each in two rooms (by default 8 on the arena's own server, "
        + "4 on --host's)."))
  var jobs: Int?

  @Option(help: "The sequential test's margin δ: a rate of 0.5 ± δ counts as a difference.")
  var margin = 0.05

  @Option(help: "The test's chance of deciding for a side when the bots are equal.")
  var alpha = 0.05

  @Option(help: "The test's chance of missing a difference of the margin.")
  var beta = 0.05

  @Option(help: "Rounds in a match on the arena's own server (odd, 1 to 99).")
  var bestOf = Arena.defaultBestOf

  @Option(
    help: ArgumentHelp(
      "Write the whole result as JSON to this file (- for standard output, instead of the "
        + "report).", valueName: "file"))
  var json: String?

  @OptionGroup(title: "Another server (--host)") var server: ServerOptions

  /// A match of 9 rounds keeps every view's history short (each `state` carries it) while
  /// a rematch, which costs a few messages, comes only every dozen rounds or so.
  static let defaultBestOf = 9

  func validate() throws {
    guard bots.count >= 2 else { throw ValidationError("An arena needs at least two bots.") }
    for bot in bots {
      do { _ = try ArenaBot(argument: bot) } catch { throw ValidationError(error.description) }
    }
    guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
    guard games >= 1 else { throw ValidationError("--games must be at least 1.") }
    if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1.") }
    guard SequentialTest.Parameters(margin: margin, alpha: alpha, beta: beta).isValid else {
      throw ValidationError(
        "--margin must be between 0 and 0.5, --alpha and --beta between 0 and 1.")
    }
    guard bestOf >= 1, bestOf <= 99, bestOf % 2 == 1 else {
      throw ValidationError("--best-of must be odd, from 1 to 99.")
    }
    if server.host == nil,
      server.ca != nil || server.pin != nil || server.acceptNew
    {
      throw ValidationError(
        "--ca, --pin and --accept-new say how to trust a server named with --host; without "
          + "--host the arena plays on a server of its own.")
    }
    if server.host != nil, bestOf != Self.defaultBestOf {
      throw ValidationError("--best-of is for the arena's own server; --host's sets its own.")
    }
  }

  func run() async throws {
    let bots = try self.bots.map { try ArenaBot(argument: $0) }
    let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
    let test = SequentialTest.Parameters(margin: margin, alpha: alpha, beta: beta)
    let schedule = ArenaSchedule(
      bots: bots.count, roundsPerGame: rounds, games: games, seed: seed)
    let own = server.host == nil
    let jobs = self.jobs ?? (own ? 8 : 4)
    let runner = ArenaRunner(bots: bots, schedule: schedule, test: test, jobs: jobs)
    let target: ResolvedServer
    var local: LocalServer?
    if own {
      let files = DevelopmentCertificates.Files(directory: "certs")
      if !files.serverFilesExist { try DevelopmentCertificates.create(in: files.directory) }
      do {
        local = try await LocalServer.start(
          certificate: files.serverCertificate, key: files.serverKey
        ) { configuration in
          // This server is the arena's alone: its bots send as fast as it answers.
          configuration.limits.framesPerSecond = .max
          configuration.limits.frameBurst = .max
          configuration.limits.maxConnectionsPerAddress = 4 * jobs + 64
          configuration.roomSettings.bestOf = bestOf
        }
      } catch let failure as LocalServer.Failure {
        complain(failure.description)
        throw ExitCode(ExitStatus.unavailable)
      }
      target = ResolvedServer(
        host: "127.0.0.1", port: local!.port,
        tls: try server.clientTLS(trust: .caFile(files.caCertificate)))
    } else {
      target = try await server.resolve()
    }
    let settings = ArenaResult.Settings(
      roundsPerGame: rounds, games: games, seed: seed, test: test, jobs: jobs,
      bestOf: own ? bestOf : nil,
      server: own
        ? "a server of its own"
        : DiscoveredServer.address(host: target.host, port: target.port))
    let progress = ArenaProgressLine()
    let result: ArenaResult
    do {
      result = try await runner.run(
        host: target.host, port: target.port, tls: target.tls, settings: settings
      ) { progress.show($0) }
    } catch let failure as ArenaFailure {
      progress.clear()
      await local?.stop()
      complain("the arena stopped: \(failure.description)")
      throw ExitCode(ExitStatus.failure)
    }
    progress.clear()
    await local?.stop()
    if let json {
      let text = result.json + "\n"
      if json == "-" {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
      }
      do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: json))
      } catch {
        complain("could not write \(json): \(error.localizedDescription)")
        throw ExitCode(ExitStatus.failure)
      }
    }
    print(ArenaReport(result).text, terminator: "")
  }
}

/// The arena's progress on standard error: one line redrawn in place on a terminal, a
/// plain line every 5 s otherwise.
///
/// Invariant: once ``clear()`` has run nothing more is written. (`@unchecked Sendable`:
/// its state is kept under its lock.)
final class ArenaProgressLine: @unchecked Sendable {
  private struct State {
    var lastPlain: Double = 0
    var shown = false
    var cleared = false
  }

  private let state = NIOLockedValueBox(State())
  private let terminal = isatty(STDERR_FILENO) == 1

  func show(_ progress: ArenaProgress) {
    state.withLockedValue { state in
      guard !state.cleared else { return }
      if terminal {
        let width = min(Terminal.size.columns > 0 ? Terminal.size.columns : 80, 120) - 1
        write("\r" + progress.line(width: width) + "\u{1B}[K")
        state.shown = true
      } else if progress.seconds - state.lastPlain >= 5 {
        state.lastPlain = progress.seconds
        write("roshambo arena: " + progress.line(width: 200) + "\n")
      }
    }
  }

  func clear() {
    state.withLockedValue { state in
      if state.shown, !state.cleared { write("\r\u{1B}[K") }
      state.cleared = true
    }
  }

  private func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
