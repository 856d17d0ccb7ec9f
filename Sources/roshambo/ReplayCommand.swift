import ArgumentParser
import RoshamboClient

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
    let name = self.name
    try await RecordReplay(
      source: source, access: server.access(), name: { try playerName(name) }, speed: speed,
      verify: verify, paused: paused
    ).run()
  }
}
