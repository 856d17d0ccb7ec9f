import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboJSON
import RoshamboProtocol
import Sysexits

/// `roshambo who`: one snapshot of the lobby, as plain lines.
struct Who: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print who is on the server, the rooms and their scores, and the leaderboard.",
    discussion: """
      Follows the server's lobby just long enough for one view, prints it and exits 0. \
      Names are printed as the screen shows them (anything unprintable made visible). \
      A server that sends no view within 10 s is given up on (exit 1).
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under while you look (by default your login name).")
  var name: String?

  func validate() throws {
    if let name { try validateName(name) }
  }

  func run() async throws {
    try await followLobby(server: server, name: name, within: .seconds(10)) { event in
      guard case .view(_, let view) = event else { return true }
      for line in LobbyText.lines(view) { print(line) }
      return false
    }
  }
}

/// `roshambo lobby`: on a terminal, the lobby screen (challenge, accept, watch, quick
/// match, and back after each match); piped, the lobby as it changes, as plain lines or
/// JSON lines.
struct Lobby: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The party's lobby: who is here, challenges, live matches, the leaderboard.",
    discussion: """
      On a terminal: a screen of who is here, the live rooms and the leaderboard, \
      redrawn as they change. Keys: ↑/↓ (or j/k) select, Tab moves between people and \
      rooms, c challenges the selected person (best of the server's default), a accepts \
      the challenge waiting for you, d declines it, b declines it and every later one \
      from that person this evening, w (or Enter on a room) watches the \
      selected room, m plays quick match, t enters the tournament, r (or Enter on a \
      recent match) replays a finished match, q quits. After a match or when you stop \
      watching (q), you are back in the lobby.

      Piped, or with --json: prints the lobby each time it changes (at most a few times \
      a second) until the server closes or you press Ctrl-C. With --json, one JSON \
      object per line: {"seq": N, "lobby": {…}} with the lobby as docs/PROTOCOL.md \
      describes it.

      Exit status: 0 quit; 1 refused by the server or the connection lost; 76 a server \
      that broke the protocol; 128+n a signal (130 for Ctrl-C).
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under (by default your login name).")
  var name: String?

  @Flag(help: "One JSON object per line, for scripts.")
  var json = false

  func validate() throws {
    if let name { try validateName(name) }
  }

  func run() async throws {
    if Terminal.isInteractive, !json {
      try await party(server: server, name: try playerName(name))
      return
    }
    let json = self.json
    try await followLobby(server: server, name: name) { event in
      guard case .view(let seq, let view) = event else { return true }
      if json {
        var text = JSONText()
        text.raw("{")
        text.key("seq"); text.int(seq); text.comma()
        text.key("lobby"); text.lobbyView(view)
        text.raw("}")
        print(String(decoding: text.bytes, as: UTF8.self))
      } else {
        for line in LobbyText.lines(view) { print(line) }
        print("")
      }
      fflush(nil)
      return true
    }
  }
}

/// Connects, follows the lobby as `name` (or the login name) and hands each view to
/// `each` until it returns false; a refusal or a broken protocol is said and exits as
/// `roshambo play` does.
func followLobby(
  server options: ServerOptions, name: String?, within limit: Duration? = nil,
  _ each: @escaping (LobbyClient.Event) async -> Bool
) async throws {
  let resolved = try await options.resolve()
  let connection = try await connect(resolved, options: options)
  let name = try playerName(name)
  let follow = {
    try await LobbyClient.follow(
      connection, name: name, keepalive: options.keepaliveInterval, each: each)
  }
  do {
    if let limit {
      try await connection.answering("the lobby", within: limit) { _ = try await follow() }
    } else {
      _ = try await follow()
    }
  } catch {
    throw exitCode(after: error)
  }
}

