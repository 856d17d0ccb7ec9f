import RoshamboGame
import RoshamboProtocol

/// What happens to a player, as ``PlayerCore/handle(_:now:)`` takes it: from its
/// connection, its timers, its person (or bot) and its driver.
///
/// Invariant: an input says what happened, never what to do about it; the core decides.
public enum PlayerInput: Equatable, Sendable {
  /// Begin: the core asks for the first connection.
  case start
  /// Begin as a session whose server was just lost (an earlier session's connection
  /// ended): the first connection is tried, and tried again, under the reconnect policy.
  case startAfterLoss
  /// The connection asked for (``PlayerOutput/connect``) is up.
  case connected
  /// The connection asked for could not be made; why, in words.
  case connectFailed(String)
  /// A message from the server, decoded.
  case message(ServerMessage)
  /// The connection closed without the core asking (``PlayerOutput/close``); why, in
  /// words (nil: the server closed it cleanly).
  case closed(String?)
  /// The connection found the server breaking the protocol (a frame it cannot read, a
  /// flood) and closed; what was wrong, in words.
  case brokeProtocol(String)
  /// A timer the core scheduled came due.
  case timerFired(PlayerTimer)
  /// The person at the keys, or the bot, asks for something.
  case command(PlayerCommand)
  /// A fresh nonce (64 hex digits from a secure source) for a pick of `weapon` in a fair
  /// room, as ``PlayerOutput/makeNonce(_:)`` asked.
  case nonce(String, for: Weapon)
  /// A fresh nonce (64 hex digits from a secure source) for the next fair commitment, as
  /// ``PlayerOutput/drawNonce`` asked.
  case nonceDrawn(String)
  /// The evidence ``PlayerOutput/keepEvidence(_:)`` asked for was written at `path`.
  case evidenceSaved(path: String)
  /// A line for the player from the driver or the screen (a record saved, a question),
  /// or nil to clear it.
  case notice(String?)
  /// Time passed: the screen's countdown moves to `now`.
  case tick
}

/// What a player asks of its session.
///
/// Invariant: a command the state does not allow (a pick out of turn, a second pick for
/// the round) changes nothing and sends nothing.
public enum PlayerCommand: Equatable, Sendable {
  /// Pick `weapon` for the open round.
  case pick(Weapon)
  /// Ask for another match once this one is over.
  case rematch
  /// Leave: the seat is given up (the opponent wins a running match by forfeit).
  case leave
  /// Close the connection without leaving: the server holds the seat for its grace.
  case hangUp
  /// In the lobby: challenge `name` to a best of `bestOf` (nil: the server's default
  /// length), under `ruleset` (nil: the server's), fair (commit–reveal) or not.
  case challenge(String, bestOf: Int? = nil, ruleset: Ruleset.ID? = nil, fair: Bool)
  /// In the lobby: accept the challenge with this notice `id`.
  case accept(Int)
  /// In the lobby: decline the challenge with this notice `id`; `forTheEvening`: and
  /// every later one from the same person until the server restarts.
  case decline(Int, forTheEvening: Bool)
  /// In the lobby: ask for the record of finished match `match` (the answer is
  /// ``LobbyNews/record(_:)`` or ``LobbyNews/recordRefused(match:_:)``).
  case askRecord(Int)
  /// In the lobby: enter the tournament taking entries (its matches then start by
  /// themselves, on this connection).
  case enterTournament
  /// In the lobby: take the entry back; while the tournament runs, the matches it would
  /// still pair for this person go to their opponents at once (leaving the lobby while
  /// entered sends it first, so nobody waits out a grace for someone gone home).
  case withdrawFromTournament
}
