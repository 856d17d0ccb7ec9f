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
  /// this connection has had its `welcome`, `firstAfterWelcome` whether `raw` is the first
  /// message since that `welcome`.
  ///
  /// Besides each view's own contract (``RoomView/contractViolation(seat:welcomed:)``):
  /// a view must be for the room this client was welcomed to, keep the protocol's room
  /// and name rules, and come with a higher `seq` than the last; a player's match never
  /// goes back (to an earlier round, or to waiting) without ending first, on one
  /// connection (resumed, it may have ended and another begun); and a second
  /// `welcome` on a connection (quick match moving a player whose opponent left) comes
  /// only to a player, to a valid room, between matches. The one exception to a rising
  /// `seq`: the first `state` after a `welcome` to the room already held (a resumed seat,
  /// or a spectator back after a lost connection) may repeat the last `seq`, and then
  /// must be the very view already held, so it changes nothing.
  public static func outcome(
    of raw: ServerMessage, state: ClientState, welcomed: Bool, firstAfterWelcome: Bool = false
  ) -> Outcome {
    switch raw {
    case .welcome(let room, let seat, _, _):
      guard ClientMessage.isValidRoom(room) else {
        return .violation("the welcome names a room that breaks the room rule (\(quoted(room)))")
      }
      if welcomed {
        guard seat != nil, state.seat != nil else {
          return .violation("a second welcome to a spectator's connection")
        }
        if let phase = state.view?.phase, phase == .choosing {
          return .violation(
            "a welcome to room \(room) in the middle of a match in room \(state.room ?? "?")")
        }
      }
    case .state(let seq, let view):
      guard welcomed, let room = state.room else {
        return .violation("a state before the welcome")
      }
      guard ClientMessage.isValidRoom(view.room) else {
        return .violation("the view names a room that breaks the room rule (\(quoted(view.room)))")
      }
      guard view.room == room else {
        return .violation(
          "the view is for room \(view.room), but this client was welcomed to \(room)")
      }
      if let bad = view.players.first(where: { !PlayerName.isValid($0.name) }) {
        return .violation(
          "seat \(bad.seat.rawValue)'s name breaks the name rule (\(quoted(bad.name)))")
      }
      if let violation = view.contractViolation(seat: state.seat, welcomed: welcomed) {
        return .violation(violation)
      }
      if seq == state.seq, firstAfterWelcome, case .state(_, let sanitized) = raw.sanitized(),
        sanitized == state.view
      {
        // The server's current state again, on a connection that replaced one it had not
        // yet seen close: nothing changed since.
        return .action(.synced(view: sanitized, seq: seq))
      }
      guard seq > state.seq else {
        return .violation(
          seq == state.seq && firstAfterWelcome
            ? "the first state after resuming repeats seq \(seq) with a different view"
            : "seq went from \(state.seq) to \(seq); it must only rise")
      }
      // Across a resume the match may have ended meanwhile and another begun in the room
      // (a rematch, or quick match seating someone against the held seat): only on one
      // connection must it never go back.
      if view.you != nil, !firstAfterWelcome, let previous = state.view,
        previous.phase == .choosing,
        view.round < previous.round || view.phase == .waiting
      {
        return .violation(
          "the match went back from round \(previous.round) to "
            + (view.phase == .waiting ? "waiting for players" : "round \(view.round)")
            + " without ending")
      }
    default:
      break
    }
    switch raw.sanitized() {
    case .welcome(let room, let seat, let token, _):
      return .action(.welcome(room: room, seat: seat, token: token))
    case .state(let seq, let view):
      return .action(.synced(view: view, seq: seq))
    case .error(let error, _):
      return .action(.serverError(error))
    case .pong(let id):
      return .pong(id: id)
    case .lobby, .lobbyPatch:
      return .violation("a lobby view this connection did not ask for (it follows a room)")
    case .challenge:
      return .violation("a challenge this connection did not ask for (it follows a room)")
    case .record:
      return .violation("a match record this connection did not ask for (it follows a room)")
    }
  }

  /// Untrusted text in a violation's message: sanitized, and cut to 40 columns.
  private static func quoted(_ text: String) -> String {
    "\"" + DisplayWidth.truncated(TerminalText.sanitized(text), toColumns: 40) + "\""
  }
}
