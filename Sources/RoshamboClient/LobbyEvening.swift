import Foundation
import RoshamboGame
import RoshamboProtocol

/// `roshambo lobby` on a terminal, without its command line: the lobby screen, then
/// whatever the person chose there (a match from a challenge, quick match, watching a
/// room, a replay) on its screen, then the lobby again, until they quit it;
/// ``LobbyNavigation`` says which. A match left running is taken back first.
///
/// Invariant: one screen at a time; the lobby's own session plays the match the server
/// seats it in, and every other screen has a session (or a connection) of its own.
@MainActor
public final class LobbyEvening {
  private let name: String
  private let keepaliveMillis: Int64
  private let connect: @Sendable () async throws -> ServerConnection
  private let reconnect: @Sendable () async throws -> ServerConnection
  private let complain: (String) -> Void
  private let seats: SeatMemory?
  private var notice: String?

  /// `connect` makes a screen's first connection (its errors end the evening as they
  /// are), `reconnect` each later one; `seats` keeps a running match's seat (nil:
  /// nowhere); `notice` is said on the first lobby screen; `complain` says a line on
  /// standard error.
  public init(
    name: String, keepaliveMillis: Int64,
    connect: @escaping @Sendable () async throws -> ServerConnection,
    reconnect: @escaping @Sendable () async throws -> ServerConnection, seats: SeatMemory?,
    notice: String? = nil, complain: @escaping (String) -> Void
  ) {
    self.name = name
    self.keepaliveMillis = keepaliveMillis
    self.connect = connect
    self.reconnect = reconnect
    self.seats = seats
    self.notice = notice
    self.complain = complain
  }

  /// Runs screen after screen until the evening ends; how it ended (its complaint said).
  public func run() async throws -> LobbyNavigation.Exit {
    let navigation = LobbyNavigation()
    var step = navigation.start()
    // The lobby's session, kept from the lobby screen for the match the server seated it in.
    var lobbyDriver: PlayerDriver?
    while true {
      switch step {
      case .takeBackSeat:
        // A match left running (a closed terminal, a crash) is taken back before the lobby.
        step = navigation.tookBackSeat(await takeBackSeat())
      case .lobby(let why, let complaint):
        if let complaint { complain(complaint) }
        // After a loss the lobby reaches the server again itself, saying so on its screen.
        let connection = why == nil ? try await connect() : nil
        let driver = PlayerDriver(
          configuration: PlayerConfiguration(
            name: name, role: .lobby, fair: true, keepaliveMillis: keepaliveMillis,
            takesChallenges: true),
          connection: connection, connect: reconnect)
        driver.seats = seats
        // Said once, on the first lobby screen.
        let screen = LobbyScreen(driver: driver, afterLoss: why != nil, notice: notice)
        notice = nil
        lobbyDriver = driver
        step = navigation.lobbyEnded(await screen.run())
      case .playSeated:
        guard let driver = lobbyDriver else { return .quit }
        let screen = Screen(session: ClientSession(seatedFrom: driver))
        screen.returnsToLobby = true
        step = navigation.matchEnded(await screen.playSeated())
      case .replay(let id):
        step = navigation.replayEnded(try await replay(match: id), match: id)
      case .quickMatch, .watch:
        let session = ClientSession(
          connection: try await connect(), reconnect: reconnect,
          keepalive: .milliseconds(keepaliveMillis))
        let screen = Screen(session: session)
        screen.returnsToLobby = true
        if case .watch(let room) = step {
          step = navigation.matchEnded(await screen.play(name: name, room: room, role: .spectator))
        } else {
          session.seatMemory = seats
          step = navigation.matchEnded(await screen.play(name: name, room: nil, role: .player))
        }
      case .end(let exit, let complaint):
        if let complaint { complain(complaint) }
        return exit
      }
    }
  }

  private func takeBackSeat() async -> Screen.Ending? {
    await seats?.takeBack(
      name: name, keepaliveMillis: keepaliveMillis, connect: connect, reconnect: reconnect,
      thenLobby: true)
  }

  /// Fetches match `id`'s record on a connection of its own and replays it on the screen
  /// (a connection that cannot be made throws, and ends the evening).
  private func replay(match id: Int64) async throws -> LobbyNavigation.ReplayEnding {
    let fresh = try await connect()
    do {
      let match = try await RecordRequest.fetch(
        fresh, name: name, id: Int(id), keepalive: .milliseconds(keepaliveMillis))
      guard let replay = MatchReplay(match) else { return .watched }
      let signalled = await ReplayScreen(replay, title: "match \(id)", speed: 1).run()
      return signalled.map { .signalled($0) } ?? .watched
    } catch let violation as ProtocolViolation {
      return .protocolViolation(violation.description)
    } catch let refused as RecordRequest.Refused {
      return .unavailable(refused.description)
    } catch {
      // The connection failed: back to the lobby, which says so if it persists.
      return .unavailable(ConnectionFailure.ended(error))
    }
  }
}

extension SeatMemory {
  /// Plays the match this memory says its person left running (a closed terminal, a
  /// crash), if there is one: nil when there is none, or the server cannot be reached. A
  /// seat the server no longer holds is said and forgotten. `thenLobby`: the screen's end
  /// leads back to the lobby.
  public func takeBack(
    name: String, keepaliveMillis: Int64,
    connect: @Sendable () async throws -> ServerConnection,
    reconnect: @escaping @Sendable () async throws -> ServerConnection, thenLobby: Bool
  ) async -> Screen.Ending? {
    guard let held else { return nil }
    guard let connection = try? await connect() else { return nil }
    let session = ClientSession(
      connection: connection, reconnect: reconnect, keepalive: .milliseconds(keepaliveMillis))
    session.seatMemory = self
    let screen = Screen(session: session)
    screen.returnsToLobby = thenLobby
    let ending = await screen.play(
      name: name, room: held.room, role: .player, resume: held.token)
    if ending == .failed { forget() }
    return ending
  }
}
