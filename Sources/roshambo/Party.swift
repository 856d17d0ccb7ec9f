import ArgumentParser
import Foundation
import RoshamboClient
import Sysexits

/// `roshambo lobby` on a terminal: resolves the server, runs a ``LobbyEvening`` and exits
/// as it ended.
struct Party {
  var server: ServerOptions
  var name: String

  func run() async throws {
    let options = server
    let resolved = try await options.resolve()
    let seats = await seatMemory(resolved, name: name)
    // Said once, on the first lobby screen of the run that made the identity.
    let notice = resolved.madeIdentity
    let name = self.name
    let exit = try await MainActor.run {
      LobbyEvening(
        name: name, keepaliveMillis: options.keepaliveMillis,
        connect: { try await connect(resolved, options: options) },
        reconnect: reconnector(resolved), seats: seats, notice: notice,
        complain: { complain($0) })
    }.run()
    switch exit {
    case .quit: return
    case .signalled(let number): throw ExitCode(128 + number)
    case .refused: throw ExitCode(ExitStatus.failure)
    case .protocolViolation: throw ExitCode(ExitStatus.protocolViolation)
    case .unreachable: throw ExitCode(ExitStatus.unavailable)
    }
  }
}

/// Where `name`'s seat on `server` is kept while a match runs (nil without a home
/// directory to keep it in).
@MainActor
func seatMemory(_ server: ResolvedServer, name: String) -> SeatMemory? {
  guard let directory = HeldSeat.defaultDirectory(environment: ProcessInfo.processInfo.environment)
  else { return nil }
  return SeatMemory(
    path: HeldSeat.path(in: directory, host: server.host, port: server.port, name: name),
    name: name)
}

/// Plays the match `seats` says this person left running, if there is one: nil when
/// there is none (``SeatMemory/takeBack(name:keepaliveMillis:connect:reconnect:thenLobby:)``).
func takeBackSeat(
  _ server: ResolvedServer, options: ServerOptions, name: String, seats: SeatMemory?
) async -> Screen.Ending? {
  guard let seats else { return nil }
  return await MainActor.run {
    Task { @MainActor in
      await seats.takeBack(
        name: name, keepaliveMillis: options.keepaliveMillis,
        connect: { try await connect(server, options: options) },
        reconnect: reconnector(server), thenLobby: false)
    }
  }.value
}
