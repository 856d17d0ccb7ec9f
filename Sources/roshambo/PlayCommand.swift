import ArgumentParser
import RoshamboClient
import RoshamboServer

struct Play: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play a match: quick match, a named room (--room), or a bot here (--vs-bot).",
    discussion: """
      Keys: r, p, s (and l, k for lizard and Spock, or 1–5) pick; n asks for a rematch; \
      q quits. During a match q and Ctrl-C ask first, and a second press gives the match \
      up (Ctrl-C then exits 130); closing the terminal keeps the seat for the server's \
      grace period, so running play again resumes it. When standard output is not a \
      terminal, one plain line is printed per change instead of a full screen, so the \
      client works in pipes and scripts.

      Exit status: 0 done; 1 refused by the server or the connection lost; 64 a bad \
      flag; 69 no server reachable; 76 a server that broke the protocol or lied; 77 a \
      server not trusted; 128+n killed by signal n.
      """)

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(
    help: ArgumentHelp(
      "Your name (1 to 24 characters).",
      discussion: """
        By default your login name ($USER, $LOGNAME, then the password database); with \
        none, a terminal asks for one.
        """))
  var name: String?

  @Option(help: "The room to join; without it, quick match with the next waiting player.")
  var room: String?

  @Flag(help: "Start a server and a bot opponent on this machine and play against it.")
  var vsBot = false

  @Flag(
    help: ArgumentHelp(
      "Ask for a fair room (commit–reveal) when --room creates it.",
      discussion: """
        In a fair room neither the server nor its host can see a pick before both \
        players are bound to theirs, and this client checks every round itself (marked \
        ✓ verified). A server caught lying stops the match; the evidence is saved in a \
        file the client names.
        """))
  var fair = false

  @Option(help: "The bot's strategy with --vs-bot (list: what each does).")
  var strategy = StrategyChoice.play(.random)

  @OptionGroup var record: RecordOptions

  func validate() throws {
    try strategy.validate()
    if let name { try validateName(name) }
    try validateFair(fair, room: room, vsBot: vsBot)
    try validateFleet(fleet, server: server, alone: vsBot ? "--vs-bot" : nil)
  }

  func run() async throws {
    let versusBot = MatchPlayer.VersusBot(strategy: strategy.strategy) { certificate, key in
      let server = try await LocalServer.start(certificate: certificate, key: key)
      return (server.port, { await server.stop() })
    }
    try await MatchPlayer(
      access: server.access(fleet: fleet), name: try playerName(name), room: room, fair: fair,
      saveRecord: record.saveRecord, versusBot: vsBot ? versusBot : nil
    ).run()
  }
}
