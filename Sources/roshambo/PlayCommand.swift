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

struct Play: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Play a match: quick match, a named room (--room), or a bot here (--vs-bot).",
    discussion: """
      Keys: r, p, s (and l, k for lizard and Spock, or 1–5) pick; n asks for a rematch; \
      q quits. During a match q and Ctrl-C ask first, and a second press gives the match \
      up (Ctrl-C then exits 130); closing the terminal keeps the seat for the server's \
      grace period, so running play again resumes it. When standard output is not a \
      terminal, one plain line is printed per change instead of a full screen, so the \
      client works in pipes and scripts.

      Exit status: 0 done; 1 refused by the server or the connection lost; 64 a bad \
      flag; 69 no server reachable; 76 a server that broke the protocol or lied; 77 a \
      server not trusted; 128+n killed by signal n.
      """)

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(
    help: ArgumentHelp(
      "Your name (1 to 24 characters).",
      discussion: """
        By default your login name ($USER, $LOGNAME, then the password database); with \
        none, a terminal asks for one.
        """))
  var name: String?

  @Option(help: "The room to join; without it, quick match with the next waiting player.")
  var room: String?

  @Flag(help: "Start a server and a bot opponent on this machine and play against it.")
  var vsBot = false

  @Flag(
    help: ArgumentHelp(
      "Ask for a fair room (commit–reveal) when --room creates it.",
      discussion: """
        In a fair room neither the server nor its host can see a pick before both \
        players are bound to theirs, and this client checks every round itself (marked \
        ✓ verified). A server caught lying stops the match; the evidence is saved in a \
        file the client names.
        """))
  var fair = false

  @Option(help: "The bot's strategy with --vs-bot.")
  var strategy = BotStrategy.random

  @OptionGroup var record: RecordOptions

  func validate() throws {
    if let name { try validateName(name) }
    try validateFair(fair, room: room, vsBot: vsBot)
    try validateFleet(fleet, server: server, alone: vsBot ? "--vs-bot" : nil)
  }

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
      session.recordDirectory = record.saveRecord
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
