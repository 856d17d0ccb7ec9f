/// What an accepted room action did, as the rules decided it: the facts that the
/// server's journal, log, clocks and broadcast act on, so that none of them has to
/// compare the room before and after.
///
/// Invariants: every accepted action yields at least one event; no event carries a
/// weapon before its round resolves (`picked`, `committed` and `revealed` name only the
/// seat); `deadlineSet` and `deadlineCleared` follow the room's `deadline` exactly.
public enum RoomEvent: Sendable, Equatable {
  /// A player took `seat`.
  case seated(Seat, name: String)
  case spectatorJoined
  case spectatorLeft
  /// Both seats are held: a new match begins at round 1.
  case matchStarted
  /// The seat picked for the current round (which weapon stays hidden).
  case picked(Seat)
  /// In a fair room, the seat committed for the current round.
  case committed(Seat)
  /// In a fair room, the seat revealed; `matches`: whether it matched its commitment.
  case revealed(Seat, matches: Bool)
  case roundResolved(RoundResult)
  /// The match is over (won, or forfeited by a seat that gave up).
  case matchEnded(FinishedMatch)
  /// The current round now times out at `at` (ms since 1970).
  case deadlineSet(round: Int, at: Int64)
  /// The room no longer has a deadline.
  case deadlineCleared
  /// The seat's connection dropped; it is held until `endsAt`.
  case graceStarted(Seat, endsAt: Int64)
  /// The seat's player came back within the grace.
  case graceEnded(Seat)
  /// The seat's player left or let the grace run out.
  case gaveUp(Seat)
  case rematchAsked(Seat)
  /// The player alone in the room was taken out without a forfeit (quick match seats
  /// them elsewhere, see ``LobbyEvent/moved(_:)``).
  case released(Seat)
  /// The tournament this room belongs to moved on (a round of it ended, or it finished):
  /// nothing in the room changed, but a new version of it tells those still in it.
  case tournamentMovedOn
}
