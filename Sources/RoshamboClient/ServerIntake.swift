import RoshamboGame
import RoshamboProtocol

/// The client's gate for what the server sends: every message is sanitized for the
/// terminal and every `state` is checked against the view contract before anything
/// reaches the store.
///
/// Invariant: a message that breaks the contract yields no action, so the store never
/// holds a view the screen could not draw.
public enum ServerIntake {
  /// What one arriving message means for the client.
  public enum Outcome: Equatable, Sendable {
    /// Dispatch this to the store.
    case action(ClientAction)
    /// A `pong` for the ping with this id (the session times it).
    case pong(id: Int?)
    /// The server broke the contract; the connection ends with this message.
    case violation(String)
  }

  /// The outcome of `raw` arriving while the client holds `state`; `welcomed` says whether
  /// this connection has had its `welcome`.
  public static func outcome(of raw: ServerMessage, state: ClientState, welcomed: Bool)
    -> Outcome
  {
    switch raw.sanitized() {
    case .welcome(let room, let seat, let token):
      return .action(.welcome(room: room, seat: seat, token: token))
    case .state(let seq, let view):
      if let violation = view.contractViolation(seat: state.seat, welcomed: welcomed) {
        return .violation(violation)
      }
      if view.room == state.view?.room, seq <= state.seq {
        return .violation("seq went from \(state.seq) to \(seq); it must only rise")
      }
      return .action(.synced(view: view, seq: seq))
    case .error(let error, _):
      return .action(.serverError(error))
    case .pong(let id):
      return .pong(id: id)
    }
  }
}
