import Foundation
import RoshamboGame
import RoshamboProtocol
import Sysexits

/// A record named on the command line: a server's match number, or a file (`-`: standard
/// input).
///
/// Invariant: a match number is above 0; anything else that is not empty is a file's path.
public enum RecordSource: Sendable, Equatable {
  case server(id: Int)
  case file(String)

  public init?(argument: String) {
    if let id = Int(argument), id > 0 {
      self = .server(id: id)
    } else if !argument.isEmpty {
      self = .file(argument)
    } else {
      return nil
    }
  }

  /// The exit for a record file that could not be read: 65 when the file is there but is
  /// no record, 66 when there is no file to read.
  public static func exit(readingFailed path: String, readable: Bool) -> CommandExit {
    CommandExit(readable || path == "-" ? ExitStatus.dataError : ExitStatus.noInput)
  }

  /// The record in the file at `path`, or an exit after saying why there is none.
  public static func read(_ path: String) throws -> FinishedMatch {
    do {
      return try RecordFile.read(path: path)
    } catch {
      StandardError.complain(error.description)
      throw exit(
        readingFailed: path, readable: FileManager.default.isReadableFile(atPath: path))
    }
  }

  /// The record, from its file or from the server `access` finds (asking it as `name`, read
  /// once connected), or an exit after saying why there is none.
  public func load(server access: ServerAccess, name: @Sendable () throws -> String)
    async throws -> FinishedMatch
  {
    switch self {
    case .file(let path):
      return try Self.read(path)
    case .server(let id):
      let resolved = try await access.resolve()
      let connection = try await access.connect(resolved)
      let asker = try name()
      do {
        return try await RecordRequest.fetch(
          connection, name: asker, id: id, keepalive: access.keepaliveInterval)
      } catch let refused as RecordRequest.Refused {
        StandardError.complain(refused.description)
        throw CommandExit(
          refused.error.code == .noSuchMatch ? ExitStatus.noInput : ExitStatus.failure)
      } catch {
        throw CommandExit.after(error)
      }
    }
  }

  /// What the replay's screen calls the record.
  public var title: String {
    switch self {
    case .server(let id): "match \(id)"
    case .file(let path):
      path == "-"
        ? "standard input" : TerminalText.sanitized((path as NSString).lastPathComponent)
    }
  }
}

/// `roshambo replay`: a finished match, from the server or a file, checked first if asked,
/// on the game's screen (piped: one line per round).
///
/// Invariant: with `verify`, nothing is replayed unless the record holds.
public struct RecordReplay: Sendable {
  public var source: RecordSource
  public var access: ServerAccess
  /// The name the server sees while it sends the record, read once connected.
  public var name: @Sendable () throws -> String
  /// How much faster than it was played.
  public var speed: Double
  /// Check the record on its own first.
  public var verify: Bool
  public var paused: Bool

  public init(
    source: RecordSource, access: ServerAccess, name: @escaping @Sendable () throws -> String,
    speed: Double, verify: Bool, paused: Bool
  ) {
    self.source = source
    self.access = access
    self.name = name
    self.speed = speed
    self.verify = verify
    self.paused = paused
  }

  /// Why `match` cannot be replayed, when ``MatchReplay`` cannot take it.
  public static func cannotReplay(_ match: FinishedMatch, title: String) -> String {
    match.rounds == nil
      ? "\(title) has no rounds to replay (it was kept before rounds were)."
      : "\(title) is played by rules this release does not know "
        + "(\(TerminalText.sanitized(match.ruleset)))."
  }

  public func run() async throws {
    let match = try await source.load(server: access, name: name)
    if verify {
      for line in MatchRecordText.heading(match) { print(line) }
      let verification = RecordVerification(match)
      for line in MatchRecordText.verification(verification) { print(line) }
      guard verification.holds else { throw CommandExit(ExitStatus.dataError) }
    }
    guard let replay = MatchReplay(match) else {
      StandardError.complain(Self.cannotReplay(match, title: source.title))
      throw CommandExit(ExitStatus.dataError)
    }
    let title = source.title
    let speed = self.speed
    let paused = self.paused
    let signalled = await MainActor.run {
      ReplayScreen(replay, title: title, speed: speed, paused: paused)
    }.run()
    if let signalled { throw CommandExit(128 + signalled) }
  }
}

/// `roshambo verify`: a record checked on its own, and against another record of the same
/// match if one is given.
///
/// Invariant: it exits 0 only when the report holds.
public struct RecordCheck: Sendable {
  public var file: String
  public var compare: String?

  public init(file: String, compare: String?) {
    self.file = file
    self.compare = compare
  }

  public func run() async throws {
    let match = try RecordSource.read(file)
    var other: FinishedMatch?
    if let compare { other = try RecordSource.read(compare) }
    let report = RecordCheckReport(
      match, comparedWith: other, width: Paragraph.standardOutputWidth)
    for line in report.lines { print(line) }
    if !report.holds { throw CommandExit(ExitStatus.dataError) }
  }
}
