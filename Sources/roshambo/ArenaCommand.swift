import ArgumentParser
import Foundation
import RoshamboArena
import RoshamboClient
import RoshamboLoad

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
      writes all of it for scripts, --html as one page with the matrix as a heat map and \
      the intervals drawn. A bot is a built-in strategy (\
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

  @Option(
    help: ArgumentHelp(
      "Write the result as one self-contained HTML page to this file (a heat map of the "
        + "win rates, the intervals and ratings drawn, the JSON).", valueName: "file"))
  var html: String?

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
    if let html { try Self.validateOutput(html, option: "--html") }
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

  /// Refuses, before an arena that may take an hour, a file the result could not be
  /// written to: one in a folder that does not exist, or a folder itself.
  static func validateOutput(_ path: String, option: String) throws {
    // The folder as the user wrote it (none: the current one).
    let written = (path as NSString).deletingLastPathComponent
    let folder = written.isEmpty ? "." : written
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder),
      isFolder.boolValue
    else {
      throw ValidationError(
        "\(option) \(path): there is no folder \(folder) to write it in; make it first, or "
          + "name a file in a folder that exists.")
    }
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
      throw ValidationError("\(option) \(path) is a folder; name a file to write to.")
    }
  }

  func run() async throws {
    try await ArenaRun(
      bots: try bots.map { try ArenaBot(argument: $0) }, roundsPerGame: rounds, games: games,
      seed: seed, test: SequentialTest.Parameters(margin: margin, alpha: alpha, beta: beta),
      jobs: jobs, bestOf: bestOf, ownServer: server.host == nil, access: server.access(),
      json: json, html: html
    ).run()
  }
}
