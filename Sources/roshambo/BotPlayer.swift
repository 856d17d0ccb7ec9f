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

/// `roshambo bot`: plays in a room, by quick match, from the lobby (accepting, or
/// challenging someone) or in the tournament, with no screen: one line per round, then
/// a summary.
struct BotPlayer {
  var server: ServerOptions
  var fleet: FleetOptions
  var strategy: BotStrategy
  /// The program that picks instead of `strategy` (`--exec`), and its limits.
  var program: (command: String, limits: BotProgramSession.Limits)?
  var matches: Int
  var room: String?
  var name: String?
  var fair: Bool
  var lobby: Bool
  var challenge: String?
  var wait: Int
  /// Where each match's own record is saved (`--save-record`), if anywhere.
  var saveRecord: String?
  var tournament: Bool

  /// The service group's own lines stay out of the bot's output.
  static var quietLogger: Logger {
    var logger = Logger(label: "roshambo.bot")
    logger.logLevel = .error
    return logger
  }

  func run() async throws {
    let resolved = try await server.resolve(
      fleet: fleet, for: room.map { .room($0) } ?? .quickMatch)
    let name = self.name ?? Bot.randomName()
    let program = try await startProgram(name: name)
    do {
      if tournament {
        try await playTournament(resolved, name: name, program: program)
      } else {
        try await playMatches(resolved, name: name, program: program)
      }
    } catch {
      await program?.finish()
      throw error
    }
    await program?.finish()
  }

  /// The `--exec` program, started (its sentences go to standard error as roshambo's).
  private func startProgram(name: String) async throws -> BotProgram? {
    guard let program else { return nil }
    return try await MainActor.run {
      let started = BotProgram(command: program.command, name: name, limits: program.limits) {
        complain($0)
      }
      do {
        try started.start()
      } catch {
        complain("could not start the bot program (\(program.command)): \(error)")
        throw ExitCode(ExitStatus.botProgram)
      }
      return started
    }
  }

  /// Plays session after session until `--matches` are played.
  private func playMatches(_ resolved: ResolvedServer, name: String, program: BotProgram?)
    async throws
  {
    let fromLobby = lobby || challenge != nil
    var run = BotRun(matches: matches, fromLobby: fromLobby)
    var step = run.start()
    while true {
      switch step {
      case .finish(let summary):
        print(summary)
        return
      case .fail(let summary, let complaint, let violated):
        print(summary)
        complain(complaint)
        throw ExitCode(violated ? ExitStatus.protocolViolation : ExitStatus.failure)
      case .programFailed(let summary, let complaint):
        print(summary)
        complain(complaint)
        throw ExitCode(ExitStatus.botProgram)
      case .play(let until, let tally):
        guard
          let outcome = try await playSession(
            resolved, name: name, until: until, tally: tally, program: program)
        else { return }
        step = run.ended(outcome)
      }
    }
  }

  /// One session: seated from the lobby (when playing from it) or joining a room, played
  /// until its bot counts `until` matches; nil if it never ended by itself.
  private func playSession(
    _ resolved: ResolvedServer, name: String, until: Int, tally: Bot.Tally, program: BotProgram?
  ) async throws -> BotRun.Outcome? {
    let fromLobby = lobby || challenge != nil
    var connection: ServerConnection?
    var seated: PlayerDriver?
    if fromLobby {
      // A lost lobby (the network, a drain, a restart) is followed again by itself. A
      // program that exits while the bot waits there ends the wait: it can play no more.
      // So does SIGINT, SIGTERM or SIGHUP: the bot leaves the lobby as it leaves a room
      // (a summary, exit 1), not killed by the signal with nothing said.
      let stop = LobbyWaitStop()
      let route = await MainActor.run {
        ProcessSignals.shared.route { number in
          guard number != SIGWINCH else { return }
          stop.fire(signalled: true)
        }
      }
      if let program {
        Task {
          await program.exited()
          stop.fire(signalled: false)
        }
      }
      defer { Task { @MainActor in ProcessSignals.shared.release(route) } }
      do {
        seated = try await seatFromLobby(
          resolved, options: server, name: name,
          goal: challenge.map { .challenge($0, fair: fair) } ?? .accept, wait: .seconds(wait),
          abandon: { await stop.wait() })
      } catch is LobbyWaitAbandoned {
        let gone = await MainActor.run { program?.session.gone }
        return BotRun.Outcome(
          tally: tally, closing: nil, violated: false, stopped: stop.signalled,
          programGone: stop.signalled ? nil : gone)
      }
    } else {
      connection = try await connect(resolved, options: server)
    }
    // From the lobby, a match whose connection drops is taken back with its seat (the
    // lobby's driver reconnects).
    let (session, bot) = await MainActor.run { () -> (ClientSession, Bot) in
      let session =
        if let seated {
          ClientSession(seatedFrom: seated)
        } else {
          ClientSession(connection: connection!, keepalive: server.keepaliveInterval)
        }
      session.recordDirectory = saveRecord
      let bot = Bot(
        session: session, picks: program.map { .program($0) } ?? .strategy(strategy),
        matches: until, tally: tally
      ) { line in
        print(line)
        fflush(nil)
      }
      bot.start()
      if seated == nil { session.join(name: name, room: room, fair: fair) }
      return (session, bot)
    }
    let playing = BotPlaying(session: session, bot: bot)
    try await playing.runUntilSignalled()
    return playing.outcome.withLockedValue { $0 }
  }
}

