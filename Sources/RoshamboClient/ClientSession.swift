import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

/// A client's store wired to its server: events from the connection become actions;
/// the effects the reducer returns (``ClientEffect``) are carried out here: sent, kept,
/// written. The bot and the screen both run on one.
///
/// Invariant: the store is only touched on the main actor; the server is only told
/// what the reducer returned as an effect.
@MainActor
public final class ClientSession {
  public let store: Store<ClientState, ClientAction>
  /// The connection in use now (a new one after each reconnection).
  public private(set) var connection: ServerConnection
  private let reconnect: (@Sendable () async throws -> ServerConnection)?
  private let backoff: @Sendable (Int) -> Duration
  private let maxAttempts: Int
  /// How long a server that says it is closing each time it is reached again is given.
  private let closingPatience: Duration
  /// How long it waits, at least, before reaching such a server again.
  private let closingRetry: Duration
  private let keepalive: Duration
  private let outbox: Outbox
  private var hello: (name: String, room: String?, role: ClientMessage.Role, fair: Bool)?

  /// Where the effects send: the current connection, whether the player quit, the
  /// `id` of the last message sent, when something was last sent, and the pace every
  /// frame keeps (``Pacer``).
  @MainActor
  final class Outbox {
    var connection: ServerConnection {
      didSet {
        keepalive = Keepalive(fresh: keepalive)
        pacer.reconnected(now: ClientSession.clockMillis())
      }
    }
    var quitting = false
    var evidenceDirectory: @Sendable () -> String = { EvidenceFile.defaultDirectory() }
    /// Where this client keeps its own record of each match it sees end, if anywhere.
    var recordDirectory: String?
    /// Where the seat is kept while a match runs, for coming back after a crash.
    var seats: SeatMemory?
    /// Told when the server says this connection's tournament match is ready elsewhere
    /// (``ErrorCode/matchReady``, to a spectator): the screen goes back to the lobby.
    var matchReady: (@MainActor () -> Void)?
    /// Told, in the player's words, of a frame the server refused too often to send again.
    var gaveUp: (@MainActor (String) -> Void)?
    private var lastID = 0
    /// When to ping the server on this connection, and when to take it for lost.
    var keepalive: Keepalive
    /// How fast frames may go, and which wait.
    private(set) var pacer: Pacer
    /// The wake-up asked for by the pacer, and the task that sleeps until it.
    private var wakeAt: Int64?
    private var wake: Task<Void, Never>?

    init(_ connection: ServerConnection, keepalive interval: Duration) {
      self.connection = connection
      let millis = interval.milliseconds
      let now = ClientSession.clockMillis()
      // A server silent for two intervals with a ping unanswered has stopped answering.
      self.keepalive = Keepalive(
        intervalMillis: millis, silenceLimitMillis: 2 * millis, now: now)
      self.pacer = Pacer(now: now)
    }

    /// A fresh message `id`.
    func nextID() -> Int {
      lastID += 1
      return lastID
    }

    /// Sends `message` as soon as the pace allows (at once, usually).
    func send(_ message: ClientMessage) {
      carryOut(pacer.submit(message, now: ClientSession.clockMillis()))
    }

    /// A message of the match, with a fresh `id` (the pacer sends a refused one again by
    /// it, and the server's refusals name it).
    func send(_ message: ClientEffect.Message) {
      switch message {
      case .choose(let round, let weapon):
        send(.choose(round: round, weapon: weapon, id: nextID()))
      case .commit(let round, let digest):
        send(.commit(round: round, digest: digest, id: nextID()))
      case .reveal(let round, let weapon, let nonce):
        send(.reveal(round: round, weapon: weapon, nonce: nonce, id: nextID()))
      case .rematch:
        send(.rematch(id: nextID()))
      }
    }

    /// The server announced its rate in a `welcome`.
    func rateAnnounced(_ rate: FrameRate?) {
      carryOut(pacer.announced(rate, now: ClientSession.clockMillis()))
    }

