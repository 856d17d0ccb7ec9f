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
  public let connection: ServerConnection
  private var nextID = 1

  public init(connection: ServerConnection) {
    self.connection = connection
    var sendingID = 1
    let sending = Middleware<ClientState, ClientAction>.effect { action, context in
      switch action {
      case .choose(let weapon):
        // Only a pick the reducer took as pending goes out.
        guard context.state.context.pendingPick == weapon, let view = context.state.view else {
          return
        }
        sendingID += 1
        connection.send(.choose(round: view.round, weapon: weapon, id: sendingID))
      case .rematch:
        connection.send(.rematch(id: nil))
      case .quit:
        connection.send(.leave(id: nil))
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
    nextID += 1
    connection.send(
      .hello(protocol: 1, name: name, role: role, room: room, resume: resume, id: nextID))
  }

  /// Feeds the connection's events to the store until it closes; returns why it closed
  /// (nil for a clean close) and the last fatal error from the server, if any.
  public func run() async -> (error: (any Error)?, fatal: ProtocolError?) {
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
        store.dispatch(
          .connection(
            .closed(fatal?.message ?? (error.map { "\($0)" } ?? "the server closed the connection"))
          ))
        return (error, fatal)
      }
    }
    return (nil, fatal)
  }
}
