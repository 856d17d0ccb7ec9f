import RoshamboGame
import RoshamboProtocol

/// What a client holds: the latest view the server sent this seat (a replica, never
/// more than the server lets it see), the welcome, and its own context.
///
/// Invariant: `view` only ever comes from the server; local actions change `context`
/// (a pending pick, a notice, the clock), never the view.
public struct ClientState: Equatable, Sendable {
  public var view: RoomView?
  public var seq = -1
  public var room: String?
  public var seat: Seat?
  public var token: String?
  public var context = ClientContext()
  /// Rounds this client has sent a pick for in the current match (sent once each).
  public var pickedRounds: Set<Int> = []
  /// In a fair room: the secrets, what was shown, and the verdicts (``FairPlay``).
  public var fair = FairPlay()
  /// Whether the next view is checked for a pick this client sent that the server does
  /// not have, to send it again: set when a new connection replaced a lost one (the pick
  /// may have gone with it) or the server refused a pick it could not save, cleared by
  /// that view.
  public var checksLostPick = false

  public init() {}
}

extension ClientState {
  /// Whether a pick of `weapon` now makes sense: a seated player, the round open, this
  /// seat not chosen yet, the weapon in the ruleset.
  public func canPick(_ weapon: Weapon) -> Bool {
    guard isMyMove, let view else { return false }
    return Ruleset.named(view.ruleset).allows(weapon)
  }

  /// Whether this client holds a seat in a match that is running: quitting now gives the
  /// match up (the opponent wins by forfeit).
  public var isInRunningMatch: Bool {
    view?.phase == .choosing && view?.you != nil
  }

  /// Whether this client is a seated player whose pick for the open round is still to
  /// be made (and not already sent). Never once the server has been caught lying.
  public var isMyMove: Bool {
    guard let view, let you = view.you, view.phase == .choosing, fair.evidence == nil else {
      return false
    }
    return view.player(you)?.chosen == false && !pickedRounds.contains(view.round)
  }
}

extension ClientState {
  /// This client's own record of the match its view shows over, as it saw it (no id:
  /// the server numbers its records): `finishedAt` is when the client saw it end.
  public func ownRecord(finishedAt: Int64) -> FinishedMatch? {
    guard let view, view.phase == .over,
      let one = view.player(.one), let two = view.player(.two)
    else { return nil }
    return FinishedMatch(
      room: view.room, finishedAt: finishedAt, ruleset: view.ruleset.rawValue,
      bestOf: view.bestOf, players: [one.name, two.name], scores: [one.score, two.score],
      winner: view.winner.flatMap { view.player($0)?.name } ?? "?",
      forfeit: one.left || two.left, fair: view.fair, rounds: view.history)
  }
}
