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
