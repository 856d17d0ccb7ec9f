import Foundation
import Sysexits

/// `roshambo lobby` on a terminal: finds the server, runs a ``LobbyEvening`` on the screen
/// and exits as it ended.
///
/// Invariant: the identity made by this run is said once, on the first lobby screen.
public struct Party: Sendable {
  public var access: ServerAccess
  public var name: String

  public init(access: ServerAccess, name: String) {
    self.access = access
    self.name = name
  }

  public func run() async throws {
    let access = self.access
    let resolved = try await access.resolve()
    let seats = await access.seatMemory(resolved, name: name)
    let notice = resolved.madeIdentity
    let name = self.name
    let exit = try await MainActor.run {
      LobbyEvening(
        name: name, keepaliveMillis: access.keepaliveMillis,
        connect: { try await access.connect(resolved) },
        reconnect: access.reconnector(resolved), seats: seats, notice: notice,
        complain: { StandardError.complain($0) })
    }.run()
    try CommandExit.unlessSuccess(ExitStatus.of(exit))
  }
}