/// The lobby screen, then whatever the person chose there (a match from a challenge,
/// quick match, watching a room) on the play screen, then the lobby again, until they
/// quit it.
func party(server options: ServerOptions, name: String) async throws {
  let resolved = try await options.resolve()
  let reconnect = reconnector(resolved)
  let keepalive = options.keepaliveInterval
  let seats = await seatMemory(resolved, name: name)
  let navigation = LobbyNavigation()
  var step = navigation.start()
  // The lobby's connection, kept from the lobby screen for the match it seated.
  var lobbyConnection: ServerConnection?
  while true {
    switch step {
    case .takeBackSeat:
      // A match left running (a closed terminal, a crash) is taken back before the lobby.
      step = navigation.tookBackSeat(
        await takeBackSeat(resolved, options: options, name: name, seats: seats, thenLobby: true))
    case .lobby(let why, let complaint):
      if let complaint { complain(complaint) }
      let connection =
        if let why {
          try await reconnectLobby(resolved, options: options, after: why, reconnect: reconnect)
        } else {
          try await connect(resolved, options: options)
        }
      // Said once, on the first lobby screen of the run that made the identity.
      let notice = madeIdentity.withLockedValue { said in
        defer { said = nil }
        return said
      }
      lobbyConnection = connection
      step = navigation.lobbyEnded(
        await MainActor.run {
          LobbyScreen(connection: connection, name: name, keepalive: keepalive, notice: notice)
        }.run())
    case .playSeated(let seated):
      guard let connection = lobbyConnection else { return }
      step = navigation.matchEnded(
        await playSeated(
          connection, seated, name: name, reconnect: reconnect, keepalive: keepalive,
          seats: seats))
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
    let match = try await RecordRequest.fetch(fresh, name: name, id: Int(id))
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

/// Connects again with `reconnect` after the lobby's connection ended (the network, a
/// server restarting or draining), saying so on the terminal, every 2 s for up to 2
/// minutes; Ctrl-C leaves. Gives up with the reason the last try failed.
func reconnectLobby(
  _ server: ResolvedServer, options: ServerOptions, after why: String,
  reconnect: @Sendable () async throws -> ServerConnection
) async throws -> ServerConnection {
  let attempts = 60
  var attempt = 0
  complain("lost the lobby: \(why).")
  while true {
    attempt += 1
    // One short line, redrawn in place: it must not wrap on a narrow terminal.
    print(
      "\r\u{1B}[KReconnecting, try \(attempt) of \(attempts) (Ctrl-C leaves)…", terminator: "")
    fflush(nil)
    do {
      let connection = try await reconnect()
      print("\r\u{1B}[K", terminator: "")
      return connection
    } catch {
      guard attempt < attempts else {
        print("")
        throw options.cannotConnect(host: server.host, port: server.port, error)
      }
    }
    try await Task.sleep(for: .seconds(2))
  }
}

/// `roshambo challenge NAME`: challenges someone in the lobby and plays the match on the
/// screen once they accept.
struct Challenge: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Challenge someone in the lobby to a match, and play it when they accept.",
    discussion: """
      Challenges NAME as soon as they are in the lobby and free (on its screen, or a bot \
      with --lobby; waiting up to --wait seconds for that), then up to 30 s for the answer. Accepted, the match is played as with `roshambo \
      play`; declined, expired or refused, the reason is said and the exit status is 1.
      """)

  @OptionGroup var server: ServerOptions

  @Argument(help: "The name of the person to challenge, as the lobby shows it.")
  var opponent: String

  @Option(help: "Your name (by default your login name).")
  var name: String?

  @Flag(help: "Ask for a fair match (commit–reveal).")
  var fair = false

  @Option(help: "How long to wait for them to be free in the lobby, s.")
  var wait = 10

  func validate() throws {
    if let name { try validateName(name) }
    try validateName(opponent)
    guard wait >= 0 else { throw ValidationError("--wait must be 0 or more seconds.") }
  }

  func run() async throws {
    let name = try playerName(self.name)
    let resolved = try await server.resolve()
    let connection = try await connect(resolved, options: server)
    let seated: LobbyClient.Seated
    do {
      seated = try await seatFromLobby(
        connection, name: name, goal: .challenge(opponent, fair: fair), wait: .seconds(wait),
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

/// Plays on the screen the match a challenge or the tournament seated `connection` in.
func playSeated(
  _ connection: ServerConnection, _ seated: LobbyClient.Seated, name: String,
  reconnect: @escaping @Sendable () async throws -> ServerConnection, keepalive: Duration,
  seats: SeatMemory?
) async -> Screen.Ending {
  await MainActor.run { () -> Task<Screen.Ending, Never> in
    let session = ClientSession(
      connection: connection, reconnect: reconnect, keepalive: keepalive)
    session.seatMemory = seats
    session.adopt(seated, name: name)
    let screen = Screen(session: session)
    screen.returnsToLobby = true
    return Task { @MainActor in await screen.playSeated() }
  }.value
}
