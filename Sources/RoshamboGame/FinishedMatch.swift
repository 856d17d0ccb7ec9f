/// A finished match, kept for `roshambo-server history` and the leaderboard.
///
/// Invariant: `players` and `scores` hold seat 1 then seat 2; `winner` is one of
/// `players` (or "?" for a room that had lost a seat's name).
public struct FinishedMatch: Sendable, Equatable {
  public var room: String
  public var finishedAt: Int64
  public var ruleset: String
  public var bestOf: Int
  public var players: [String]
  public var scores: [Int]
  /// The winner's name.
  public var winner: String
  /// Whether the loser gave up (left or never came back).
  public var forfeit: Bool
  /// Whether the match was played by commit–reveal.
  public var fair: Bool

  public init(
    room: String, finishedAt: Int64, ruleset: String, bestOf: Int, players: [String],
    scores: [Int], winner: String, forfeit: Bool, fair: Bool
  ) {
    self.room = room
    self.finishedAt = finishedAt
    self.ruleset = ruleset
    self.bestOf = bestOf
    self.players = players
    self.scores = scores
    self.winner = winner
    self.forfeit = forfeit
    self.fair = fair
  }

  /// The finished match of `room`, which must be over; `forfeit` when the loser gave up.
  init(room: RoomState, at: Int64, forfeit: Bool) {
    let seats = Seat.allCases.map { room.seats[$0] }
    self.room = room.name
    self.finishedAt = at
    self.ruleset = room.settings.ruleset.rawValue
    self.bestOf = room.settings.bestOf
    self.players = seats.map { $0?.name ?? "?" }
    self.scores = seats.map { $0?.score ?? 0 }
    self.winner = room.winner.flatMap { room.seats[$0]?.name } ?? "?"
    self.forfeit = forfeit
    self.fair = room.settings.fair
  }
}
