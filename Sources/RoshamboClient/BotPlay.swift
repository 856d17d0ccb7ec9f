import Foundation
import RoshamboGame
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// `roshambo bot` without its command line: plays in a room, by quick match, from the
/// lobby (accepting, or challenging someone) or in the tournament, with no screen, one
/// line per round, then a summary. Each match is a ``ClientSession`` whose ``Bot`` picks
/// (with a strategy, or through the bot's program); ``BotRun`` says how sessions follow
/// each other, ``HeadlessLobby`` waits in the lobby.
///
/// Invariants: the summary is said once, whatever ended the run; SIGINT, SIGTERM and
/// SIGHUP make the bot leave (a running match given up, not held for a grace), never
/// kill it with nothing said; the bot's program is finished before ``run()`` returns.
@MainActor
public final class BotPlay {
  /// What the bot is asked to do.
  public struct Settings: Sendable {
    /// The name it plays under.
    public var name: String
    public var strategy: BotStrategy
    /// The program that picks instead of `strategy` (`--exec`), and its limits.
    public var program: Program?
    /// Matches to play.
    public var matches: Int
    /// The room to play in (nil: quick match, or the lobby).
    public var room: String?
    public var fair: Bool
    /// Wait in the lobby and accept the first challenge, once per match.
    public var lobby: Bool
    /// Challenge this person from the lobby, once per match.
    public var challenge: String?
    /// The rules a challenge asks for (nil: the server's).
    public var ruleset: Ruleset.ID?
    /// How long the person to challenge is waited for to be free.
    public var wait: Duration
    /// Where each match's own record is saved, if anywhere.
    public var saveRecord: String?
    /// Enter the tournament and play its matches.
    public var tournament: Bool
    public var keepaliveMillis: Int64

    public init(
      name: String, strategy: BotStrategy = .random, program: Program? = nil, matches: Int,
      room: String? = nil, fair: Bool = false, lobby: Bool = false, challenge: String? = nil,
      ruleset: Ruleset.ID? = nil, wait: Duration = .seconds(10), saveRecord: String? = nil,
      tournament: Bool = false,
      keepaliveMillis: Int64 = 3_000
    ) {
      self.name = name
      self.strategy = strategy
      self.program = program
      self.matches = matches
      self.room = room
      self.fair = fair
      self.lobby = lobby
      self.challenge = challenge
      self.ruleset = ruleset
      self.wait = wait
      self.saveRecord = saveRecord
      self.tournament = tournament
      self.keepaliveMillis = keepaliveMillis
    }

    /// Whether each match is had from the lobby (accepted, or a challenge).
    public var fromLobby: Bool { lobby || challenge != nil }
  }

  /// The bot's program (`--exec`).
  public struct Program: Sendable {
    public var command: String
    public var limits: BotProgramSession.Limits

    public init(command: String, limits: BotProgramSession.Limits) {
      self.command = command
      self.limits = limits
    }
  }

  /// How the run ended, once its summary and complaint were said.
  public enum Ending: Equatable, Sendable {
    /// Every match was played (exit 0).
    case finished
    /// It could not go on (exit 1; 76 when `violated`: the server broke the protocol or
    /// lied).
    case failed(violated: Bool)
    /// The bot's program failed a match, is gone, or could not start (exit 70).
    case programFailed
    /// The server could not be reached again (exit 69).
    case unreachable
  }

  private let settings: Settings
  private let connect: @Sendable () async throws -> ServerConnection
  private let reconnect: @Sendable () async throws -> ServerConnection
  private let say: (String) -> Void
  private let complain: (String) -> Void

  /// `connect` makes each session's first connection (its errors end the run as they
  /// are); `reconnect` each later one. `say`: a line on standard output; `complain`: one
  /// on standard error.
  public init(
    _ settings: Settings, connect: @escaping @Sendable () async throws -> ServerConnection,
    reconnect: @escaping @Sendable () async throws -> ServerConnection,
    say: @escaping (String) -> Void, complain: @escaping (String) -> Void
  ) {
    self.settings = settings
    self.connect = connect
    self.reconnect = reconnect
    self.say = say
    self.complain = complain
  }

