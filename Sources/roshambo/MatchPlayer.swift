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

/// `roshambo play`: a match on the screen, by quick match, in a named room, or against
/// a bot on a server of its own here; a match left running is taken back first.
struct MatchPlayer {
  var server: ServerOptions
  var fleet: FleetOptions
  var name: String?
  var room: String?
  var vsBot: Bool
  var fair: Bool
  /// The bot's strategy with `vsBot`.
  var strategy: BotStrategy
  /// Where this client saves its own record of the match (`--save-record`), if anywhere.
  var saveRecord: String?

  func run() async throws {
    let name = try playerName(self.name)
    var room = self.room
    var local: LocalServer?
    let server: ResolvedServer
    if vsBot {
      let files = DevelopmentCertificates.Files(directory: "certs")
      if !files.serverFilesExist { try DevelopmentCertificates.create(in: files.directory) }
      do {
        local = try await LocalServer.start(
          certificate: files.serverCertificate, key: files.serverKey)
      } catch let failure as LocalServer.Failure {
        complain(failure.description)
        throw ExitCode(ExitStatus.unavailable)
      }
      server = ResolvedServer(
        host: "127.0.0.1", port: local!.port,
        tls: try self.server.clientTLS(trust: .caFile(files.caCertificate)))
      room = room ?? "vs-bot-\(UInt32.random(in: 1...UInt32.max))"
      let botConnection = try await connect(server, options: self.server)
      let botRoom = room
      Task { @MainActor in
        let session = ClientSession(connection: botConnection)
        let bot = Bot(session: session, strategy: strategy, matches: .max) { _ in }
        bot.start()
        session.join(name: "Bot (\(strategy.rawValue))", room: botRoom, fair: fair)
        _ = await session.run()
      }
    } else {
      server = try await self.server.resolve(
        fleet: fleet, for: room.map { .room($0) } ?? .quickMatch)
    }
    let seats = vsBot ? nil : await seatMemory(server, name: name)
    // A match left running (a closed terminal, a crash) is played before a new one.
    if let ending = await takeBackSeat(server, options: self.server, name: name, seats: seats),
      ending != .failed
    {
      let status = ExitStatus.of(ending)
      if status != 0 { throw ExitCode(status) }
      return
    }
    let connection = try await connect(server, options: self.server)
    let reconnect = reconnector(server)
    let keepalive = self.server.keepaliveInterval
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let session = ClientSession(
        connection: connection, reconnect: reconnect, keepalive: keepalive)
      session.recordDirectory = saveRecord
      session.seatMemory = seats
      let screen = Screen(session: session)
      return Task { @MainActor in
        await screen.play(name: name, room: room, role: .player, fair: fair)
      }
    }.value
    let status = ExitStatus.of(ending)
    await local?.stop()
    if status != 0 { throw ExitCode(status) }
  }
}

/// `roshambo watch`: a room on the screen, as a spectator, until it is left.
struct RoomWatcher {
  var server: ServerOptions
  var fleet: FleetOptions
  var room: String

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