extension BotPlayer {
  /// Enters the tournament and plays each match the server seats the bot in (the server
  /// moves its connection from room to room), until a second connection that follows
  /// the lobby sees the tournament finished; then says who won.
  func playTournament(_ resolved: ResolvedServer, name: String, program: BotProgram?)
    async throws
  {
    let seated = try await seatFromLobby(
      resolved, options: server, name: name, goal: .enterTournament)
    let reconnect = reconnector(resolved)
    let (session, bot) = await MainActor.run { () -> (ClientSession, Bot) in
      // A server that restarts mid-tournament is reconnected to by the lobby's driver, the
      // seat resumed.
      let session = ClientSession(seatedFrom: seated)
      session.recordDirectory = saveRecord
      let bot = Bot(
        session: session, picks: program.map { .program($0) } ?? .strategy(strategy),
        matches: .max, asksRematch: false
      ) { line in
        print(line)
        fflush(nil)
      }
      bot.start()
      return (session, bot)
    }
    // Follows the lobby on a second session until the tournament is over; a server away
    // (restarting) is reached again under the reconnect policy.
    let watcher = await MainActor.run {
      PlayerDriver(
        configuration: PlayerConfiguration(
          name: name, role: .lobby, fair: true, keepaliveMillis: Int64(server.keepalive * 1_000)),
        connect: reconnect)
    }
    let over = Task { @MainActor () -> String? in
      var watch = TournamentWatch()
      watcher.lobbyNews = { [weak watcher] news in
        guard case .view(_, let view) = news, !watch.viewed(view) else { return }
        watcher?.command(.leave)
      }
      _ = await watcher.follow()
      session.store.dispatch(.quit)
      return watch.champion
    }
    let playing = BotPlaying(session: session, bot: bot)
    try await playing.runUntilSignalled()
    await MainActor.run { watcher.command(.leave) }
    let champion = await over.value
    let outcome = playing.outcome.withLockedValue { $0 }
    print(outcome?.tally.summary ?? "")
    if outcome?.violated == true {
      complain(outcome?.closing ?? "the server broke the protocol")
      throw ExitCode(ExitStatus.protocolViolation)
    }
    if outcome?.gaveUp == true {
      // Giving a match up is leaving the room, and with it the tournament.
      let gone = outcome?.programGone
      complain(
        "gave a match up, and so left the tournament"
          + (gone.map { ": the bot program \($0)." } ?? "."))
      throw ExitCode(ExitStatus.botProgram)
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

extension BotPlayer {
  /// How long a bot waits for a server that went away (restarting) to be back.
  static let patience = Duration.seconds(120)
}

/// A bot's session as a service: it plays until its matches are done or the connection
/// ends; on a graceful shutdown it leaves its room first.
///
/// Invariant: `outcome` is set once, when the session has ended.
final class BotPlaying: Service, Sendable {
  let session: ClientSession
  let bot: Bot
  let outcome = NIOLockedValueBox<BotRun.Outcome?>(nil)
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
        gracefulShutdownSignals: [], logger: BotPlayer.quietLogger))
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
    let (tally, gaveUp, programGone) = await MainActor.run {
      (bot.tally, bot.gaveUp, bot.programGone)
    }
    let why =
      fatal.map { "the server refused: \($0.message)" } ?? error.map(ConnectionFailure.ended)
    outcome.withLockedValue {
      $0 = BotRun.Outcome(
        tally: tally, closing: why,
        violated: error is ProtocolViolation || error is ServerCheated,
        stopped: stopping.withLockedValue { $0 }, gaveUp: gaveUp, programGone: programGone)
    }
  }
}
