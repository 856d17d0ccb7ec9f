import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboGame
import RoshamboJSON
import RoshamboLoad
import RoshamboProtocol
import RoshamboTLS
import ServiceLifecycle
import Sysexits

/// `roshambo lobby` on a terminal: the lobby screen, then whatever the person chose
/// there (a match from a challenge, quick match, watching a room, a replay) on its
/// screen, then the lobby again, until they quit it; ``LobbyNavigation`` says which.
struct Party {
  var server: ServerOptions
  var name: String

  func run() async throws {
    let options = server
    let resolved = try await options.resolve()
    let reconnect = reconnector(resolved)
    let keepalive = options.keepaliveInterval
    let seats = await seatMemory(resolved, name: name)
    let navigation = LobbyNavigation()
    var step = navigation.start()
    // The lobby's session, kept from the lobby screen for the match the server seated it in.
    var lobbyDriver: PlayerDriver?
    while true {
      switch step {
      case .takeBackSeat:
        // A match left running (a closed terminal, a crash) is taken back before the lobby.
        step = navigation.tookBackSeat(
          await takeBackSeat(resolved, options: options, name: name, seats: seats, thenLobby: true))
      case .lobby(let why, let complaint):
        if let complaint { complain(complaint) }
        // After a loss the lobby reaches the server again itself, saying so on its screen.
        let connection = why == nil ? try await connect(resolved, options: options) : nil
        // Said once, on the first lobby screen of the run that made the identity.
        let notice = madeIdentity.withLockedValue { said in
          defer { said = nil }
          return said
        }
        let screen = await MainActor.run {
          let driver = PlayerDriver(
            configuration: PlayerConfiguration(
              name: name, role: .lobby, fair: true,
              keepaliveMillis: Int64(options.keepalive * 1_000),
              takesChallenges: true),
            connection: connection, connect: reconnect)
          driver.seats = seats
          return LobbyScreen(driver: driver, afterLoss: why != nil, notice: notice)
        }
        lobbyDriver = await MainActor.run { screen.driver }
        step = navigation.lobbyEnded(await screen.run())
      case .playSeated:
        guard let driver = lobbyDriver else { return }
        step = navigation.matchEnded(await playSeated(driver))
      case .replay(let id):
        step = navigation.replayEnded(
          try await replay(match: id, from: resolved, options: options, name: name), match: id)
      case .quickMatch, .watch:
        let fresh = try await connect(resolved, options: options)
        let room: String? = if case .watch(let room) = step { room } else { nil }
        step = navigation.matchEnded(
          await MainActor.run { () -> Task<Screen.Ending, Never> in
            let session = ClientSession(
              connection: fresh, reconnect: reconnect, keepalive: keepalive)
            let screen = Screen(session: session)
            screen.returnsToLobby = true
            return Task { @MainActor in
              if let room { return await screen.play(name: name, room: room, role: .spectator) }
              session.seatMemory = seats
              return await screen.play(name: name, room: nil, role: .player)
            }
          }.value)
      case .end(let exit, let complaint):
        if let complaint { complain(complaint) }
        switch exit {
        case .quit: return
        case .signalled(let number): throw ExitCode(128 + number)
        case .refused: throw ExitCode(ExitStatus.failure)
        case .protocolViolation: throw ExitCode(ExitStatus.protocolViolation)
        case .unreachable: throw ExitCode(ExitStatus.unavailable)
        }
      }
    }
  }
}

/// Fetches match `id`'s record on a connection of its own and replays it on the screen (a
/// connection that cannot be made throws, and ends the program).
func replay(match id: Int64, from server: ResolvedServer, options: ServerOptions, name: String)
  async throws -> LobbyNavigation.ReplayEnding
{
  let fresh = try await connect(server, options: options)
  do {
    let match = try await RecordRequest.fetch(
      fresh, name: name, id: Int(id), keepalive: options.keepaliveInterval)
    guard let replay = MatchReplay(match) else { return .watched }
    let signalled = await MainActor.run {
      ReplayScreen(replay, title: "match \(id)", speed: 1)
    }.run()
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
/// there is none. A seat the server no longer holds is said and forgotten.
func takeBackSeat(
  _ server: ResolvedServer, options: ServerOptions, name: String, seats: SeatMemory?,
  thenLobby: Bool = false
) async -> Screen.Ending? {
  guard let seats, let held = await MainActor.run(body: { seats.held }) else { return nil }
  guard let connection = try? await connect(server, options: options) else { return nil }
  let reconnect = reconnector(server)
  let keepalive = options.keepaliveInterval
  let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
    let session = ClientSession(connection: connection, reconnect: reconnect, keepalive: keepalive)
    session.seatMemory = seats
    let screen = Screen(session: session)
    screen.returnsToLobby = thenLobby
    return Task { @MainActor in
      await screen.play(name: name, room: held.room, role: .player, resume: held.token)
    }
  }.value
  if ending == .failed { await MainActor.run { seats.forget() } }
  return ending
}

/// Plays on the screen the match the server seated the lobby's session in (an accepted
/// challenge, a tournament's match), on the lobby's driver.
func playSeated(_ driver: PlayerDriver) async -> Screen.Ending {
  await MainActor.run { () -> Task<Screen.Ending, Never> in
    let screen = Screen(session: ClientSession(seatedFrom: driver))
    screen.returnsToLobby = true
    return Task { @MainActor in await screen.playSeated() }
  }.value
}
