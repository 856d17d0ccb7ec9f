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

@main
struct RoshamboCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "roshambo",
    abstract: "Play rock-paper-scissors against people or bots over TLS.",
    discussion: """
      On a terminal, `roshambo` alone opens the lobby: who is on the server, challenges, \
      matches to watch. `roshambo play --vs-bot` starts a game on this machine at once. \
      To play on a LAN, \
      one machine runs roshambo-server and players run `roshambo play`: the server \
      announces itself, and the first time a player connects the client shows the \
      server's identity code to compare with the one the server printed, then remembers \
      the server in ~/.config/roshambo/known_servers. --host, --ca and --pin say \
      where the server is and how to trust it instead.
      """,
    version: RoshamboVersion.description(commit: sourceCommit),
    subcommands: [
      Lobby.self, Play.self, Watch.self, Challenge.self, BotCommand.self, Who.self, Servers.self,
      Replay.self, Verify.self, Load.self,
    ],
    defaultSubcommand: Lobby.self)
}

/// The strategies, as `--strategy` takes them (help lists every one).
extension BotStrategy: ExpressibleByArgument {}

/// One line on standard error; text from the network in it is made safe first.
func complain(_ message: String) {
  let paragraph = Paragraph.forStandardError("roshambo: \(TerminalText.sanitized(message))")
  FileHandle.standardError.write(Data((paragraph + "\n").utf8))
}

/// Lines on standard error, each made safe on its own (so a newline in text from the
/// network can still not start a line that looks like this program's).
func complain(lines: [String]) {
  let safe = lines.map { TerminalText.sanitized($0) }
  let paragraphs = ("roshambo: " + safe.joined(separator: "\n")).split(
    separator: "\n", omittingEmptySubsequences: false
  ).map { Paragraph.forStandardError(String($0)) }
  FileHandle.standardError.write(Data((paragraphs.joined(separator: "\n") + "\n").utf8))
}

/// How a session gets a new connection after one drops.
func reconnector(_ server: ResolvedServer) -> @Sendable () async throws -> ServerConnection {
  let host = server.host
  let port = server.port
  let tls = server.tls
  return { try await ServerConnection.connect(host: host, port: port, tls: tls) }
}

/// `--save-record DIR`, for the commands that play or watch.
struct RecordOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Save this client's own record of each match it sees end, as a file in this directory.",
      discussion: """
        What this client saw: compare it with the server's record of the same match \
        with `roshambo verify MINE --compare THEIRS`.
        """, valueName: "dir"))
  var saveRecord: String?
}

/// Says what ended a conversation with the server, and the exit status for it: 76 for a
/// server that broke the protocol, 1 for a refusal or a lost connection.
func exitCode(after error: any Error) -> ExitCode {
  switch error {
  case let exit as ExitCode:
    return exit
  case let violation as ProtocolViolation:
    complain(violation.description)
    return ExitCode(ExitStatus.protocolViolation)
  case let refused as LobbyFollower.Refused:
    complain(refused.description)
    return ExitCode(ExitStatus.failure)
  case let silent as NoAnswer:
    complain(silent.description)
    return ExitCode(ExitStatus.failure)
  default:
    complain(ConnectionFailure.ended(error))
    return ExitCode(ExitStatus.failure)
  }
}

/// Connects, saying what to do when it fails.
func connect(_ server: ResolvedServer, options: ServerOptions) async throws -> ServerConnection {
  do {
    return try await ServerConnection.connect(host: server.host, port: server.port, tls: server.tls)
  } catch {
    // A remembered server whose certificate changed is said loudly, as SSH does.
    if let tls = error as? TLSError, case .pinMismatch(_, let actual) = tls.kind,
      let lines = server.changedIdentityMessage(actual: actual)
    {
      complain(lines: lines)
      throw ExitCode(ExitStatus.untrusted)
    }
    throw options.cannotConnect(host: server.host, port: server.port, error)
  }
}

