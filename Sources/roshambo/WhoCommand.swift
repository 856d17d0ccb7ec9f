import ArgumentParser
import RoshamboClient

/// `roshambo who`: one snapshot of the lobby, as plain lines.
struct Who: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print who is on the server, the rooms and their scores, and the leaderboard.",
    discussion: """
      Follows the server's lobby just long enough for one view, prints it and exits 0. \
      Names are printed as the screen shows them (anything unprintable made visible). \
      A server that sends no view within 10 s is given up on (exit 1).
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under while you look (by default your login name).")
  var name: String?

  func validate() throws {
    if let name { try validateName(name) }
  }

  func run() async throws {
    let name = self.name
    try await LobbyPrinter(access: server.access(), name: { try playerName(name) }, mode: .once)
      .run()
  }
}