    /// The server refused the frame with `id` as too fast: true when it was this
    /// session's and is sent again (or given up, and said so).
    func refused(re id: Int) -> Bool {
      guard let output = pacer.refused(re: id, now: ClientSession.clockMillis()) else {
        return false
      }
      carryOut(output)
      return true
    }

    private func carryOut(_ output: Pacer.Output) {
      let now = ClientSession.clockMillis()
      for message in output.send {
        if case .ping = message {} else { keepalive.sent(at: now) }
        connection.send(message)
      }
      for message in output.givenUp { gaveUp?(pacer.givenUpNotice(message)) }
      guard let at = output.wakeAt, wakeAt.map({ at < $0 }) ?? true else { return }
      wake?.cancel()
      wakeAt = at
      wake = Task { @MainActor [weak self] in
        try? await Task.sleep(until: ClientSession.epoch + .milliseconds(at), clock: .continuous)
        guard !Task.isCancelled, let self else { return }
        self.wakeAt = nil
        self.carryOut(self.pacer.tick(now: ClientSession.clockMillis()))
      }
    }
  }

  /// Set when the connection was closed because the server stopped answering pings.
  private var silentFor: Duration?
  /// When this connection began, and when the server first said on it that it is closing.
  private var connectedAt = ContinuousClock.now
  private var closingSaidAt: ContinuousClock.Instant?
  /// Since when the server has said it is closing on every connection (from the end of
  /// the first of them): a server restarting is back within seconds; one that keeps
  /// closing is given ``closingPatience``.
  private var closingSince: ContinuousClock.Instant?
  /// A connection that says it is closing later than this after it began played first:
  /// its closing starts a new count.
  static let closingGrace = Duration.seconds(30)

  /// A session over `connection`. With `reconnect`, a connection that drops is replaced:
  /// up to `maxAttempts` tries, waiting `backoff(attempt)` before each, resuming the seat
  /// with its token.
  ///
  /// After `keepalive` without sending anything it sends a `ping` (well inside the
  /// server's idle limit), so a player who thinks is never dropped; the `pong`'s round
  /// trip is shown.
  public init(
    connection: ServerConnection,
    reconnect: (@Sendable () async throws -> ServerConnection)? = nil,
    maxAttempts: Int = 12,
    keepalive: Duration = .seconds(3),
    closingPatience: Duration = .seconds(60), closingRetry: Duration = .seconds(5),
    backoff: @escaping @Sendable (Int) -> Duration = { .milliseconds(250 << min($0 - 1, 5)) }
  ) {
    self.closingPatience = closingPatience
    self.closingRetry = closingRetry
    self.connection = connection
    self.reconnect = reconnect
    self.maxAttempts = maxAttempts
    self.keepalive = keepalive
    self.backoff = backoff
    let outbox = Outbox(connection, keepalive: keepalive)
    self.outbox = outbox
    store = Store(initialState: ClientState(), reducer: ClientReducer()) { effect, context in
      Self.perform(effect, outbox: outbox, context: context)
    }
    store.dispatch(.connection(.connected))
    outbox.gaveUp = { [weak self] notice in
      self?.store.dispatch(.notice(notice.prefix(1).uppercased() + notice.dropFirst() + "."))
      self?.frameGivenUp?(notice)
    }
  }

  /// Told, in the player's words, of a frame the server refused as too fast so often
  /// that it is not sent again (``Pacer/resendLimit``); the screen shows it as a notice
  /// as well.
  public var frameGivenUp: (@MainActor (String) -> Void)?

