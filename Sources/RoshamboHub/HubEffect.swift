import RoshamboGame

/// One thing the hub does because the rules accepted an action: what the next commit
/// records, which rooms' states go out, which clocks start or stop, what is logged.
/// ``HubReduction`` returns them as values; ``HubCore`` carries them out.
///
/// Invariant: no effect carries a weapon of a round that has not resolved.
package enum HubEffect: Equatable {
  /// The action goes into the next commit.
  case journal(LobbyAction)
  /// The finished match goes into the same commit (history and leaderboard).
  case recordMatch(FinishedMatch)
  /// The room's new state goes to everyone in it (once per flush).
  case sendState(room: String)
  /// Quick match moved a player: their connection follows them.
  case follow(LobbyEvent.Move)
  /// The room's round times out at `at`.
  case startDeadline(room: String, round: Int, at: Int64)
  /// A disconnected seat's grace runs out at `at`.
  case startGrace(room: String, seat: Seat, at: Int64)
  case cancelTimer(HubTimer)
  /// The room closed: what the hub kept of its seats goes.
  case forgetRoom(String)
  /// The tournament changed: a round to seat, or the next one to pair.
  case tournament(LobbyEvent.TournamentEvent)
  case log(GameLogLine)
}

/// A line of the game's log (``HubCore`` returns it as a ``HubLog`` at info level).
package enum GameLogLine: Equatable {
  /// A round resolved: its picks are public now.
  case round(room: String, RoundResult)
  case matchOver(FinishedMatch)
  case graceExpired(room: String, seat: Seat)
}