/// The player's name when `--name` is not given: the login name (``LoginName``), else
/// asked for on a terminal; without a terminal, an error says to pass `--name`.
func playerName(_ given: String?) throws -> String {
  if let given { return given }
  let environment = ProcessInfo.processInfo.environment
  if let login = LoginName.resolve(environment: environment, account: LoginName.account()) {
    return login
  }
  guard Terminal.isInteractive else {
    throw ValidationError("no login name to play under: give one with --name NAME.")
  }
  while true {
    print("Your name (1 to 24 characters): ", terminator: "")
    fflush(nil)
    guard let line = readLine() else { throw ExitCode(ExitStatus.usage) }
    switch PlayerName.normalize(line.trimmingCharacters(in: .whitespaces)) {
    case .success(let name): return name
    case .failure(let problem): print("That name is refused: \(problem).")
    }
  }
}

/// `--fair` asks for a fair room when `--room` creates it; quick match cannot ask.
func validateFair(_ fair: Bool, room: String?, vsBot: Bool) throws {
  guard fair, room == nil, !vsBot else { return }
  throw ValidationError(
    "--fair needs --room: quick-match rooms are fair only when the server runs with --fair.")
}

/// `--allocator` finds the server, so it goes without `--host`, and without `alone` (an
/// option that needs one known server: its lobby, or a server of its own).
func validateFleet(_ fleet: FleetOptions, server: ServerOptions, alone: String?) throws {
  guard fleet.allocator != nil else { return }
  if server.host != nil {
    throw ValidationError("--allocator chooses the server: give it or --host, not both.")
  }
  if let alone {
    throw ValidationError(
      "\(alone) needs one server (its lobby, or one of its own), so not --allocator: each "
        + "server in a fleet has its own lobby; use --host.")
  }
  // The allocator names the address: trusting what answers there on first use would let
  // a hostile allocator send players to a machine of its choosing.
  if server.pin == nil, server.ca == nil {
    throw ValidationError(
      "--allocator needs --ca (the fleet's CA) or --pin (the fleet's shared certificate): a "
        + "server the allocator names is never trusted on first use.")
  }
}

/// Checks `--name` with the rule the server uses.
func validateName(_ name: String) throws {
  if case .failure(let problem) = PlayerName.normalize(name) {
    throw ValidationError("--name is refused: \(problem).")
  }
}

// MARK: - play

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

// MARK: - watch

struct Watch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Watch a room as a spectator.")

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(help: "The room to watch.")
  var room: String

  func validate() throws {
    try validateFleet(fleet, server: server, alone: nil)
  }

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

// MARK: - bot

