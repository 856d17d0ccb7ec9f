import ArgumentParser
import Foundation
import Logging
import RoshamboGame
import RoshamboProtocol
import RoshamboServer

@main
struct RoshamboServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "roshambo-server",
    abstract: "The authoritative Roshambo game server.",
    discussion: """
      Holds every room of rock-paper-scissors, reduces what players send, and sends each \
      player the state their seat may see, over TLS 1.3 (port 7443 by default). Results \
      are saved in an SQLite journal before anyone sees them, so a restarted server \
      resumes every match; players take their seats back with their resume tokens.

      With no certificate options, the server uses certs/server.pem and \
      certs/server-key.pem, and creates them (with the game's own CA in certs/ca.pem) \
      when they do not exist.

      Prints a line containing "listening on" with the address, then how players on other \
      machines join. SIGINT or SIGTERM stops it cleanly: no new connections, everything \
      saved, every connection closed with TLS close_notify, exit status 0.
      """,
    version: RoshamboVersion.description(commit: sourceCommit),
    subcommands: [History.self, ReplayJournal.self, Status.self, Serve.self])

  @OptionGroup var options: ServeOptions

  func run() async throws {
    let application = try options.application(logger: options.startLogging())
    try await application.run()
  }
}

/// `--ruleset`, `--durability` and `--log-level` take these by name; help and errors list every one.
extension Ruleset.ID: ExpressibleByArgument {}
extension Tournament.Kind: ExpressibleByArgument {}
extension JournalDurability: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Prints one line to standard error, prefixed with the program's name.
func complain(_ message: String) {
  FileHandle.standardError.write(Data("roshambo-server: \(message)\n".utf8))
}
