import ArgumentParser
import Foundation
import RoshamboClient
import Sysexits

/// `roshambo bot`: resolves the server, then runs a ``BotPlay`` and exits as it ended.
struct BotPlayer {
  var server: ServerOptions
  var fleet: FleetOptions
  var settings: BotPlay.Settings

  func run() async throws {
    let server = self.server
    let resolved = try await server.resolve(
      fleet: fleet, for: settings.room.map { .room($0) } ?? .quickMatch)
    let settings = self.settings
    let ending = try await MainActor.run {
      BotPlay(
        settings, connect: { try await connect(resolved, options: server) },
        reconnect: reconnector(resolved),
        say: { line in
          print(line)
          fflush(nil)
        }, complain: { complain($0) })
    }.run()
    switch ending {
    case .finished: return
    case .failed(let violated):
      throw ExitCode(violated ? ExitStatus.protocolViolation : ExitStatus.failure)
    case .programFailed: throw ExitCode(ExitStatus.botProgram)
    case .unreachable: throw ExitCode(ExitStatus.unavailable)
    }
  }
}
