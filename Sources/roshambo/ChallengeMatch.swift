import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboGame
import Sysexits

/// Waits in the lobby as `name` for what `goal` says (``HeadlessLobby``), on a connection
/// of its own, until the server seats this program; returns the seated driver, whose
/// session plays the match on. A lost lobby (the network, a drain, a restart) is taken
/// back by the core (an entrant of the tournament keeps its entry when back within the
/// server's grace). A wait that stops for its own reason, or a refusal, is said and exits
/// 1; a broken protocol 76; a server not reached again 69.
func seatFromLobby(
  _ server: ResolvedServer, options: ServerOptions, name: String, goal: LobbySeating.Goal,
  wait: Duration = .seconds(10), seats: SeatMemory? = nil
) async throws -> PlayerDriver {
  let connection = try await connect(server, options: options)
  let lobby = await MainActor.run {
    let driver = PlayerDriver(
      configuration: PlayerConfiguration(
        name: name, role: .lobby, fair: true, keepaliveMillis: options.keepaliveMillis,
        takesChallenges: true),
      connection: connection, connect: reconnector(server))
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
    throw ExitCode(ExitStatus.failure)
  case .stopped(let problem):
    complain(problem)
    throw ExitCode(ExitStatus.failure)
  case .ended(let end):
    complain(end.reason)
    switch end {
    case .brokeProtocol, .cheated: throw ExitCode(ExitStatus.protocolViolation)
    case .gaveUp, .couldNotConnect: throw ExitCode(ExitStatus.unavailable)
    case .left, .refused, .closed: throw ExitCode(ExitStatus.failure)
    }
  }
}

/// `roshambo challenge`: challenges `opponent` from the lobby as soon as they are free,
/// then plays the match on the screen once they accept.
struct ChallengeMatch {
  var server: ServerOptions
  var name: String
  var opponent: String
  /// The rules to play by (nil: the server's).
  var ruleset: Ruleset.ID?
  var fair: Bool
  /// How long to wait for the opponent to be free in the lobby.
  var wait: Duration

  func run() async throws {
    let resolved = try await server.resolve()
    let seats = await seatMemory(resolved, name: name)
    let driver = try await seatFromLobby(
      resolved, options: server, name: name,
      goal: .challenge(opponent, ruleset: ruleset, fair: fair), wait: wait,
      seats: seats)
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let screen = Screen(session: ClientSession(seatedFrom: driver))
      screen.returnsToLobby = true
      return Task { @MainActor in await screen.playSeated() }
    }.value
    let status = ExitStatus.of(ending)
    if status != 0 { throw ExitCode(status) }
  }
}