struct BotCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "bot",
    abstract: "Play without a screen: one line per round, then a summary.",
    discussion: """
      Plays in a room (--room), by quick match, or from the lobby: --lobby waits there \
      and accepts every challenge, --challenge NAME challenges that person as soon as \
      they are free in the lobby (waiting up to --wait seconds); either way one match per challenge, back to the lobby between \
      them, until --matches are played. Exits 0 once its matches are played, non-zero \
      with a message otherwise.
      """)

  @OptionGroup var server: ServerOptions

  @OptionGroup(title: "In a fleet") var fleet: FleetOptions

  @Option(help: "How the bot picks.")
  var strategy = BotStrategy.random

  @Option(help: "Matches to play before leaving.")
  var matches = 1

  @Option(help: "The room to join; without it, quick match.")
  var room: String?

  @Option(help: "The bot's name (by default bot- and four random hex digits).")
  var name: String?

  @Flag(help: "Ask for a fair room (commit–reveal) when --room creates it, or a fair challenge.")
  var fair = false

  @Flag(help: "Wait in the lobby and accept every challenge (one match each).")
  var lobby = false

  @Option(help: "Challenge this person from the lobby (one match per challenge).")
  var challenge: String?

  @Option(help: "With --challenge: how long to wait for the person to be free in the lobby, s.")
  var wait = 10

  @OptionGroup var record: RecordOptions

  @Flag(
    help:
      "Enter the server's tournament and play every match it seats the bot in (with or without --lobby)."
  )
  var tournament = false

  /// The service group's own lines stay out of the bot's output.
  static var quietLogger: Logger {
    var logger = Logger(label: "roshambo.bot")
    logger.logLevel = .error
    return logger
  }

  func validate() throws {
    guard matches >= 1 else { throw ValidationError("--matches must be at least 1.") }
    if let name { try validateName(name) }
    if let challenge { try validateName(challenge) }
    guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds.") }
    if lobby || challenge != nil || tournament {
      // --lobby --tournament is the tournament (entered from the lobby).
      guard room == nil, !(challenge != nil && (lobby || tournament)) else {
        throw ValidationError(
          "--lobby (or --tournament), --challenge and --room are different ways to play: pick one.")
      }
    } else {
      try validateFair(fair, room: room, vsBot: false)
    }
    let lobbyMode =
      lobby ? "--lobby" : challenge != nil ? "--challenge" : tournament ? "--tournament" : nil
    try validateFleet(fleet, server: server, alone: lobbyMode)
  }

  func run() async throws {
    let resolved = try await server.resolve(
      fleet: fleet, for: room.map { .room($0) } ?? .quickMatch)
    let name = self.name ?? Bot.randomName()
    if tournament {
      try await playTournament(resolved, name: name)
      return
    }
    let fromLobby = lobby || challenge != nil
    // In a room one session plays every match; from the lobby, one session each.
    var tally = Bot.Tally()
    for _ in 0..<(fromLobby ? matches : 1) {
      let connection: ServerConnection
      var seated: LobbyFollower.Seated?
      if fromLobby {
        // A lost lobby (the network, a drain, a restart) is followed again by itself.
        (connection, seated) = try await seatFromLobbyComingBack(
          resolved, options: server, name: name, accepting: lobby, challenging: challenge,
          fair: fair, wait: .seconds(wait))
      } else {
        connection = try await connect(resolved, options: server)
      }
      // From the lobby, a match whose connection drops is taken back with its seat.
      let reconnect = fromLobby ? reconnector(resolved) : nil
      let (session, bot) = await MainActor.run { () -> (ClientSession, Bot) in
        let session = ClientSession(
          connection: connection, reconnect: reconnect, keepalive: server.keepaliveInterval)
        session.recordDirectory = record.saveRecord
        // From the lobby each session plays one more match, counted after the last.
        let bot = Bot(
          session: session, strategy: strategy, matches: fromLobby ? tally.matches + 1 : matches,
          tally: tally
        ) { line in
          print(line)
          fflush(nil)
        }
        bot.start()
        if let seated {
          session.adopt(seated, name: name)
        } else {
          session.join(name: name, room: room, fair: fair)
        }
        return (session, bot)
      }
      let playing = BotPlaying(session: session, bot: bot)
      try await playing.runUntilSignalled()
      guard let outcome = playing.outcome.withLockedValue({ $0 }) else { return }
      let before = tally
      tally = outcome.tally
      if outcome.violated {
        // Even after the last match: a lie in its deciding round makes its result worthless.
        print(tally.summary)
        complain(outcome.closing ?? "the server broke the protocol")
        throw ExitCode(ExitStatus.protocolViolation)
      }
      let wanted = fromLobby ? before.matches + 1 : matches
      guard tally.matches >= wanted else {
        print(tally.summary)
        if outcome.stopped {
          complain(
            "stopped by a signal after \(tally.matches) of \(matches) matches; left the room.")
        } else {
          complain(
            "played \(tally.matches) of \(matches) matches before the connection ended"
              + (outcome.closing.map { ": \($0)" } ?? "."))
        }
        throw ExitCode(ExitStatus.failure)
      }
    }
    print(tally.summary)
  }
}

