import ArgumentParser
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
    try await ArenaRun(
      bots: try bots.map { try ArenaBot(argument: $0) }, roundsPerGame: rounds, games: games,
      seed: seed, test: SequentialTest.Parameters(margin: margin, alpha: alpha, beta: beta),
      jobs: jobs, bestOf: bestOf, ownServer: server.host == nil, access: server.access(),
      json: json
    ).run()
  }
}
