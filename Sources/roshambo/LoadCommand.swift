import ArgumentParser
import RoshamboClient
import RoshamboLoad

struct Load: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Load a server with many bot pairs and measure it.",
    discussion: """
      Seats N pairs of bots (rooms load-0 … load-N-1) in this one process, lets them play \
      for the given seconds, and prints throughput, the latency of a pick's round trip \
      (choose sent → the bot's own state back) at p50, p90, p99 and max, and the errors \
      the server sent. The server's rate limit (20 messages/s per connection) applies, so \
      use --pace-ms to keep each bot below it.
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "Rooms, each with two bots.")
  var rooms = 10

  @Option(help: "Seconds to measure, after every bot is seated.")
  var duration: Double = 10

  @Option(help: "Mean milliseconds each bot waits before a pick (0: as fast as answered).")
  var paceMs = 200

  @Option(help: "Event loop threads for the bots.")
  var threads = 1

  @Flag(help: "The bots ask for fair rooms and play them by commit–reveal.")
  var fair = false

  func validate() throws {
    guard rooms >= 1 else { throw ValidationError("--rooms must be at least 1.") }
    guard duration > 0 else { throw ValidationError("--duration must be more than 0 seconds.") }
    guard paceMs >= 0 else { throw ValidationError("--pace-ms must be 0 or more.") }
    guard threads >= 1 else { throw ValidationError("--threads must be at least 1.") }
  }

  func run() async throws {
    try await LoadTrial(
      access: server.access(), rooms: rooms, duration: duration, paceMs: paceMs, threads: threads,
      fair: fair
    ).run()
  }
}