  /// The run ended early, its words said.
  private struct Stop: Error {
    var ending: Ending
  }

  public func run() async throws -> Ending {
    let program: BotProgram?
    if let settings = settings.program {
      let started = BotProgram(
        command: settings.command, name: self.settings.name, limits: settings.limits,
        say: complain)
      do {
        try started.start()
      } catch {
        complain("could not start the bot program (\(settings.command)): \(error)")
        return .programFailed
      }
      program = started
    } else {
      program = nil
    }
    let ending: Ending
    do {
      ending =
        settings.tournament
        ? try await playTournament(program: program) : try await playMatches(program: program)
    } catch let stop as Stop {
      ending = stop.ending
    } catch {
      await program?.finish()
      throw error
    }
    await program?.finish()
    return ending
  }

  /// Plays session after session until the matches are played.
  private func playMatches(program: BotProgram?) async throws -> Ending {
    var run = BotRun(matches: settings.matches, fromLobby: settings.fromLobby)
    var step = run.start()
    while true {
      switch step {
      case .finish(let summary):
        say(summary)
        return .finished
      case .fail(let summary, let complaint, let violated):
        say(summary)
        complain(complaint)
        return .failed(violated: violated)
      case .programFailed(let summary, let complaint):
        say(summary)
        complain(complaint)
        return .programFailed
      case .play(let until, let tally):
        guard let outcome = try await playSession(until: until, tally: tally, program: program)
        else { return .finished }
        step = run.ended(outcome)
      }
    }
  }

  /// One session: seated from the lobby (when playing from it) or joining a room, played
  /// until its bot counts `until` matches; nil if it never ended by itself.
  private func playSession(until: Int, tally: Bot.Tally, program: BotProgram?) async throws
    -> BotRun.Outcome?
  {
    let session: ClientSession
    if settings.fromLobby {
      let goal: LobbySeating.Goal =
        settings.challenge.map {
          .challenge($0, ruleset: settings.ruleset, fair: settings.fair)
        } ?? .accept
      let (seated, signalled) = try await seat(goal: goal, program: program)
      guard let seated else {
        // The wait was abandoned: a signal, or the program exited between two matches.
        return BotRun.Outcome(
          tally: tally, closing: nil, violated: false, stopped: signalled,
          programGone: signalled ? nil : program?.session.gone)
      }
      // A match whose connection drops is taken back with its seat by the lobby's driver.
      session = ClientSession(seatedFrom: seated)
    } else {
      session = ClientSession(
        connection: try await connect(), keepalive: .milliseconds(settings.keepaliveMillis))
    }
    session.recordDirectory = settings.saveRecord
    let bot = Bot(
      session: session, picks: program.map { .program($0) } ?? .strategy(settings.strategy),
      matches: until, tally: tally, log: say)
    bot.start()
    if !settings.fromLobby {
      session.join(name: settings.name, room: settings.room, fair: settings.fair)
    }
    return await play(session, bot)
  }