extension BotCommand {
  /// Enters the tournament and plays each match the server seats the bot in (the server
  /// moves its connection from room to room), until a second connection that follows
  /// the lobby sees the tournament finished; then says who won.
  func playTournament(_ resolved: ResolvedServer, name: String) async throws {
    let (connection, seated) = try await seatFromLobbyComingBack(
      resolved, options: server, name: name, accepting: false, challenging: nil, fair: false,
      entering: true)
    let reconnect = reconnector(resolved)
    let (session, bot) = await MainActor.run { () -> (ClientSession, Bot) in
      // A server that restarts mid-tournament is reconnected to, the seat resumed.
      let session = ClientSession(
        connection: connection, reconnect: reconnect, keepalive: server.keepaliveInterval)
      session.recordDirectory = record.saveRecord
      let bot = Bot(
        session: session, strategy: strategy, matches: .max, asksRematch: false
      ) { line in
        print(line)
        fflush(nil)
      }
      bot.start()
      session.adopt(seated, name: name)
      return (session, bot)
    }
    // Follows the lobby (again after a restart) until the tournament is over.
    let looking = NIOLockedValueBox<ServerConnection?>(nil)
    let over = Task { () -> String? in
      var champion: String?
      // A server away (restarting) is waited for as the lobby waits: 2 minutes.
      var awaySince: ContinuousClock.Instant?
      while champion == nil, !Task.isCancelled {
        guard let connection = try? await reconnect() else {
          let since = awaySince ?? .now
          awaySince = since
          if ContinuousClock.now - since > Self.patience { break }
          try? await Task.sleep(for: .milliseconds(500))
          continue
        }
        awaySince = nil
        looking.withLockedValue { $0 = connection }
        do {
          _ = try await LobbyFollower.follow(
            connection, name: name, keepalive: server.keepaliveInterval
          ) { event in
            guard case .view(_, let view) = event, let tournament = view.tournament,
              tournament.phase == .finished
            else { return true }
            champion = tournament.champion
            return false
          }
        } catch is ProtocolViolation {
          break
        } catch let refused as LobbyFollower.Refused where refused.error.code != .closing {
          break
        } catch {}
        if champion == nil { try? await Task.sleep(for: .milliseconds(250)) }
      }
      await MainActor.run { session.store.dispatch(.quit) }
      return champion
    }
    let playing = BotPlaying(session: session, bot: bot)
    try await playing.runUntilSignalled()
    over.cancel()
    await looking.withLockedValue { $0 }?.close()
    let champion = await over.value
    let outcome = playing.outcome.withLockedValue { $0 }
    print(outcome?.tally.summary ?? "")
    if outcome?.violated == true {
      complain(outcome?.closing ?? "the server broke the protocol")
      throw ExitCode(ExitStatus.protocolViolation)
    }
    guard let champion else {
      complain(
        "the tournament did not finish"
          + (outcome?.closing.map { ": \($0)" } ?? " (stopped before its end)."))
      throw ExitCode(ExitStatus.failure)
    }
    print("tournament over: \(champion) is the champion")
  }
}

extension BotCommand {
  /// How long a bot waits for a server that went away (restarting) to be back.
  static let patience = Duration.seconds(120)
}

/// The lobby's connection ended without a refusal or a lie (the network, a server drained
/// or restarted): coming back is worth trying. The sentence says how it ended.
struct LobbyLost: Error, CustomStringConvertible {
  var description: String
}

/// ``seatFromLobby`` on a connection of its own, coming back by itself when the lobby's
/// connection is lost (the network, a drain, a restart): says so ("lost the connection;
/// reconnecting…"), connects again every second for up to ``BotCommand/patience``, says
/// "back in the lobby" once it follows it again, and goes on (an entrant of the
/// tournament keeps its entry when back within the server's grace). Returns the
/// connection and its seat.
func seatFromLobbyComingBack(
  _ server: ResolvedServer, options: ServerOptions, name: String, accepting: Bool,
  challenging: String?, fair: Bool, entering: Bool = false, wait: Duration = .seconds(10)
) async throws -> (ServerConnection, LobbyFollower.Seated) {
  var connection = try await connect(server, options: options)
  var comingBack = false
  while true {
    do {
      let seated = try await seatFromLobby(
        connection, name: name, accepting: accepting, challenging: challenging, fair: fair,
        entering: entering, wait: wait, keepalive: options.keepaliveInterval,
        comingBack: comingBack)
      return (connection, seated)
    } catch let lost as LobbyLost {
      print("lost the connection; reconnecting… (\(lost.description))")
      fflush(nil)
      connection = try await reconnectBot(server, options: options)
      comingBack = true
    }
  }
}

