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

/// The wait in the lobby was abandoned: what it waited for can no longer play (the bot's
/// program exited between two matches).
struct LobbyWaitAbandoned: Error {}

/// Why a bot's wait in the lobby is to end (its program exited, or a signal came), once
/// either happens; ``wait()`` returns from then on.
final class LobbyWaitStop: Sendable {
  private let state = NIOLockedValueBox(
    (fired: false, signalled: false, waiters: [CheckedContinuation<Void, Never>]()))

  /// Whether a signal ended the wait.
  var signalled: Bool { state.withLockedValue { $0.signalled } }

  func fire(signalled: Bool) {
    let waiters = state.withLockedValue { state in
      guard !state.fired else { return [CheckedContinuation<Void, Never>]() }
      state.fired = true
      state.signalled = signalled
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let fired = state.withLockedValue { state in
        if !state.fired { state.waiters.append(continuation) }
        return state.fired
      }
      if fired { continuation.resume() }
    }
  }
}

/// ``seatFromLobby`` on a connection of its own, coming back by itself when the lobby's
/// connection is lost (the network, a drain, a restart): says so ("lost the connection;
/// reconnecting…"), connects again every second for up to ``BotPlayer/patience``, says
/// "back in the lobby" once it follows it again, and goes on (an entrant of the
/// tournament keeps its entry when back within the server's grace). Returns the
/// connection and its seat. Once `abandon` returns, the wait stops with
/// ``LobbyWaitAbandoned``.
func seatFromLobbyComingBack(
  _ server: ResolvedServer, options: ServerOptions, name: String, goal: LobbySeating.Goal,
  wait: Duration = .seconds(10), abandon: (@Sendable () async -> Void)? = nil
) async throws -> (ServerConnection, LobbyClient.Seated) {
  var connection = try await connect(server, options: options)
  var comingBack = false
  while true {
    do {
      let seated = try await seatFromLobby(
        connection, name: name, goal: goal, wait: wait, keepalive: options.keepaliveInterval,
        comingBack: comingBack, abandon: abandon)
      return (connection, seated)
    } catch let lost as LobbyLost {
      print("lost the connection; reconnecting… (\(lost.description))")
      fflush(nil)
      connection = try await reconnectBot(server, options: options, abandon: abandon)
      comingBack = true
    }
  }
}

/// Connects again to `server` every second until it answers, for up to
/// ``BotPlayer/patience``; then gives up with the reason the last try failed (exit 69).
/// Once `abandon` returns, stops trying with ``LobbyWaitAbandoned``.
func reconnectBot(
  _ server: ResolvedServer, options: ServerOptions,
  abandon: (@Sendable () async -> Void)? = nil
) async throws -> ServerConnection {
  let reconnect = reconnector(server)
  let since = ContinuousClock.now
  let abandoned = NIOLockedValueBox(false)
  let watch = abandon.map { abandon in
    Task {
      await abandon()
      abandoned.withLockedValue { $0 = true }
    }
  }
  defer { watch?.cancel() }
  while true {
    do {
      return try await reconnect()
    } catch {
      guard ContinuousClock.now - since < BotPlayer.patience else {
        throw options.cannotConnect(host: server.host, port: server.port, error)
      }
    }
    for _ in 0..<10 {
      guard !abandoned.withLockedValue({ $0 }) else { throw LobbyWaitAbandoned() }
      try await Task.sleep(for: .milliseconds(100))
    }
  }
}

