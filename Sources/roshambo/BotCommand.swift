import ArgumentParser
import RoshamboClient
import RoshamboGame

struct BotCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bot",
    abstract: "Play without a screen: one line per round, then a summary.",
    discussion: """
      Plays in a room (--room), by quick match, or from the lobby: --lobby waits there \
      and accepts every challenge, --challenge NAME challenges that person as soon as \
      they are free in the lobby (waiting up to --wait seconds); either way one match per challenge, back to the lobby between \
      them, until --matches are played. Exits 0 once its matches are played, non-zero \
      with a message otherwise; Ctrl-C (SIGINT, SIGTERM, SIGHUP) makes it leave its room \
      or the lobby at once (a running match is given up), print its summary and exit 1. \
      --exec runs a program of yours that picks, in any \
      language (docs/BOTS.md); exit 70 if it failed a match (too late, not a weapon, \
      too much output: the match is given up) or exited while it had one to play.
      """)

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(help: "How the bot picks (list: what each does; random unless --exec runs a program).")
  var strategy: StrategyChoice?

  @Option(
    help: ArgumentHelp(
      "Run this program (through /bin/sh -c) to pick: JSON lines on its standard input and"
        + " output, as docs/BOTS.md describes. One program plays every match of the run.",
      valueName: "command"))
  var exec: String?

  @Option(help: "With --exec: how long the program has for each pick, ms (default 2000).")
  var pickMs: Int?

  @Option(
    help: "With --exec: time the program may overrun its picks by in one match, ms (default 30000)."
  )
  var bankMs: Int?

  @Option(help: "Matches to play before leaving.")
  var matches = 1

  @Option(help: "The room to join; without it, quick match.")
  var room: String?

  @Option(help: "The bot's name (by default bot- and four random hex digits).")
  var name: String?

  @Flag(help: "Ask for a fair room (commit–reveal) when --room creates it, or a fair challenge.")
  var fair = false

  @Flag(help: "Wait in the lobby and accept every challenge (one match each).")
  var lobby = false

  @Option(help: "Challenge this person from the lobby (one match per challenge).")
  var challenge: String?

  @Option(help: "With --challenge: how long to wait for the person to be free in the lobby, s.")
  var wait = 10

  @Option(
    help: ArgumentHelp(
      "With --challenge: the rules to play by (by default the server's).", valueName: "rules"))
  var ruleset: Ruleset.ID?

  @OptionGroup var record: RecordOptions

  @Flag(
    help:
      "Enter the server's tournament and play every match it seats the bot in (with or without --lobby)."
  )
  var tournament = false

  func validate() throws {
    try strategy?.validate()
    guard matches >= 1 else { throw ValidationError("--matches must be at least 1.") }
    if let exec {
      guard strategy == nil else {
        throw ValidationError("--strategy and --exec are two ways to pick: pick one.")
      }
      guard !exec.allSatisfy(\.isWhitespace) else {
        throw ValidationError("--exec needs a command, such as --exec \"python3 mybot.py\".")
      }
    } else if pickMs != nil || bankMs != nil {
      throw ValidationError("--pick-ms and --bank-ms are limits for a program run by --exec.")
    }
    guard (pickMs ?? 1) >= 1 else { throw ValidationError("--pick-ms must be at least 1.") }
    guard (bankMs ?? 0) >= 0 else { throw ValidationError("--bank-ms must be 0 or more.") }
    if let name { try validateName(name) }
    if let challenge { try validateName(challenge) }
    guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds.") }
    if ruleset != nil, challenge == nil {
      throw ValidationError(
        "--ruleset is for --challenge: a room's rules are the server's, and a challenge "
          + "accepted or a tournament's match comes with its own.")
    }
    if lobby || challenge != nil || tournament {
      // --lobby --tournament is the tournament (entered from the lobby).
      guard room == nil, !(challenge != nil && (lobby || tournament)) else {
        throw ValidationError(
          "--lobby (or --tournament), --challenge and --room are different ways to play: pick one.")
      }
    } else {
      try validateFair(fair, room: room, vsBot: false)
    }
    let lobbyMode =
      lobby ? "--lobby" : challenge != nil ? "--challenge" : tournament ? "--tournament" : nil
    try validateFleet(fleet, server: server, alone: lobbyMode)
  }

  func run() async throws {
    let limits = BotProgramSession.Limits(
      pick: .milliseconds(pickMs ?? 2000), bank: .milliseconds(bankMs ?? 30_000))
    try await BotPlayer(
      access: server.access(fleet: fleet),
      settings: BotPlay.Settings(
        name: name ?? Bot.randomName(), strategy: strategy?.strategy ?? .random,
        program: exec.map { BotPlay.Program(command: $0, limits: limits) }, matches: matches,
        room: room, fair: fair, lobby: lobby, challenge: challenge, ruleset: ruleset,
        wait: .seconds(wait),
        saveRecord: record.saveRecord, tournament: tournament,
        keepaliveMillis: server.keepaliveMillis)
    ).run()
  }
}
