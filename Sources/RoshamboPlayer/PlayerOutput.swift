import RoshamboGame
import RoshamboProtocol

/// What ``PlayerCore/handle(_:now:)`` asks its driver to do, in order.
///
/// Invariant: at most one connection is asked for at a time (a ``connect`` only once the
/// last connection was closed or lost), and every message in a ``send`` already has its
/// `id` and keeps to the server's rate.
public enum PlayerOutput: Equatable, Sendable {
  /// Open a connection to the server; answer with ``PlayerInput/connected`` or
  /// ``PlayerInput/connectFailed(_:)``.
  case connect
  /// Send this message on the connection, now.
  case send(ClientMessage)
  /// Close the connection; its close is not reported back as ``PlayerInput/closed(_:)``.
  case close
  /// Fire `timer` at `at` (ms, on the clock `now` is read from), replacing any earlier
  /// schedule of the same timer.
  case schedule(PlayerTimer, at: Int64)
  /// `timer` is no longer wanted.
  case cancel(PlayerTimer)
  /// Make a nonce for a fair pick of this weapon; answer with ``PlayerInput/nonce(_:for:)``.
  /// Asked only when no nonce was drawn ahead (``drawNonce``).
  case makeNonce(Weapon)
  /// Draw a nonce for this player's next fair commitment now, while nothing waits on it;
  /// answer with ``PlayerInput/nonceDrawn(_:)``. It is secret: never log or show it.
  case drawNonce
  /// Keep this seat where the program finds it after a crash (``HeldSeat``'s file).
  case keepSeat(room: String, token: String)
  /// The seat's match is over or the seat is gone: forget the kept seat.
  case forgetSeat
  /// The server was caught lying: write this evidence, and answer with
  /// ``PlayerInput/evidenceSaved(path:)``.
  case keepEvidence(FairPlay.Evidence)
  /// The match this player saw end: its own record, to save where records are kept.
  case saveRecord(FinishedMatch)
  /// The server called this spectator to their own tournament match.
  case matchReady
  /// A line for the player outside the screen (a frame given up).
  case say(String)
  /// What a lobby follower is told (a view, a challenge, a refusal, a lost connection,
  /// the seat it was given).
  case lobby(LobbyNews)
  /// The match's state (``PlayerState/match``) changed: draw it again.
  case show
  /// The session is over, for this reason: close what is open, cancel every timer.
  case ended(PlayerEnd)
}

/// The player's timers: one table of them in the driver, one entry each.
///
/// Invariant: the core schedules a timer only for a phase that has a use for it, and
/// ignores one that fires after it stopped wanting it.
public enum PlayerTimer: Hashable, Sendable, CustomStringConvertible {
  /// The keepalive's next step: a `ping` when nothing was sent for an interval, or the
  /// connection taken for lost when the server stayed silent with a ping unanswered.
  case keepalive
  /// Frames wait for the server's rate: send those that may go now.
  case pacing
  /// The next try to reach the server again.
  case reconnect
  /// Patience is over: stop trying to reach the server.
  case giveUp
  /// A pick (or a reveal) the server could not save is sent again: it said `unavailable`,
  /// and while its play pauses no view comes to show the pick missing.
  case retry

  public var description: String {
    switch self {
    case .keepalive: "keepalive"
    case .pacing: "pacing"
    case .reconnect: "reconnect"
    case .giveUp: "give-up"
    case .retry: "retry"
    }
  }
}

/// Why a player's session ended, with the sentence the player reads.
///
/// Invariant: every end carries words that say what happened and, where there is one,
/// what to do.
public enum PlayerEnd: Equatable, Sendable {
  /// The player left, or hung up.
  case left
  /// The server refused this player (a fatal error, or its hello refused).
  case refused(ProtocolError)
  /// The server broke the protocol.
  case brokeProtocol(String)
  /// The server was caught lying in a fair room.
  case cheated(String)
  /// The server could not be reached again within the policy's patience.
  case gaveUp(String)
  /// The connection ended and there is no seat to take back with a new one; why (nil:
  /// the server closed it cleanly).
  case closed(String?)
  /// The first connection could not be made.
  case couldNotConnect(String)

  /// The sentence for the player.
  public var reason: String {
    switch self {
    case .left: "you left the game"
    case .refused(let error): error.message
    case .brokeProtocol(let violation): ProtocolViolation(message: violation).description
    case .closed(let why): why ?? "the server closed the connection"
    case .cheated(let reason), .gaveUp(let reason), .couldNotConnect(let reason):
      reason
    }
  }
}