/// Connects again to `server` every second until it answers, for up to
/// ``BotCommand/patience``; then gives up with the reason the last try failed (exit 69).
func reconnectBot(_ server: ResolvedServer, options: ServerOptions) async throws
  -> ServerConnection
{
  let reconnect = reconnector(server)
  let since = ContinuousClock.now
  while true {
    do {
      return try await reconnect()
    } catch {
      guard ContinuousClock.now - since < BotCommand.patience else {
        throw options.cannotConnect(host: server.host, port: server.port, error)
      }
    }
    try await Task.sleep(for: .seconds(1))
  }
}

/// Follows the lobby on `connection` as `name` until a challenge seats it: accepting the
/// first challenge to it (`accepting`), or challenging `challenging` as soon as the lobby
/// shows that person free to take it (within `wait`: someone who never is, is said). A
/// challenge that ends otherwise or a refusal is said, and exits 1 (a broken protocol:
/// 76); a connection that ends otherwise (the network, a drain, a restart) throws
/// ``LobbyLost``. `comingBack`: says "back in the lobby" on the first view.
func seatFromLobby(
  _ connection: ServerConnection, name: String, accepting: Bool, challenging: String?,
  fair: Bool, entering: Bool = false, wait: Duration = .seconds(10),
  keepalive: Duration = .seconds(15), comingBack: Bool = false
) async throws -> LobbyFollower.Seated {
  // Read by the give-up timer on another task, hence the lock.
  let asked = NIOLockedValueBox(false)
  let gaveUp = NIOLockedValueBox(false)
  var problem: String?
  var back = comingBack
  var closingSaid = false
  let me = (try? PlayerName.normalize(name).get()) ?? name
  let giveUp = Task {
    try await Task.sleep(for: wait)
    if challenging != nil, !asked.withLockedValue({ $0 }) {
      gaveUp.withLockedValue { $0 = true }
      await connection.close()
    }
  }
  defer { giveUp.cancel() }
  do {
    let seated = try await LobbyFollower.follow(
      connection, name: name, takesChallenges: true, enteredTournament: { entering },
      keepalive: keepalive
    ) { event in
      if back, case .view = event {
        back = false
        print("back in the lobby")
        fflush(nil)
      }
      switch event {
      case .refused(let error, _) where error.code == .closing:
        // A drain: the connection ends soon; the bot comes back once the server does.
        if !closingSaid {
          closingSaid = true
          print(
            "the server is closing in \(error.seconds ?? 0) s; back in the lobby when it is")
          fflush(nil)
        }
      case .view(_, let view) where entering:
        guard !asked.withLockedValue({ $0 }) else { break }
        asked.withLockedValue { $0 = true }
        let entered = view.tournament?.standings.contains { $0.name == me } == true
        switch view.tournament?.phase {
        case .entry? where !entered:
          connection.send(.enter(id: 4))
          print("entered the \(view.tournament!.kind.rawValue) tournament")
        case .entry? where entered, .running? where entered:
          print("in the tournament: waiting to be seated")
        default:
          problem = "no tournament is taking entries on this server"
          return false
        }
      case .view(_, let view):
        guard let target = challenging, !asked.withLockedValue({ $0 }),
          view.people.contains(where: {
            $0.name == target && $0.takesChallenges && $0.status == .idle
          })
        else { break }
        asked.withLockedValue { $0 = true }
        connection.send(.challenge(name: target, bestOf: nil, ruleset: nil, fair: fair, id: 2))
      case .challenge(let notice):
        switch notice.status {
        case .pending where accepting && notice.to == me:
          print(
            "accepting \(notice.from)'s challenge: best of \(notice.bestOf), "
              + notice.ruleset.rawValue)
          connection.send(.accept(challenge: notice.id, id: 3))
        case .pending where notice.from == me:
          print("challenged \(notice.to): best of \(notice.bestOf), \(notice.ruleset.rawValue)")
        case .declined, .expired, .withdrawn:
          if notice.from == me {
            problem = "the challenge to \(notice.to) ended: \(notice.status.rawValue)"
            return false
          }
        default:
          break
        }
        fflush(nil)
      case .refused(let error, _):
        problem = "the server refused: \(error.message)"
        return false
      }
      return true
    }
    if let seated {
      if back {
        print("back in the tournament: seated in \(seated.room)")
        fflush(nil)
      }
      return seated
    }
  } catch let refused as LobbyFollower.Refused where refused.error.code == .closing {
    // Reached while it drains: it is restarting, or stopping; either way, try again.
    throw LobbyLost(description: refused.description)
  } catch let refused as LobbyFollower.Refused {
    throw exitCode(after: refused)
  } catch let violation as ProtocolViolation {
    throw exitCode(after: violation)
  } catch {
    throw LobbyLost(description: ConnectionFailure.ended(error))
  }
  if let target = challenging, !asked.withLockedValue({ $0 }), gaveUp.withLockedValue({ $0 }) {
    problem = "\(target) was not in the lobby free to take a challenge within \(wait)."
  }
  guard let problem else { throw LobbyLost(description: "the server closed the connection") }
  complain(problem)
  throw ExitCode(ExitStatus.failure)
}

