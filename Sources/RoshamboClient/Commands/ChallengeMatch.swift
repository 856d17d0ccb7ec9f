import Foundation
import RoshamboGame
import RoshamboProtocol
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
    // A lobby that takes challenges replaces another of the same person's: look first,
    // and ask before closing the one open in another terminal.
    if let view = try? await look(resolved), Self.lobbyOpen(in: view, name: name) {
      guard takeOver(interactive: ServerAccess.interactive) else {
        let kept =
          "Nothing was sent: your lobby stays open in the other terminal. Challenge from "
          + "there: c on the person."
        print(Paragraph.standardOutputWidth.map { Paragraph.wrapped(kept, width: $0) } ?? kept)
        throw CommandExit(ExitStatus.failure)
      }
    }
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

  /// Whether `view` shows `name`'s lobby open (following and taking challenges): a lobby
  /// screen of the same person in another terminal, which this command's lobby would close.
  public static func lobbyOpen(in view: LobbyView, name: String) -> Bool {
    let me = (try? PlayerName.normalize(name).get()) ?? name
    return view.people.contains { $0.name == me && $0.takesChallenges && $0.status == .idle }
  }

  /// The question before closing the person's other lobby; on no terminal, the challenge
  /// goes on and says so. Returns whether to go on.
  private func takeOver(interactive: Bool) -> Bool {
    let said = "Your lobby is open in another terminal; challenging from here closes it there."
    guard interactive else {
      print(said)
      return true
    }
    print(Paragraph.standardOutputWidth.map { Paragraph.wrapped(said, width: $0) } ?? said)
    print("Go on? [y/N] ", terminator: "")
    fflush(nil)
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
    return answer == "y" || answer == "yes"
  }

  /// The lobby as the server has it now, seen by a look that takes no challenges (so it
  /// replaces nothing), on a connection of its own.
  private func look(_ server: ResolvedServer) async throws -> LobbyView? {
    let connection = try await access.connect(server)
    let name = self.name
    let keepaliveMillis = access.keepaliveMillis
    return try await LobbyLook.firstView(
      on: connection, name: name, keepaliveMillis: keepaliveMillis, within: .seconds(10)
    ).view
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
