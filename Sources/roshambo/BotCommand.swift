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
      case .play(let until, let tally):
        guard let outcome = try await playSession(resolved, name: name, until: until, tally: tally)
        else { return }
        step = run.ended(outcome)
      }
    }
  }

  /// One session: seated from the lobby (when playing from it) or joining a room, played
  /// until its bot counts `until` matches; nil if it never ended by itself.
  private func playSession(
    _ resolved: ResolvedServer, name: String, until: Int, tally: Bot.Tally
  ) async throws -> BotRun.Outcome? {
    let fromLobby = lobby || challenge != nil
    let connection: ServerConnection
    var seated: LobbyClient.Seated?
    if fromLobby {
      // A lost lobby (the network, a drain, a restart) is followed again by itself.
      (connection, seated) = try await seatFromLobbyComingBack(
        resolved, options: server, name: name,
        goal: challenge.map { .challenge($0, fair: fair) } ?? .accept, wait: .seconds(wait))
    } else {
      connection = try await connect(resolved, options: server)
    }
    // From the lobby, a match whose connection drops is taken back with its seat.
    let reconnect = fromLobby ? reconnector(resolved) : nil
    let (session, bot) = await MainActor.run { () -> (ClientSession, Bot) in
      let session = ClientSession(
        connection: connection, reconnect: reconnect, keepalive: server.keepaliveInterval)
      session.recordDirectory = record.saveRecord
      let bot = Bot(session: session, strategy: strategy, matches: until, tally: tally) { line in
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
    return playing.outcome.withLockedValue { $0 }
  }
}

extension BotCommand {
  /// Enters the tournament and plays each match the server seats the bot in (the server
  /// moves its connection from room to room), until a second connection that follows
  /// the lobby sees the tournament finished; then says who won.
  func playTournament(_ resolved: ResolvedServer, name: String) async throws {
    let (connection, seated) = try await seatFromLobbyComingBack(
      resolved, options: server, name: name, goal: .enterTournament)
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
    let keepalive = server.keepaliveInterval
    let over = Task { () -> String? in
      // A server away (restarting) is waited for as the lobby waits: 2 minutes.
      var watch = TournamentWatch(patience: Self.patience)
      var step = TournamentWatch.Step.follow(after: .zero)
      while case .follow(let pause) = step, !Task.isCancelled {
        if pause > .zero { try? await Task.sleep(for: pause) }
        guard let connection = try? await reconnect() else {
          step = watch.couldNotConnect(at: .now)
          continue
        }
        watch.connected()
        looking.withLockedValue { $0 = connection }
        do {
          _ = try await LobbyClient.follow(connection, name: name, keepalive: keepalive) {
            event in
            guard case .view(_, let view) = event else { return true }
            return watch.viewed(view)
          }
          step = watch.followEnded(.closed)
        } catch is ProtocolViolation {
          step = watch.followEnded(.protocolViolation)
        } catch let refused as LobbyClient.Refused {
          step = watch.followEnded(.refused(closing: refused.error.code == .closing))
        } catch {
          step = watch.followEnded(.closed)
        }
      }
      await MainActor.run { session.store.dispatch(.quit) }
      return watch.champion
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
