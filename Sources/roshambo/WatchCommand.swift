import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboGame
import RoshamboLoad
import RoshamboProtocol
import RoshamboTLS
import ServiceLifecycle
import Sysexits

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
    let resolved = try await server.resolve(fleet: fleet, for: .watch(room))
    let connection = try await connect(resolved, options: server)
    let reconnect = reconnector(resolved)
    let keepalive = server.keepaliveInterval
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let screen = Screen(
        session: ClientSession(connection: connection, reconnect: reconnect, keepalive: keepalive))
      return Task { @MainActor in await screen.play(name: "spectator", room: room, role: .spectator)
      }
    }.value
    let status = ExitStatus.of(ending)
    if status != 0 { throw ExitCode(status) }
  }
}
