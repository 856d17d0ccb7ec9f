import ArgumentParser
import RoshamboClient

struct Watch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Watch a room as a spectator.")

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(help: "The room to watch.")
  var room: String

  func validate() throws {
    try validateFleet(fleet, server: server, alone: nil)
  }

  func run() async throws {
    try await RoomWatcher(access: server.access(fleet: fleet), room: room).run()
  }
}