  /// Enters the tournament and plays each match the server seats the bot in (the server
  /// moves its connection from room to room), until a second session that follows the
  /// lobby sees the tournament finished; then says who won.
  private func playTournament(program: BotProgram?) async throws -> Ending {
    let (seated, _) = try await seat(goal: .enterTournament, program: nil)
    guard let seated else {
      say(Bot.Tally().summary)
      complain("stopped by a signal before the tournament seated the bot; left the lobby.")
      return .failed(violated: false)
    }
    // A server that restarts mid-tournament is reconnected to by the lobby's driver, the
    // seat resumed.
    let session = ClientSession(seatedFrom: seated)
    session.recordDirectory = settings.saveRecord
    let bot = Bot(
      session: session, picks: program.map { .program($0) } ?? .strategy(settings.strategy),
      matches: .max, asksRematch: false, log: say)
    bot.start()
    // Follows the lobby on a second session until the tournament is over; a server away
    // (restarting) is reached again under the reconnect policy.
    let watcher = PlayerDriver(
      configuration: PlayerConfiguration(
        name: settings.name, role: .lobby, fair: true, keepaliveMillis: settings.keepaliveMillis),
      connect: reconnect)
    var watch = TournamentWatch()
    watcher.lobbyNews = { [weak watcher] news in
      guard case .view(_, let view) = news, !watch.viewed(view) else { return }
      watcher?.command(.leave)
    }
    let over = Task {
      _ = await watcher.follow()
      session.store.dispatch(.quit)
    }
    let outcome = await play(session, bot)
    watcher.command(.leave)
    await over.value
    say(outcome.tally.summary)
    if outcome.violated {
      complain(outcome.closing ?? "the server broke the protocol")
      return .failed(violated: true)
    }
    if outcome.gaveUp {
      // Giving a match up is leaving the room, and with it the tournament.
      complain(
        "gave a match up, and so left the tournament"
          + (outcome.programGone.map { ": the bot program \($0)." } ?? "."))
      return .programFailed
    }
    guard let champion = watch.champion else {
      complain(
        "the tournament did not finish"
          + (outcome.closing.map { ": \($0)" } ?? " (stopped before its end)."))
      return .failed(violated: false)
    }
    say("tournament over: \(champion) is the champion")
    return .finished
  }

  /// Waits in the lobby for what `goal` says until the server seats the bot: its driver,
  /// or nil when a signal (then `signalled`) or the program's exit ended the wait first.
  /// A wait that stops for its own reason, or a session that ends, is said and stops the
  /// run.
  private func seat(goal: LobbySeating.Goal, program: BotProgram?) async throws
    -> (PlayerDriver?, signalled: Bool)
  {
    let driver = PlayerDriver(
      configuration: PlayerConfiguration(
        name: settings.name, role: .lobby, fair: true, keepaliveMillis: settings.keepaliveMillis,
        takesChallenges: true),
      connection: try await connect(), connect: reconnect)
    let lobby = HeadlessLobby(driver: driver, goal: goal, wait: settings.wait, say: say)
    var signalled = false
    let route = ProcessSignals.shared.route { number in
      guard number != SIGWINCH else { return }
      signalled = true
      lobby.abandon()
    }
    defer { ProcessSignals.shared.release(route) }
    let exited = program.map { program in
      Task {
        await program.exited()
        lobby.abandon()
      }
    }
    defer { exited?.cancel() }
    switch await lobby.run() {
    case .seated(let driver):
      return (driver, false)
    case .abandoned:
      return (nil, signalled)
    case .stopped(let problem):
      complain(problem)
      throw Stop(ending: .failed(violated: false))
    case .ended(let end):
      complain(end.reason)
      switch end {
      case .brokeProtocol, .cheated: throw Stop(ending: .failed(violated: true))
      case .gaveUp, .couldNotConnect: throw Stop(ending: .unreachable)
      case .left, .refused, .closed: throw Stop(ending: .failed(violated: false))
      }
    }
  }

  /// Plays `session` until it ends: SIGINT, SIGTERM or SIGHUP make the bot leave its room
  /// (`leave`, then close: a server that does not close after it cannot hold the bot).
  private func play(_ session: ClientSession, _ bot: Bot) async -> BotRun.Outcome {
    var stopping = false
    let route = ProcessSignals.shared.route { number in
      guard number != SIGWINCH, !stopping else { return }
      stopping = true
      session.store.dispatch(.quit)
      session.hangUp()
    }
    defer { ProcessSignals.shared.release(route) }
    let (error, fatal) = await session.run()
    let why =
      fatal.map { "the server refused: \($0.message)" } ?? error.map(ConnectionFailure.ended)
    return BotRun.Outcome(
      tally: bot.tally, closing: why,
      violated: error is ProtocolViolation || error is ServerCheated, stopped: stopping,
      gaveUp: bot.gaveUp, programGone: bot.programGone)
  }
}
