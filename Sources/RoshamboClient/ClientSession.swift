import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

/// A match session, the screen's and the bots': a ``PlayerDriver`` running the
/// ``PlayerCore`` (hello, welcome, resume, reconnect, keepalive, pacing, the match's
/// reducer), and a store that mirrors the core's match for the screen's and the bot's
/// subscribers. What they dispatch goes to the core as a command; nothing here sends.
///
/// Invariant: the store only ever holds a state the core held (it is replaced after every
/// input that changed the match), and the server is only told what the core returned.
@MainActor
public final class ClientSession {
  /// The match as the core holds it: read it, subscribe to it, dispatch the player's
  /// actions to it.
  public let store: ClientStore
  private let initial: ServerConnection?
  private let reconnect: (@Sendable () async throws -> ServerConnection)?
  private let keepalive: Duration
  private let policy: ReconnectPolicy
  private var driver: PlayerDriver?
  /// The driver was a lobby follower's, already running, seated by the server.
  private var seatedFromLobby = false

  /// The connection in use now (the last one, between connections).
  public var connection: ServerConnection? { driver?.connection ?? last ?? initial }
  private var last: ServerConnection?

  /// A session over `connection`. With `reconnect`, a connection that drops is replaced
  /// under `policy` (``ReconnectPolicy/standard``: every player's), resuming the seat with
  /// its token.
  ///
  /// After `keepalive` without sending anything it sends a `ping` (well inside the
  /// server's idle limit), so a player who thinks is never dropped; the `pong`'s round
  /// trip is shown.
  public init(
    connection: ServerConnection,
    reconnect: (@Sendable () async throws -> ServerConnection)? = nil,
    keepalive: Duration = .seconds(3), policy: ReconnectPolicy = .standard
  ) {
    self.initial = connection
    self.reconnect = reconnect
    self.keepalive = keepalive
    self.policy = policy
    self.store = ClientStore()
    store.forward = { [weak self] action in self?.forward(action) }
  }

  /// The match a lobby follower's session was seated in (an accepted challenge, a
  /// tournament's match), played on in the same session: its connection, its timers, its
  /// reconnect policy and its kept seat are the driver's.
  public init(seatedFrom driver: PlayerDriver) {
    self.initial = nil
    self.reconnect = nil
    self.keepalive = .milliseconds(driver.core.configuration.keepaliveMillis)
    self.policy = driver.core.configuration.policy
    self.store = ClientStore()
    self.seatedFromLobby = true
    store.forward = { [weak self] action in self?.forward(action) }
    attach(driver)
    store.mirror(driver.core.state.match)
  }

  /// Told, in the player's words, of a frame the server refused as too fast so often
  /// that it is not sent again (``Pacer/resendLimit``); the screen shows it as a notice
  /// as well.
  public var frameGivenUp: (@MainActor (String) -> Void)?
  /// Where this client saves its own record of each match it plays or watches to the
  /// end (`--save-record`); nil: nowhere.
  public var recordDirectory: String?
  /// Where this player's seat is kept while its match runs, so that the program started
  /// again after a crash or a closed terminal takes it back (``HeldSeat``); nil: nowhere.
  public var seatMemory: SeatMemory?
  /// Told when the server calls this spectator to their own tournament match.
  public var matchReady: (@MainActor () -> Void)?
  /// Where evidence of a cheating server is written (a test may set it).
  public var evidenceDirectory: @Sendable () -> String = { EvidenceFile.defaultDirectory() }

  /// Says hello once the session runs. This client can play fair rooms, so it always says
  /// whether it asks for one (`fair`: a new named room is made fair).
  public func join(
    name: String, room: String?, role: ClientMessage.Role = .player, resume: String? = nil,
    fair: Bool = false
  ) {
    makeDriver(
      PlayerConfiguration(
        name: name, room: room, role: role, fair: fair, resume: resume,
        keepaliveMillis: keepalive.milliseconds, reconnects: reconnect != nil, policy: policy))
  }