/// Follows the lobby on `connection` as `name` until a challenge or the tournament seats
/// it, doing what ``LobbySeating`` says for `goal`. A challenge that ends otherwise or a
/// refusal is said, and exits 1 (a broken protocol: 76); a connection that ends
/// otherwise (the network, a drain, a restart) throws ``LobbyLost``. `comingBack`: says
/// "back in the lobby" on the first view. Once `abandon` returns (before a seat), the
/// connection is closed and ``LobbyWaitAbandoned`` thrown.
func seatFromLobby(
  _ connection: ServerConnection, name: String, goal: LobbySeating.Goal,
  wait: Duration = .seconds(10), keepalive: Duration = .seconds(15), comingBack: Bool = false,
  abandon: (@Sendable () async -> Void)? = nil
) async throws -> LobbyClient.Seated {
  let abandoned = NIOLockedValueBox(false)
  let watch = abandon.map { abandon in
    Task {
      await abandon()
      // Cancelled once seated: the connection is then the match's.
      guard !Task.isCancelled else { return }
      abandoned.withLockedValue { $0 = true }
      await connection.close()
    }
  }
  defer { watch?.cancel() }
  do {
    return try await followUntilSeated(
      connection, name: name, goal: goal, wait: wait, keepalive: keepalive,
      comingBack: comingBack)
  } catch  where abandoned.withLockedValue({ $0 }) {
    throw LobbyWaitAbandoned()
  }
}

private func followUntilSeated(
  _ connection: ServerConnection, name: String, goal: LobbySeating.Goal,
  wait: Duration, keepalive: Duration, comingBack: Bool
) async throws -> LobbyClient.Seated {
  // Read by the give-up timer on another task, hence the lock.
  let seating = NIOLockedValueBox(
    LobbySeating(name: name, goal: goal, wait: wait, comingBack: comingBack))
  let lobby = LobbyClient(
    connection, name: name, takesChallenges: true, entrant: goal == .enterTournament)
  let giveUp = Task {
    try await Task.sleep(for: wait)
    if seating.withLockedValue({ $0.waitedTooLong() }) { await connection.close() }
  }
  defer { giveUp.cancel() }
  do {
    let seated = try await lobby.follow(keepalive: keepalive) { event in
      perform(seating.withLockedValue { $0.handle(event) }, on: lobby)
    }
    if let seated {
      _ = perform(seating.withLockedValue { $0.seated(in: seated.room) }, on: lobby)
      return seated
    }
  } catch let refused as LobbyClient.Refused where refused.error.code == .closing {
    // Reached while it drains: it is restarting, or stopping; either way, try again.
    throw LobbyLost(description: refused.description)
  } catch let refused as LobbyClient.Refused {
    throw exitCode(after: refused)
  } catch let violation as ProtocolViolation {
    throw exitCode(after: violation)
  } catch {
    throw LobbyLost(description: ConnectionFailure.ended(error))
  }
  guard let problem = seating.withLockedValue({ $0.endedWithoutSeat() }) else {
    throw LobbyLost(description: "the server closed the connection")
  }
  complain(problem)
  throw ExitCode(ExitStatus.failure)
}

/// Carries out `actions` on `lobby`; returns whether to go on following.
private func perform(_ actions: [LobbySeating.Action], on lobby: LobbyClient) -> Bool {
  for action in actions {
    switch action {
    case .say(let line):
      print(line)
      fflush(nil)
    case .challenge(let person, let fair): lobby.challenge(person, fair: fair)
    case .accept(let challenge): lobby.accept(challenge)
    case .enterTournament: lobby.enterTournament()
    case .stop: return false
    }
  }
  return true
}

/// `roshambo challenge`: challenges `opponent` from the lobby as soon as they are free,
/// then plays the match on the screen once they accept.
struct ChallengeMatch {
  var server: ServerOptions
  var name: String
  var opponent: String
  var fair: Bool
  /// How long to wait for the opponent to be free in the lobby.
  var wait: Duration

  func run() async throws {
    let resolved = try await server.resolve()
    let connection = try await connect(resolved, options: server)
    let seated: LobbyClient.Seated
    do {
      seated = try await seatFromLobby(
        connection, name: name, goal: .challenge(opponent, fair: fair), wait: wait,
        keepalive: server.keepaliveInterval)
    } catch let lost as LobbyLost {
      complain("lost the connection before the challenge was accepted: \(lost.description)")
      throw ExitCode(ExitStatus.failure)
    }
    let ending = await playSeated(
      connection, seated, name: name, reconnect: reconnector(resolved),
      keepalive: server.keepaliveInterval, seats: await seatMemory(resolved, name: name))
    let status = ExitStatus.of(ending)
    if status != 0 { throw ExitCode(status) }
  }
}
