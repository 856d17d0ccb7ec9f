import Foundation
import RoshamboGame
import Sysexits

/// `roshambo challenge`: challenges `opponent` from the lobby as soon as they are free,
/// then plays the match on the screen once they accept.
///
/// Invariant: the screen opens only on a seat the server gave: every other end of the
/// wait in the lobby is said and thrown as a ``CommandExit``.
public struct ChallengeMatch: Sendable {
  public var access: ServerAccess
  public var name: String
  public var opponent: String
  /// The rules to play by (nil: the server's).
  public var ruleset: Ruleset.ID?
  public var fair: Bool
  /// How long to wait for the opponent to be free in the lobby.
  public var wait: Duration

  public init(
    access: ServerAccess, name: String, opponent: String, ruleset: Ruleset.ID?, fair: Bool,
    wait: Duration
  ) {
    self.access = access
    self.name = name
    self.opponent = opponent
    self.ruleset = ruleset
    self.fair = fair
    self.wait = wait
  }

  public func run() async throws {
    let resolved = try await access.resolve()
    let seats = await access.seatMemory(resolved, name: name)
    let driver = try await seat(
      resolved, goal: .challenge(opponent, ruleset: ruleset, fair: fair), seats: seats)
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let screen = Screen(session: ClientSession(seatedFrom: driver))
      screen.returnsToLobby = true
      return Task { @MainActor in await screen.playSeated() }
    }.value
    try CommandExit.unlessSuccess(ExitStatus.of(ending))
  }

  /// Waits in the lobby for what `goal` says (``HeadlessLobby``), on a connection of its
  /// own, until the server seats this program; returns the seated driver, whose session
  /// plays the match on. A lost lobby (the network, a drain, a restart) is taken back by
  /// the core. A wait that stops for its own reason, or a refusal, is said and exits 1; a
  /// broken protocol 76; a server not reached again 69.
  private func seat(_ server: ResolvedServer, goal: LobbySeating.Goal, seats: SeatMemory?)
    async throws -> PlayerDriver
  {
    let connection = try await access.connect(server)
    let name = self.name
    let wait = self.wait
    let keepaliveMillis = access.keepaliveMillis
    let reconnect = access.reconnector(server)
    let lobby = await MainActor.run {
      let driver = PlayerDriver(
        configuration: PlayerConfiguration(
          name: name, role: .lobby, fair: true, keepaliveMillis: keepaliveMillis,
          takesChallenges: true),
        connection: connection, connect: reconnect)
      driver.seats = seats
      return HeadlessLobby(driver: driver, goal: goal, wait: wait) { line in
        print(line)
        fflush(nil)
      }
    }
    switch await lobby.run() {
    case .seated(let driver):
      return driver
    case .abandoned:
      throw CommandExit(ExitStatus.failure)
    case .stopped(let problem):
      StandardError.complain(problem)
      throw CommandExit(ExitStatus.failure)
    case .ended(let end):
      StandardError.complain(end.reason)
      throw CommandExit(seatingEndedBy: end)
    }
  }
}