  /// Carries out what the reducer returned.
  private static func perform(
    _ effect: ClientEffect, outbox: Outbox, context: MiddlewareContext<ClientState, ClientAction>
  ) {
    switch effect {
    case .send(let message):
      outbox.send(message)
    case .makeCommitment(let weapon):
      // The nonce is made here, outside the reducer: 32 bytes from RAND_bytes.
      context.dispatch(.commit(weapon, nonce: Commitment.hex(Commitment.makeNonce())))
    case .keepSeat(let room, let token):
      outbox.seats?.keep(room: room, token: token)
    case .forgetSeat:
      outbox.seats?.forget()
    case .matchReady:
      outbox.matchReady?()
    case .keepEvidence(let evidence):
      // Written once, whatever else the player or the bot does meanwhile; then the match
      // is left.
      outbox.quitting = true
      let path: String
      do {
        path = try EvidenceFile.write(evidence, in: outbox.evidenceDirectory())
      } catch {
        path = "(not saved: \(error.localizedDescription))"
      }
      context.dispatch(.evidenceSaved(path: path))
      outbox.send(.leave(id: nil))
      Task { await outbox.connection.close() }
    case .saveRecord:
      guard let directory = outbox.recordDirectory,
        let record = context.state.ownRecord(
          finishedAt: Int64(Date().timeIntervalSince1970 * 1000))
      else { return }
      do {
        let path = try RecordFile.write(record, in: directory)
        context.dispatch(.notice("Your record of this match is in \(path)."))
      } catch {
        context.dispatch(
          .notice("Could not save your record of this match: \(error.localizedDescription)"))
      }
    case .leave:
      outbox.quitting = true
      outbox.seats?.forget()
      outbox.send(.leave(id: nil))
    }
  }

  /// Where this client saves its own record of each match it plays or watches to the
  /// end (`--save-record`); nil: nowhere.
  public var recordDirectory: String? {
    get { outbox.recordDirectory }
    set { outbox.recordDirectory = newValue }
  }

  /// Where this player's seat is kept while its match runs, so that the program started
  /// again after a crash or a closed terminal takes it back (``HeldSeat``); nil: nowhere.
  public var seatMemory: SeatMemory? {
    get { outbox.seats }
    set { outbox.seats = newValue }
  }

  /// Told when the server calls this spectator to their own tournament match.
  public var matchReady: (@MainActor () -> Void)? {
    get { outbox.matchReady }
    set { outbox.matchReady = newValue }
  }

  /// Where evidence of a cheating server is written (a test may set it).
  public var evidenceDirectory: @Sendable () -> String {
    get { outbox.evidenceDirectory }
    set { outbox.evidenceDirectory = newValue }
  }

