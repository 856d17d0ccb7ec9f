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
        return try await RecordRequest.fetch(
          connection, name: asker, id: id, keepalive: options.keepaliveInterval)
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

/// `roshambo replay`: a finished match, from the server or a file, checked first if
/// asked, on the game's screen (piped: one line per round).
struct RecordReplay {
  var source: RecordSource
  var server: ServerOptions
  var name: String?
  /// How much faster than it was played.
  var speed: Double
  /// Check the record on its own first.
  var verify: Bool
  var paused: Bool

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

/// `roshambo verify`: a record checked on its own, and against another record of the
/// same match if one is given.
struct RecordCheck {
  var file: String
  var compare: String?

  func run() async throws {
    let match = try await RecordSource.file(file).load()
    var other: FinishedMatch?
    if let compare { other = try await RecordSource.file(compare).load() }
    let report = RecordCheckReport(
      match, comparedWith: other, width: Paragraph.standardOutputWidth)
    for line in report.lines { print(line) }
    if !report.holds { throw ExitCode(ExitStatus.dataError) }
  }
}
