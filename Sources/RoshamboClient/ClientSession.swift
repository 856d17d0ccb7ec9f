import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

/// A client's store wired to its server: events from the connection become actions;
/// the middleware sends what the player does. The bot and the screen both run on one.
///
/// Invariant: the store is only touched on the main actor; the server is only told
/// things through the middleware, after the reducer has accepted them.
@MainActor
public final class ClientSession {
  public let store: Store<ClientState, ClientAction>
  /// The connection in use now (a new one after each reconnection).
  public private(set) var connection: ServerConnection
  private let reconnect: (@Sendable () async throws -> ServerConnection)?
  private let backoff: @Sendable (Int) -> Duration
  private let maxAttempts: Int
  private let outbox: Outbox
  private var hello: (name: String, room: String?, role: ClientMessage.Role)?

  /// Where the middleware sends: the current connection, whether the player quit, and
  /// the `id` of the last message sent.
  final class Outbox {
    var connection: ServerConnection
    var quitting = false
    private var lastID = 0
    init(_ connection: ServerConnection) { self.connection = connection }

    /// A fresh message `id`.
    func nextID() -> Int {
      lastID += 1
      return lastID
    }
  }

  /// A session over `connection`. With `reconnect`, a connection that drops is replaced:
  /// up to `maxAttempts` tries, waiting `backoff(attempt)` before each, resuming the seat
  /// with its token.
  public init(
    connection: ServerConnection,
    reconnect: (@Sendable () async throws -> ServerConnection)? = nil,
    maxAttempts: Int = 6,
    backoff: @escaping @Sendable (Int) -> Duration = { .milliseconds(250 << min($0 - 1, 5)) }
  ) {
    self.connection = connection
    self.reconnect = reconnect
    self.maxAttempts = maxAttempts
    self.backoff = backoff
    let outbox = Outbox(connection)
    self.outbox = outbox
    let sending = Middleware<ClientState, ClientAction>.effect { action, context in
      switch action {
      case .choose(let weapon):
        // Only a pick the reducer took as pending goes out.
        guard context.state.context.pendingPick == weapon, let view = context.state.view else {
          return
        }
        outbox.connection.send(.choose(round: view.round, weapon: weapon, id: outbox.nextID()))
      case .rematch:
        outbox.connection.send(.rematch(id: nil))
      case .quit:
        outbox.quitting = true
        outbox.connection.send(.leave(id: nil))
      default:
        break
      }
    }
    store = Store(initialState: ClientState(), reducer: ClientReducer(), middleware: [sending])
    store.dispatch(.connection(.connected))
  }

  /// Sends hello.
  public func join(
    name: String, room: String?, role: ClientMessage.Role = .player, resume: String? = nil
  ) {
    hello = (name, room, role)
    connection.send(
      .hello(
        protocol: 1, name: name, role: role, room: room, resume: resume, id: outbox.nextID()))
  }

  /// Feeds the connection's events to the store until it closes for good: the player
  /// quit, the server refused fatally, or reconnecting gave up. Returns why it closed (nil
  /// for a clean close) and the last fatal error from the server, if any.
  public func run() async -> (error: (any Error)?, fatal: ProtocolError?) {
    while true {
      let (error, fatal) = await consume(connection)
      guard fatal == nil, !outbox.quitting, let reconnect, let hello,
        let token = store.state.token ?? (hello.role == .spectator ? "" : nil)
      else {
        store.dispatch(.connection(.closed(closingReason(error, fatal))))
        return (error, fatal)
      }
      var replaced = false
      for attempt in 1...maxAttempts {
        store.dispatch(.connection(.reconnecting(attempt: attempt)))
        try? await Task.sleep(for: backoff(attempt))
        guard let fresh = try? await reconnect() else { continue }
        connection = fresh
        outbox.connection = fresh
        fresh.send(
          .hello(
            protocol: 1, name: hello.name, role: hello.role, room: hello.room,
            resume: token.isEmpty ? nil : token, id: outbox.nextID()))
        store.dispatch(.connection(.connected))
        replaced = true
        break
      }
      if !replaced {
        let reason =
          "gave up reconnecting after \(maxAttempts) attempts; check that the server is running"
        store.dispatch(.connection(.closed(reason)))
        return (error ?? ReconnectFailed(message: reason), nil)
      }
    }
  }

  private func consume(_ connection: ServerConnection) async -> ((any Error)?, ProtocolError?) {
    var fatal: ProtocolError?
    for await event in connection.events {
      switch event {
      case .message(.welcome(let room, let seat, let token)):
        store.dispatch(.welcome(room: room, seat: seat, token: token))
      case .message(.state(let seq, let view)):
        store.dispatch(.synced(view: view, seq: seq))
      case .message(.error(let error, _)):
        if error.fatal { fatal = error }
        store.dispatch(.serverError(error))
      case .message(.pong):
        break
      case .closed(let error):
        return (error, fatal)
      }
    }
    return (nil, fatal)
  }

  private func closingReason(_ error: (any Error)?, _ fatal: ProtocolError?) -> String {
    if let fatal { return fatal.message }
    if outbox.quitting { return "you left the game" }
    return error.map { "the connection ended: \($0)" } ?? "the server closed the connection"
  }
}

/// Reconnecting was given up.
public struct ReconnectFailed: Error, CustomStringConvertible {
  public let message: String
  public var description: String { message }
}
