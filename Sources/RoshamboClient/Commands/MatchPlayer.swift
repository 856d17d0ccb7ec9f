import Foundation
import RoshamboTLS
import Sysexits

/// `roshambo play`: a match on the screen, by quick match, in a named room, or against a
/// bot on a server of its own here.
///
/// Invariant: a match this person left running on the server is played before a new one
/// is asked for (a bot's match here has none to take back).
public struct MatchPlayer: Sendable {
  /// A bot to play here, on a server this program runs for the match (`--vs-bot`).
  ///
  /// Invariant: the server it starts is started once a run, and stopped once the match
  /// on the screen has ended.
  public struct VersusBot: Sendable {
    /// Starts the server on 127.0.0.1 with the certificate and key given: its port and
    /// how to stop it. (The client links no server: the program hands this in.)
    public typealias StartServer =
      @Sendable (_ certificate: String, _ key: String) async throws -> LocalGame

    /// A server started here: the port it listens on, and how to stop it.
    public typealias LocalGame = (port: Int, stop: @Sendable () async -> Void)

    public var strategy: BotStrategy
    public var startServer: StartServer

    public init(strategy: BotStrategy, startServer: @escaping StartServer) {
      self.strategy = strategy
      self.startServer = startServer
    }
  }

  public var access: ServerAccess
  public var name: String
  public var room: String?
  public var fair: Bool
  /// Where this client saves its own record of the match (`--save-record`), if anywhere.
  public var saveRecord: String?
  /// The bot to play here instead of someone on a server (nil: a server's match).
  public var versusBot: VersusBot?

  public init(
    access: ServerAccess, name: String, room: String?, fair: Bool, saveRecord: String?,
    versusBot: VersusBot?
  ) {
    self.access = access
    self.name = name
    self.room = room
    self.fair = fair
    self.saveRecord = saveRecord
    self.versusBot = versusBot
  }

  public func run() async throws {
    let name = self.name
    let fair = self.fair
    let saveRecord = self.saveRecord
    var room = self.room
    var stopLocal: (@Sendable () async -> Void)?
    let server: ResolvedServer
    if let versusBot {
      let files = DevelopmentCertificates.Files(directory: "certs")
      if !files.serverFilesExist { try DevelopmentCertificates.create(in: files.directory) }
      let port: Int
      do {
        (port, stopLocal) = try await versusBot.startServer(
          files.serverCertificate, files.serverKey)
      } catch {
        StandardError.complain("\(error)")
        throw CommandExit(ExitStatus.unavailable)
      }
      server = ResolvedServer(
        host: "127.0.0.1", port: port,
        tls: try access.clientTLS(trust: .caFile(files.caCertificate)))
      room = room ?? "vs-bot-\(UInt32.random(in: 1...UInt32.max))"
      let botConnection = try await access.connect(server)
      let botRoom = room
      let strategy = versusBot.strategy
      Task { @MainActor in
        let session = ClientSession(connection: botConnection)
        let bot = Bot(session: session, strategy: strategy, matches: .max) { _ in }
        bot.start()
        session.join(name: "Bot (\(strategy.rawValue))", room: botRoom, fair: fair)
        _ = await session.run()
      }
    } else {
      server = try await access.resolve(for: room.map { .room($0) } ?? .quickMatch)
    }
    let seats = versusBot != nil ? nil : await access.seatMemory(server, name: name)
    // A match left running (a closed terminal, a crash) is played before a new one.
    if let ending = await access.takeBackSeat(server, name: name, seats: seats), ending != .failed {
      try CommandExit.unlessSuccess(ExitStatus.of(ending))
      return
    }
    let connection = try await access.connect(server)
    let reconnect = access.reconnector(server)
    let keepalive = access.keepaliveInterval
    let joining = room
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let session = ClientSession(
        connection: connection, reconnect: reconnect, keepalive: keepalive)
      session.recordDirectory = saveRecord
      session.seatMemory = seats
      let screen = Screen(session: session)
      return Task { @MainActor in
        await screen.play(name: name, room: joining, role: .player, fair: fair)
      }
    }.value
    let status = ExitStatus.of(ending)
    await stopLocal?()
    try CommandExit.unlessSuccess(status)
  }
}

/// `roshambo watch`: a room on the screen, as a spectator, until it is left.
///
/// Invariant: it never takes a seat: it joins as a spectator only.
public struct RoomWatcher: Sendable {
  public var access: ServerAccess
  public var room: String

  public init(access: ServerAccess, room: String) {
    self.access = access
    self.room = room
  }

  public func run() async throws {
    let room = self.room
    let resolved = try await access.resolve(for: .watch(room))
    let connection = try await access.connect(resolved)
    let reconnect = access.reconnector(resolved)
    let keepalive = access.keepaliveInterval
    let ending = await MainActor.run { () -> Task<Screen.Ending, Never> in
      let screen = Screen(
        session: ClientSession(connection: connection, reconnect: reconnect, keepalive: keepalive))
      return Task { @MainActor in await screen.play(name: "spectator", room: room, role: .spectator)
      }
    }.value
    try CommandExit.unlessSuccess(ExitStatus.of(ending))
  }
}
