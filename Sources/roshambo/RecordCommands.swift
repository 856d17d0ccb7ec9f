import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Sysexits

/// A record named on the command line: a server's match number, or a file (`-`: standard
/// input).
enum RecordSource: ExpressibleByArgument {
  case server(id: Int)
  case file(String)

  init?(argument: String) {
    if let id = Int(argument), id > 0 {
      self = .server(id: id)
    } else if !argument.isEmpty {
      self = .file(argument)
    } else {
      return nil
    }
  }

  /// The record, or an exit after saying why there is none.
  func load(server options: ServerOptions? = nil, name: String? = nil) async throws
    -> FinishedMatch
  {
    switch self {
    case .file(let path):
      do {
        return try RecordFile.read(path: path)
      } catch {
        complain(error.description)
        throw ExitCode(
          FileManager.default.isReadableFile(atPath: path) || path == "-"
            ? ExitStatus.dataError : ExitStatus.noInput)
      }
    case .server(let id):
      guard let options else { throw ValidationError("give a record file, not a match number.") }
      let resolved = try await options.resolve()
      let connection = try await connect(resolved, options: options)
      let asker = try name ?? playerName(nil)
      do {
        return try await RecordRequest.fetch(connection, name: asker, id: id)
      } catch let refused as RecordRequest.Refused {
        complain(refused.description)
        throw ExitCode(
          refused.error.code == .noSuchMatch ? ExitStatus.noInput : ExitStatus.failure)
      } catch {
        throw exitCode(after: error)
      }
    }
  }

  var title: String {
    switch self {
    case .server(let id): "match \(id)"
    case .file(let path):
      path == "-"
        ? "standard input" : TerminalText.sanitized((path as NSString).lastPathComponent)
    }
  }
}

/// Prints the check of `match` and returns whether it holds.
func printVerification(of match: FinishedMatch) -> Bool {
  let verification = RecordVerification(match)
  for line in MatchRecordText.verification(verification) { print(line) }
  return verification.holds
}

// MARK: - replay

struct Replay: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Replay a finished match on the game's screen, from the server or a file.",
    discussion: """
      MATCH is a match's number on the server (as `roshambo-server history` lists it) or \
      a record file (`--save-record`, `roshambo-server history --json`; - for standard \
      input). The screen is the one of live play, for a spectator, round by round: → or \
      l steps forward, ← or h back, g and G (Home, End) jump to the start and the end, \
      space plays or pauses at --speed, q quits. Piped, it prints one line per round.

      Exit status: 0 shown (and, with --verify, the record holds); 65 a record that \
      does not hold or cannot be read; 66 no such file or match; 69 no server \
      reachable; 1 a server that sent no record within 10 s; 76 a server that broke the \
      protocol.
      """)

  @Argument(
    help: ArgumentHelp("A match number on the server, or a record file.", valueName: "match"))
  var source: RecordSource

  @OptionGroup var server: ServerOptions

  @Option(help: "The name the server sees you under while it sends the record.")
  var name: String?

  @Option(help: "How much faster than it was played (2: twice as fast).")
  var speed = 1.0

  @Flag(help: "Check the record on its own first (as `roshambo verify`).")
  var verify = false

  @Flag(help: "Start paused at the first round (space plays).")
  var paused = false

  func validate() throws {
    if let name { try validateName(name) }
    guard speed > 0, speed <= 1000 else {
      throw ValidationError("--speed must be above 0 and at most 1000.")
    }
  }

  func run() async throws {
    let match = try await source.load(server: server, name: name)
    if verify {
      for line in MatchRecordText.heading(match) { print(line) }
      guard printVerification(of: match) else { throw ExitCode(ExitStatus.dataError) }
    }
    guard let replay = MatchReplay(match) else {
      complain(
        match.rounds == nil
          ? "\(source.title) has no rounds to replay (it was kept before rounds were)."
          : "\(source.title) is played by rules this release does not know "
            + "(\(TerminalText.sanitized(match.ruleset))).")
      throw ExitCode(ExitStatus.dataError)
    }
    let title = source.title
    let speed = self.speed
    let paused = self.paused
    let signalled = await MainActor.run {
      ReplayScreen(replay, title: title, speed: speed, paused: paused)
    }.run()
    if let signalled { throw ExitCode(128 + signalled) }
  }
}

// MARK: - verify

struct Verify: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check a match record on its own, trusting nobody (the host included).",
    discussion: """
      Checks, from the record alone: each fair round's revealed weapon and nonce against \
      the commitment made before (SHA-256, as docs/MATCH-RECORD.md lays out), each \
      round's winner against the ruleset, the scores against the rounds and the winner \
      against the scores. An ordinary (not fair) match can only be found consistent: \
      its weapons are the host's word. With --compare, also says where two records of \
      the same match differ (your own, saved with --save-record, and the server's).

      Exit status: 0 the record holds (and agrees with --compare's); 65 it does not, or \
      is not a record; 66 no such file.
      """)

  @Argument(help: ArgumentHelp("The record file (- for standard input).", valueName: "file"))
  var file: String

  @Option(
    help: ArgumentHelp("Another record of the same match to compare with.", valueName: "file"))
  var compare: String?

  func run() async throws {
    let match = try await RecordSource.file(file).load()
    for line in MatchRecordText.heading(match) { print(line) }
    var holds = printVerification(of: match)
    if let compare {
      let other = try await RecordSource.file(compare).load()
      let differences = RecordComparison.differences(match, other)
      if differences.isEmpty {
        print("The two records agree on every round, the scores and the winner.")
      } else {
        print("The two records differ:")
        for line in differences { print("  ✗ " + line) }
        holds = false
      }
    }
    if !holds { throw ExitCode(ExitStatus.dataError) }
  }
}
