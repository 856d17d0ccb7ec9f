import ArgumentParser
import RoshamboClient
import RoshamboProtocol

struct Servers: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the servers announcing themselves on the local network.",
    discussion: """
      Listens for roshambo-server's announcements (UDP multicast to \(Announcement.group) \
      port \(Announcement.port)) and asks servers to announce at once, then prints one \
      line per server: name, address:port, players waiting for an opponent, and the \
      identity code of its certificate. An announcement is only a hint: connecting still \
      checks the certificate. Exits 0 when at least one server was heard, 1 when none was.
      """)

  @Option(help: "Seconds to listen.")
  var timeout: Double = 2

  func validate() throws {
    guard timeout >= 0.1, timeout <= 60 else {
      throw ValidationError("--timeout must be from 0.1 to 60 seconds.")
    }
  }

  func run() async throws {
    try await ServerListing(timeout: timeout).run()
  }
}
