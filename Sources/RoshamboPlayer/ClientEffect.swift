import RoshamboGame
import RoshamboProtocol

/// What an action calls for beyond the client's state, as ``ClientReducer`` returns it:
/// a message to send, a commitment to make, a seat to keep, evidence or a record to
/// write. ``PlayerCore`` carries the effects out; the reducer only describes them.
///
/// Invariant: a pick (`choose` or `commit`) is among the effects only for an action the
/// reducer took as this round's pick (or to send again, after a new connection, a pick
/// the server does not show), so nothing re-derives from the state whether one was.
public enum ClientEffect: Equatable, Sendable {
  /// A message of the match to send (its `id` is the connection's to give).
  public enum Message: Equatable, Sendable {
    case choose(round: Int, weapon: Weapon)
    case commit(round: Int, digest: String)
    case reveal(round: Int, weapon: Weapon, nonce: String)
    case rematch
  }

  case send(Message)
  /// In a fair room: make a nonce for a pick of `weapon` and dispatch
  /// ``ClientAction/commit(_:nonce:)`` with it (randomness stays out of the reducer).
  case makeCommitment(Weapon)
  /// Keep this seat while its match runs, to come back to after a crash.
  case keepSeat(room: String, token: String)
  /// The seat's match is over, or the seat is gone: forget it.
  case forgetSeat
  /// The server called this spectator to their own tournament match.
  case matchReady
  /// The server was caught lying: write the evidence, leave the match and close.
  case keepEvidence(FairPlay.Evidence)
  /// The server could not save a pick (or a reveal) of this client: dispatch
  /// ``ClientAction/retryUnsaved`` in a while.
  case retryLater
  /// The match this client saw run ended: its own record, where records are kept.
  case saveRecord
  /// The player quits: forget the seat, send `leave`, and do not reconnect.
  case leave
}
