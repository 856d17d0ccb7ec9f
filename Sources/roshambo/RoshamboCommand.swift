import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Sysexits

@main
struct RoshamboCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "roshambo",
    abstract: "Play rock-paper-scissors against people or bots over TLS.",
    discussion: """
      On a terminal, `roshambo` alone opens the lobby: who is on the server, challenges, \
      matches to watch. `roshambo play --vs-bot` starts a game on this machine at once. \
      To play on a LAN, \
      one machine runs roshambo-server and players run `roshambo play`: the server \
      announces itself, and the first time a player connects the client shows the \
      server's identity code to compare with the one the server printed, then remembers \
      the server in ~/.config/roshambo/known_servers. --host, --ca and --pin say \
      where the server is and how to trust it instead.
      """,
    version: RoshamboVersion.description(commit: sourceCommit),
    subcommands: [
      Lobby.self, Play.self, Watch.self, Challenge.self, BotCommand.self, Who.self, Servers.self,
      Replay.self, Verify.self, Load.self, Arena.self,
    ],
    defaultSubcommand: Lobby.self)

  /// Runs the command parsed, as `AsyncParsableCommand.main` does, and ends the program
  /// with the status of a ``CommandExit`` its run throws (the library has said why).
  static func main() async {
    do {
      var command = try await asyncParseAsRoot()
      if var command = command as? AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch let exit as CommandExit {
      Self.exit(withError: ExitCode(exit.status))
    } catch {
      Self.exit(withError: error)
    }
  }
}

/// The strategies, by the names `--strategy` takes.
extension BotStrategy: ExpressibleByArgument {}

/// The rulesets, by the names `--ruleset` takes.
extension Ruleset.ID: ExpressibleByArgument {}

/// A match number or a record file, as `replay` takes it.
extension RecordSource: ExpressibleByArgument {}

/// What `--strategy` takes: a strategy's name, or `list` to print every strategy with what
/// it does and exit (help lists every name; a name not among them is refused with the
/// names).
///
/// Invariant: `list` is never a strategy a bot plays: a command's `validate()` ends the
/// program on it, before anything is played.
enum StrategyChoice: ExpressibleByArgument, Equatable {
  case play(BotStrategy)
  case list

  init?(argument: String) {
    if argument == "list" {
      self = .list
    } else if let strategy = BotStrategy(rawValue: argument) {
      self = .play(strategy)
    } else {
      return nil
    }
  }

  static var allValueStrings: [String] { BotStrategy.allValueStrings + ["list"] }

  var defaultValueDescription: String {
    switch self {
    case .play(let strategy): strategy.rawValue
    case .list: "list"
    }
  }

  /// The strategy to play (random for `list`, which `validate()` has already answered).
  var strategy: BotStrategy {
    if case .play(let strategy) = self { strategy } else { .random }
  }

  /// On `list`, prints the strategies and exits 0.
  func validate() throws {
    if self == .list { throw CleanExit.message(BotStrategy.listing) }
  }
}

/// `--save-record DIR`, for the commands that play or watch.
struct RecordOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Save this client's own record of each match it sees end, as a file in this directory.",
      discussion: """
        What this client saw: compare it with the server's record of the same match \
        with `roshambo verify MINE --compare THEIRS`.
        """, valueName: "dir"))
  var saveRecord: String?
}

/// The player's name when `--name` is not given: the login name (``LoginName``), else
/// asked for on a terminal; without a terminal, an error says to pass `--name`.
func playerName(_ given: String?) throws -> String {
  if let given { return given }
  let environment = ProcessInfo.processInfo.environment
  if let login = LoginName.resolve(environment: environment, account: LoginName.account()) {
    return login
  }
  guard Terminal.isInteractive else {
    throw ValidationError("no login name to play under: give one with --name NAME.")
  }
  while true {
    print("Your name (1 to 24 characters): ", terminator: "")
    fflush(nil)
    guard let line = readLine() else { throw ExitCode(ExitStatus.usage) }
    switch PlayerName.normalize(line.trimmingCharacters(in: .whitespaces)) {
    case .success(let name): return name
    case .failure(let problem): print("That name is refused: \(problem).")
    }
  }
}

/// `--fair` asks for a fair room when `--room` creates it; quick match cannot ask.
func validateFair(_ fair: Bool, room: String?, vsBot: Bool) throws {
  guard fair, room == nil, !vsBot else { return }
  throw ValidationError(
    "--fair needs --room: quick-match rooms are fair only when the server runs with --fair.")
}

/// `--allocator` finds the server, so it goes without `--host`, and without `alone` (an
/// option that needs one known server: its lobby, or a server of its own).
func validateFleet(_ fleet: FleetOptions, server: ServerOptions, alone: String?) throws {
  guard fleet.allocator != nil else { return }
  if server.host != nil {
    throw ValidationError("--allocator chooses the server: give it or --host, not both.")
  }
  if let alone {
    throw ValidationError(
      "\(alone) needs one server (its lobby, or one of its own), so not --allocator: each "
        + "server in a fleet has its own lobby; use --host.")
  }
  // The allocator names the address: trusting what answers there on first use would let
  // a hostile allocator send players to a machine of its choosing.
  if server.pin == nil, server.ca == nil {
    throw ValidationError(
      "--allocator needs --ca (the fleet's CA) or --pin (the fleet's shared certificate): a "
        + "server the allocator names is never trusted on first use.")
  }
}

/// Checks `--name` with the rule the server uses.
func validateName(_ name: String) throws {
  if case .failure(let problem) = PlayerName.normalize(name) {
    throw ValidationError("--name is refused: \(problem).")
  }
}