  /// Sends hello. This client can play fair rooms, so it always says whether it asks for
  /// one (`fair`: a new named room is made fair).
  public func join(
    name: String, room: String?, role: ClientMessage.Role = .player, resume: String? = nil,
    fair: Bool = false
  ) {
    hello = (name, room, role, fair)
    outbox.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: role, room: room, resume: resume,
        fair: fair, keepalive: keepalive.promisedSeconds, id: outbox.nextID()))
  }

  /// Takes over a connection that is already seated (an accepted challenge's `welcome`,
  /// read by ``LobbyClient``): the store learns the seat, and a dropped connection
  /// resumes it with its token like any player's.
  public func adopt(_ seated: LobbyClient.Seated, name: String) {
    hello = (name, seated.room, .player, true)
    alreadyWelcomed = true
    store.dispatch(.welcome(room: seated.room, seat: seated.seat, token: seated.token))
  }

  /// Whether the connection's `welcome` was read before this session took it.
  private var alreadyWelcomed = false

  /// Closes the connection without giving up the seat (no `leave`, no reconnecting): the
  /// server holds it for its grace period, as when the network drops.
  public func hangUp() {
    outbox.quitting = true
    Task { await outbox.connection.close() }
  }

  /// Sends a `ping` whenever nothing has been sent for `keepalive`, until cancelled. A
  /// server that sends nothing for two intervals with a ping unanswered has stopped
  /// answering: the connection is closed (and replaced, when the session reconnects).
  private func keepAlive() async {
    while !Task.isCancelled {
      switch outbox.keepalive.step(at: Self.clockMillis()) {
      case .lost(let silent):
        silentFor = .milliseconds(silent)
        let stale = connection
        Task { await stale.close() }
      case .ping:
        let id = outbox.nextID()
        outbox.keepalive.pingSent(id: id)
        outbox.send(.ping(id: id))
      case .wait(let until):
        try? await Task.sleep(until: Self.epoch + .milliseconds(until), clock: .continuous)
      }
    }
  }

  /// The keepalive's clock: milliseconds since the program's first session.
  nonisolated static let epoch = ContinuousClock.now
  nonisolated static func clockMillis() -> Int64 { (ContinuousClock.now - epoch).milliseconds }

  /// Feeds the connection's events to the store until it closes for good: the player
  /// quit, the server refused fatally, or reconnecting gave up. Returns why it closed (nil
  /// for a clean close) and the last fatal error from the server, if any.
  public func run() async -> (error: (any Error)?, fatal: ProtocolError?) {
    let pinger = Task { @MainActor [weak self] in await self?.keepAlive() }
    defer { pinger.cancel() }
    while true {
      var (error, fatal) = await consume(connection)
      if error == nil, let silence = silentFor {
        error = ServerSilent(seconds: Int(silence.components.seconds))
      }
      if let violation = error as? ProtocolViolation {
        // In a fair room, a round committed in that can now never be checked is a lie.
        store.dispatch(.brokeProtocol(violation.message))
      }
      if let evidence = store.state.fair.evidence {
        let reason =
          store.state.context.notice
          ?? "the server cheated in round \(evidence.round): \(evidence.reason)"
        store.dispatch(.connection(.closed(reason)))
        return (ServerCheated(message: reason), nil)
      }
      if let violation = error as? ProtocolViolation {
        store.dispatch(.connection(.closed(violation.description)))
        return (violation, nil)
      }
      guard fatal == nil, !outbox.quitting, let reconnect, let hello,
        let token = store.state.token ?? (hello.role == .spectator ? "" : nil)
      else {
        store.dispatch(.connection(.closed(closingReason(error, fatal))))
        return (error, fatal)
      }
      if let said = closingSaidAt {
        if closingSince == nil || said - connectedAt > Self.closingGrace { closingSince = .now }
      } else {
        closingSince = nil
      }
      if let since = closingSince, ContinuousClock.now - since >= closingPatience {
        let reason =
          "gave up: the server has kept saying it is closing each time it was reached again, "
          + "for \(closingPatience.components.seconds) s; try again later, or ask its host "
          + "whether it is being stopped"
        store.dispatch(.connection(.closed(reason)))
        return (ReconnectFailed(message: reason), nil)
      }
      var replaced = false
      // A server that said it is closing is likely restarting: it is given longer.
      let attempts = maxAttempts + (store.state.context.closesAt != nil ? 6 : 0)
      for attempt in 1...attempts {
        store.dispatch(.connection(.reconnecting(attempt: attempt)))
        // A server that keeps saying it is closing is not reached again at once: a few
        // tries a minute, not one every quarter second.
        try? await Task.sleep(
          for: closingSince == nil ? backoff(attempt) : max(backoff(attempt), closingRetry))
        // The player quit while waiting: no seat to take back.
        if outbox.quitting { break }
        guard let fresh = try? await reconnect() else { continue }
        connection = fresh
        outbox.connection = fresh
        outbox.send(
          .hello(
            protocol: WireProtocol.version, name: hello.name, role: hello.role, room: hello.room,
            resume: token.isEmpty ? nil : token, fair: hello.fair,
            keepalive: keepalive.promisedSeconds, id: outbox.nextID()))
        store.dispatch(.connection(.connected))
        replaced = true
        break
      }
      if !replaced, outbox.quitting {
        store.dispatch(.connection(.closed("you left the game")))
        return (error, nil)
      }
      if !replaced {
        let reason =
          "gave up reconnecting after \(attempts) attempts; check that the server is running"
        store.dispatch(.connection(.closed(reason)))
        return (error ?? ReconnectFailed(message: reason), nil)
      }
    }
  }

  private func consume(_ connection: ServerConnection) async -> ((any Error)?, ProtocolError?) {
    var fatal: ProtocolError?
    var welcomed = alreadyWelcomed
    // A seat adopted from the lobby has had its welcome: its first state comes next.
    var justWelcomed = alreadyWelcomed
    alreadyWelcomed = false
    outbox.keepalive = Keepalive(fresh: outbox.keepalive)
    silentFor = nil
    connectedAt = .now
    closingSaidAt = nil
    for await event in connection.events {
      outbox.keepalive.heard(at: Self.clockMillis())
      guard case .message(let raw) = event else {
        if case .closed(let error) = event { return (error, fatal) }
        continue
      }
      if case .error(let error, let re?) = raw, error.code == .rateLimited, !error.fatal,
        outbox.refused(re: re)
      {
        // Dropped for coming too fast, and sent again by the pacer: nothing was lost.
        continue
      }
      let outcome = ServerIntake.outcome(
        of: raw, state: store.state, welcomed: welcomed, firstAfterWelcome: justWelcomed)
      if case .action(.welcome) = outcome, case .welcome(_, _, _, let rate) = raw {
        outbox.rateAnnounced(rate)
      }
      if case .state = raw { justWelcomed = false }
      switch outcome {
      case .action(let action):
        if case .welcome = action {
          welcomed = true
          justWelcomed = true
        }
        if case .serverError(let error) = action, error.code == .timeout, welcomed {
          // The server heard nothing for a while and took this client for gone: it was
          // stopped (Ctrl-Z) or asleep. The connection is lost, not refused: taken back
          // with the seat's token, as any lost connection is.
          await connection.close()
          return (ServerTimedOut(), nil)
        }
        if case .serverError(var error) = action, error.fatal || !welcomed {
          // A refused hello (a full room, no such room, a bad name…) ends the session as
          // a fatal error does: there is nothing to wait for on this connection.
          error.fatal = true
          fatal = error
          store.dispatch(.serverError(error))
          await connection.close()
          return (nil, fatal)
        }
        if case .serverError(let error) = action, error.code == .closing {
          if closingSaidAt == nil { closingSaidAt = .now }
          // Said with the time left, kept as a moment by this client's clock.
          let now = Int64(Date().timeIntervalSince1970 * 1000)
          store.dispatch(.serverClosing(closesAt: now + Int64(error.seconds ?? 0) * 1_000))
          continue
        }
        store.dispatch(action)
      case .violation(let violation):
        await connection.close()
        return (ProtocolViolation(message: violation), nil)
      case .pong(let id):
        if let trip = outbox.keepalive.heard(at: Self.clockMillis(), pong: id) {
          store.dispatch(.roundTrip(millis: Double(trip)))
        }
      }
    }
    return (nil, fatal)
  }

  private func closingReason(_ error: (any Error)?, _ fatal: ProtocolError?) -> String {
    if let fatal { return fatal.message }
    if outbox.quitting { return "you left the game" }
    return error.map(ConnectionFailure.ended) ?? "the server closed the connection"
  }
}