  private func makeDriver(_ configuration: PlayerConfiguration) {
    let reconnect = self.reconnect
    attach(
      PlayerDriver(configuration: configuration, connection: initial) {
        guard let reconnect else {
          throw ReconnectFailed(message: "this session does not reconnect")
        }
        return try await reconnect()
      })
  }

  private func attach(_ driver: PlayerDriver) {
    driver.changed = { [weak self] state in
      guard let self else { return }
      if let connection = self.driver?.connection { self.last = connection }
      self.store.mirror(state.match)
    }
    driver.said = { [weak self] line in self?.frameGivenUp?(line) }
    driver.matchReady = { [weak self] in self?.matchReady?() }
    driver.lobbyNews = nil
    self.driver = driver
  }

  /// The player's (or the bot's) action, as a command to the core.
  private func forward(_ action: ClientAction) {
    guard let driver else { return }
    switch action {
    case .choose(let weapon): driver.command(.pick(weapon))
    case .rematch: driver.command(.rematch)
    case .quit: driver.command(.leave)
    case .notice(let text): driver.notice(text)
    case .tick: driver.tick()
    case .connection, .welcome, .synced, .serverError, .commit, .brokeProtocol, .evidenceSaved,
      .serverClosing, .roundTrip, .retryUnsaved:
      // What the server and the core decide; not the player's to dispatch.
      break
    }
  }

  /// Closes the connection without giving up the seat (no `leave`, no reconnecting): the
  /// server holds it for its grace period, as when the network drops.
  public func hangUp() {
    guard let driver else {
      let initial = self.initial
      Task { await initial?.close() }
      return
    }
    driver.command(.hangUp)
  }

  /// Plays until the session ends for good: the player quit, the server refused fatally,
  /// or reconnecting gave up. Returns why it closed (nil for a clean close) and the
  /// server's fatal error, if any.
  public func run() async -> (error: (any Error)?, fatal: ProtocolError?) {
    guard let driver else { return (nil, nil) }
    // A session seated from the lobby keeps the seat where its driver's maker said.
    if !seatedFromLobby { driver.seats = seatMemory }
    driver.recordDirectory = recordDirectory
    driver.evidenceDirectory = evidenceDirectory
    let end = seatedFromLobby ? await driver.ended() : await driver.run()
    switch end {
    case .left: return (nil, nil)
    case .refused(let error): return (nil, error)
    case .brokeProtocol(let violation): return (ProtocolViolation(message: violation), nil)
    case .cheated(let reason): return (ServerCheated(message: reason), nil)
    case .gaveUp(let reason): return (ReconnectFailed(message: reason), nil)
    case .closed(let why): return (why.map { ConnectionLost(message: $0) }, nil)
    case .couldNotConnect(let why): return (ReconnectFailed(message: why), nil)
    }
  }
}

/// The match's state as a ``ClientSession``'s core holds it, for the screen and the bot:
/// the same reading and subscribing as a ``Store``, and actions that go to the core.
///
/// Invariant: its state changes only when the core's did, to the core's.
@MainActor
public final class ClientStore {
  private let mirrored = Store(
    initialState: ClientState(), reducer: Reduce<ClientState, ClientState> { $0 = $1 })
  var forward: ((ClientAction) -> Void)?

  init() {}

  /// The match now.
  public var state: ClientState { mirrored.state }

  /// The player's action, for the core.
  public func dispatch(_ action: ClientAction) {
    forward?(action)
  }

  /// Calls `onChange` with `select(state)` now and whenever it changes.
  public func subscribe<Value: Equatable>(
    select: @escaping (ClientState) -> Value, _ onChange: @escaping (Value) -> Void
  ) -> Subscription {
    mirrored.subscribe(select: select, onChange)
  }

  func mirror(_ state: ClientState) {
    mirrored.dispatch(state)
  }
}

/// The connection ended and there was no seat to take back with a new one.
public struct ConnectionLost: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
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

/// Reconnecting was given up.
public struct ReconnectFailed: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
}

extension Duration {
  /// This duration in whole milliseconds, rounded down.
  var milliseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
  }
}
