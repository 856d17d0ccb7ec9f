import ArgumentParser

/// `roshambo-server serve`: the same as no subcommand, for scripts that name it.
struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the server (the same as giving no subcommand).", shouldDisplay: false)

  @OptionGroup var options: ServeOptions

  func run() async throws {
    let application = try options.application(logger: options.startLogging())
    try await application.run()
  }
}