/// A bot's session as a service: it plays until its matches are done or the connection
/// ends; on a graceful shutdown it leaves its room first.
///
/// Invariant: `outcome` is set once, when the session has ended.
final class BotPlaying: Service, Sendable {
  struct Outcome: Sendable {
    var tally: Bot.Tally
    /// Why the connection ended, if it was not the bot's own doing.
    var closing: String?
    var violated: Bool
    /// Whether a signal stopped it.
    var stopped: Bool
  }

  let session: ClientSession
  let bot: Bot
  let outcome = NIOLockedValueBox<Outcome?>(nil)
  private let stopping = NIOLockedValueBox(false)

  init(session: ClientSession, bot: Bot) {
    self.session = session
    self.bot = bot
  }

  /// Runs in a service group of its own: SIGINT, SIGTERM or SIGHUP makes the bot leave
  /// its room (a running match is given up at once, not held for a grace period). The
  /// signals come through ``ProcessSignals``, which outlives this group: a bot plays one
  /// group per match from the lobby, and a group's own signal watch, once cancelled,
  /// would leave every later one deaf.
  func runUntilSignalled() async throws {
    let group = ServiceGroup(
      configuration: .init(
        services: [.init(service: self, successTerminationBehavior: .gracefullyShutdownGroup)],
        gracefulShutdownSignals: [], logger: BotCommand.quietLogger))
    let route = await MainActor.run {
      ProcessSignals.shared.route { number in
        guard number != SIGWINCH else { return }
        Task { await group.triggerGracefulShutdown() }
      }
    }
    defer { Task { @MainActor in ProcessSignals.shared.release(route) } }
    try await group.run()
  }

  func run() async throws {
    let session = self.session
    let ended = await withGracefulShutdownHandler {
      await session.run()
    } onGracefulShutdown: {
      self.stopping.withLockedValue { $0 = true }
      // `leave`, then close: a server that does not close after it cannot hold the bot.
      Task { @MainActor in
        session.store.dispatch(.quit)
        session.hangUp()
      }
    }
    let (error, fatal) = ended
    let bot = self.bot
    let tally = await MainActor.run { bot.tally }
    let why =
      fatal.map { "the server refused: \($0.message)" } ?? error.map(ConnectionFailure.ended)
    outcome.withLockedValue {
      $0 = Outcome(
        tally: tally, closing: why,
        violated: error is ProtocolViolation || error is ServerCheated,
        stopped: stopping.withLockedValue { $0 })
    }
  }
}

