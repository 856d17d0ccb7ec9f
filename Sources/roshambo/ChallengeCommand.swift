import ArgumentParser
import RoshamboClient
import RoshamboGame

/// `roshambo challenge NAME`: challenges someone in the lobby and plays the match on the
/// screen once they accept.
struct Challenge: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Challenge someone in the lobby to a match, and play it when they accept.",
    discussion: """
      Challenges NAME as soon as they are in the lobby and free (on its screen, or a bot \
      with --lobby; waiting up to --wait seconds for that), then up to 30 s for the answer. Accepted, the match is played as with `roshambo \
      play`; declined, expired or refused, the reason is said and the exit status is 1.
      """)

  @OptionGroup var server: ServerOptions

  @Argument(help: "The name of the person to challenge, as the lobby shows it.")
  var opponent: String

  @Option(help: "Your name (by default your login name).")
  var name: String?

  @Flag(help: "Ask for a fair match (commit–reveal).")
  var fair = false

  @Option(
    help: ArgumentHelp(
      "The rules to play by (by default the server's): \(Ruleset.ID.allValueStrings.joined(separator: ", ")).",
      valueName: "rules"))
  var ruleset: Ruleset.ID?

  @Option(help: "How long to wait for them to be free in the lobby, s.")
  var wait = 10

  func validate() throws {
    if let name { try validateName(name) }
    try validateName(opponent)
    guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds.") }
  }

  func run() async throws {
    try await ChallengeMatch(
      access: server.access(), name: try playerName(name), opponent: opponent, ruleset: ruleset,
      fair: fair, wait: .seconds(wait)
    ).run()
  }
}