/// The server was caught reporting a fair round its commitments contradict; the message
/// says how, and where the evidence is.
public struct ServerCheated: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
}

extension Duration {
  /// This keepalive interval as the whole seconds a `hello` promises (1 to 60), rounded
  /// up: the server may then take the connection for lost after three of them.
  public var promisedSeconds: Int {
    let (seconds, attoseconds) = components
    return Int(min(60, max(1, seconds + (attoseconds > 0 ? 1 : 0))))
  }
}

/// The server stopped answering: nothing came, not even a `pong`, for this long.
public struct ServerSilent: Error, CustomStringConvertible {
  public let seconds: Int
  public var description: String {
    "the server stopped answering (nothing for \(seconds) s, pings unanswered)"
  }
}

/// Reconnecting was given up.
public struct ReconnectFailed: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
}

/// The server closed the connection because nothing came from this client for a while (it
/// was stopped, or the machine slept): a lost connection, which is taken back.
struct ServerTimedOut: Error, CustomStringConvertible {
  var description: String {
    "the server heard nothing from this terminal for a while (was it stopped, or asleep?)"
  }
}

extension Keepalive {
  /// The same keepalive for a new connection made now (by the program's clock).
  init(fresh previous: Keepalive) {
    self.init(
      intervalMillis: previous.intervalMillis, silenceLimitMillis: previous.silenceLimitMillis,
      now: ClientSession.clockMillis())
  }
}

extension Duration {
  /// This duration in whole milliseconds, rounded down.
  var milliseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
  }
}