// MARK: - servers

struct Servers: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the servers announcing themselves on the local network.",
    discussion: """
      Listens for roshambo-server's announcements (UDP multicast to \(Announcement.group) \
      port \(Announcement.port)) and asks servers to announce at once, then prints one \
      line per server: name, address:port, players waiting for an opponent, and the \
      identity code of its certificate. An announcement is only a hint: connecting still \
      checks the certificate. Exits 0 when at least one server was heard, 1 when none was.
      """)

  @Option(help: "Seconds to listen.")
  var timeout: Double = 2

  func validate() throws {
    guard timeout >= 0.1, timeout <= 60 else {
      throw ValidationError("--timeout must be from 0.1 to 60 seconds.")
    }
  }

  func run() async throws {
    let found: [DiscoveredServer]
    do {
      found = try await ServerDiscovery.find(timeout: .milliseconds(Int64(timeout * 1000)))
    } catch {
      complain("cannot listen for servers: \(error); use --host to name one.")
      throw ExitCode(ExitStatus.unavailable)
    }
    for server in found { print(TerminalText.sanitized(server.line)) }
    if found.isEmpty {
      complain(
        "no server announced itself within \(timeout) s; check that roshambo-server runs on "
          + "this network without --no-announce, and that the network passes multicast.")
      throw ExitCode(ExitStatus.failure)
    }
  }
}

// MARK: - load

struct Load: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Load a server with many bot pairs and measure it.",
    discussion: """
      Seats N pairs of bots (rooms load-0 … load-N-1) in this one process, lets them play \
      for the given seconds, and prints throughput, the latency of a pick's round trip \
      (choose sent → the bot's own state back) at p50, p90, p99 and max, and the errors \
      the server sent. The server's rate limit (20 messages/s per connection) applies, so \
      use --pace-ms to keep each bot below it.
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "Rooms, each with two bots.")
  var rooms = 10

  @Option(help: "Seconds to measure, after every bot is seated.")
  var duration: Double = 10

  @Option(help: "Mean milliseconds each bot waits before a pick (0: as fast as answered).")
  var paceMs = 200

  @Option(help: "Event loop threads for the bots.")
  var threads = 1

  @Flag(help: "The bots ask for fair rooms and play them by commit–reveal.")
  var fair = false

  func validate() throws {
    guard rooms >= 1 else { throw ValidationError("--rooms must be at least 1.") }
    guard duration > 0 else { throw ValidationError("--duration must be more than 0 seconds.") }
    guard paceMs >= 0 else { throw ValidationError("--pace-ms must be 0 or more.") }
    guard threads >= 1 else { throw ValidationError("--threads must be at least 1.") }
  }

  func run() async throws {
    let target = try await server.resolve()
    let report: LoadReport
    do {
      report = try await LoadGenerator.run(
        host: target.host, port: target.port, tls: target.tls, rooms: rooms, seconds: duration,
        paceMillis: Int64(paceMs), threads: threads, fair: fair)
    } catch {
      complain(
        "could not seat every bot on \(DiscoveredServer.address(host: target.host, port: target.port)): \(error)"
      )
      throw ExitCode(ExitStatus.unavailable)
    }
    func ms(_ micros: Double) -> String { String(format: "%.2f ms", micros / 1000) }
    print("connections: \(report.connections) (\(rooms) rooms)")
    print(
      String(
        format: "throughput: %.0f picks/s (%d picks in %.1f s)", report.picksPerSecond,
        report.picks, report.seconds))
    print(
      "latency: p50 \(ms(report.percentile(0.5))), p90 \(ms(report.percentile(0.9))), "
        + "p99 \(ms(report.percentile(0.99))), max \(ms(report.latencies.last ?? .nan))")
    print(
      "errors: "
        + (report.errors.isEmpty
          ? "none" : report.errors.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))
    )
  }
}
