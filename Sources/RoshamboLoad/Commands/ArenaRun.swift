import Foundation
import NIOConcurrencyHelpers
import RoshamboArena
import RoshamboClient
import RoshamboServer
import RoshamboTLS
import Sysexits

/// `roshambo arena`: every pair of bots played on a server (one of its own on 127.0.0.1,
/// or the one `access` finds), then the report, or the result as JSON; and as an HTML page
/// if asked.
///
/// Invariant: its own server is stopped, and the progress line cleared, before anything
/// of the result is written or the run's failure said.
public struct ArenaRun: Sendable {
  public var bots: [ArenaBot]
  public var roundsPerGame: Int
  /// Games each pairing plays in each seat order (at most).
  public var games: Int
  /// Where every bot's randomness comes from (nil: a random one, printed).
  public var seed: UInt64?
  public var test: SequentialTest.Parameters
  /// Pairings played at once (nil: ``defaultJobs(ownServer:)``).
  public var jobs: Int?
  /// Rounds in a match on its own server.
  public var bestOf: Int
  /// Whether it plays on a server of its own rather than the one `access` finds.
  public var ownServer: Bool
  /// How it finds and trusts the other server, and the identity it presents to either.
  public var access: ServerAccess
  /// Where the result goes as JSON (`-`: standard output, instead of the report).
  public var json: String?
  /// Where the result goes as one HTML page.
  public var html: String?

  public init(
    bots: [ArenaBot], roundsPerGame: Int, games: Int, seed: UInt64?,
    test: SequentialTest.Parameters, jobs: Int?, bestOf: Int, ownServer: Bool,
    access: ServerAccess, json: String?, html: String? = nil
  ) {
    self.bots = bots
    self.roundsPerGame = roundsPerGame
    self.games = games
    self.seed = seed
    self.test = test
    self.jobs = jobs
    self.bestOf = bestOf
    self.ownServer = ownServer
    self.access = access
    self.json = json
    self.html = html
  }

  /// Pairings played at once when not told: 8 on its own server, 4 on another's (which
  /// keeps its rate limit).
  public static func defaultJobs(ownServer: Bool) -> Int { ownServer ? 8 : 4 }

  /// What the result's settings say of where it played.
  public static func serverDescription(ownServer: Bool, host: String, port: Int) -> String {
    ownServer ? "a server of its own" : DiscoveredServer.address(host: host, port: port)
  }

  public func run() async throws {
    let seed = self.seed ?? UInt64.random(in: 0...UInt64.max)
    let schedule = ArenaSchedule(
      bots: bots.count, roundsPerGame: roundsPerGame, games: games, seed: seed)
    let jobs = self.jobs ?? Self.defaultJobs(ownServer: ownServer)
    let runner = ArenaRunner(bots: bots, schedule: schedule, test: test, jobs: jobs)
    let target: ResolvedServer
    var local: LocalServer?
    if ownServer {
      let files = DevelopmentCertificates.Files(directory: "certs")
      if !files.serverFilesExist { try DevelopmentCertificates.create(in: files.directory) }
      let bestOf = self.bestOf
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
        StandardError.complain(failure.description)
        throw CommandExit(ExitStatus.unavailable)
      }
      target = ResolvedServer(
        host: "127.0.0.1", port: local!.port,
        tls: try access.clientTLS(trust: .caFile(files.caCertificate)))
    } else {
      target = try await access.resolve()
    }
    let settings = ArenaResult.Settings(
      roundsPerGame: roundsPerGame, games: games, seed: seed, test: test, jobs: jobs,
      bestOf: ownServer ? bestOf : nil,
      server: Self.serverDescription(ownServer: ownServer, host: target.host, port: target.port))
    let progress = ArenaProgressLine()
    let result: ArenaResult
    do {
      result = try await runner.run(
        host: target.host, port: target.port, tls: target.tls, settings: settings
      ) { progress.show($0) }
    } catch let failure as ArenaFailure {
      progress.clear()
      await local?.stop()
      StandardError.complain("the arena stopped: \(failure.description)")
      throw CommandExit(ExitStatus.failure)
    }
    progress.clear()
    await local?.stop()
    if let html { try Self.write(result.html, to: html) }
    if let json {
      let text = result.json + "\n"
      if json == "-" {
        FileHandle.standardOutput.write(Data(text.utf8))
        return
      }
      try Self.write(text, to: json)
    }
    print(ArenaReport(result).text, terminator: "")
  }

  private static func write(_ text: String, to path: String) throws {
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      StandardError.complain("could not write \(path): \(error.localizedDescription)")
      throw CommandExit(ExitStatus.failure)
    }
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
