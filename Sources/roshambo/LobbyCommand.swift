import ArgumentParser
import RoshamboClient

/// `roshambo lobby`: on a terminal, the lobby screen (challenge, accept, watch, quick
/// match, and back after each match); piped, the lobby as it changes, as plain lines or
/// JSON lines.
struct Lobby: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The party's lobby: who is here, challenges, live matches, the leaderboard.",
    discussion: """
      On a terminal: a screen of who is here, the live rooms and the leaderboard, \
      redrawn as they change. Keys: ↑/↓ (or j/k) select, Tab moves between people and \
      rooms, c challenges the selected person (best of the server's default), a accepts \
      the challenge waiting for you, d declines it, b declines it and every later one \
      from that person this evening, w (or Enter on a room) watches the \
      selected room, m plays quick match, t enters the tournament, r (or Enter on a \
      recent match) replays a finished match, q quits. After a match or when you stop \
      watching (q), you are back in the lobby.

      Piped, or with --json: prints the lobby each time it changes (at most a few times \
      a second) until the server closes or you press Ctrl-C. With --json, one JSON \
      object per line: {"seq": N, "lobby": {…}} with the lobby as docs/PROTOCOL.md \
      describes it.

      Exit status: 0 quit; 1 refused by the server or the connection lost; 76 a server \
      that broke the protocol; 128+n a signal (130 for Ctrl-C).
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under (by default your login name).")
  var name: String?

  @Flag(help: "One JSON object per line, for scripts.")
  var json = false

  func validate() throws {
    if let name { try validateName(name) }
  }

  func run() async throws {
    if Terminal.isInteractive, !json {
      try await Party(access: server.access(), name: try playerName(name)).run()
    } else {
      let name = self.name
      try await LobbyPrinter(
        access: server.access(), name: { try playerName(name) }, mode: .changes(json: json)
      ).run()
    }
  }
}
