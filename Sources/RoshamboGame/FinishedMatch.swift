/// A finished match as it is kept: for `roshambo-server history`, the leaderboard, and
/// the match record anyone can replay and check (`roshambo replay`, `roshambo verify`).
///
/// Invariants: `players` and `scores` hold seat 1 then seat 2; `winner` is one of
/// `players` (or "?" for a room that had lost a seat's name); `rounds`, when kept, are
/// resolved rounds only, in order, at most ``roundLimit`` of them (the latest).
public struct FinishedMatch: Sendable, Equatable {
  /// The match's number on the server that kept it: stable for as long as the match is
  /// kept; nil until the journal has kept it (and in a record a client saved itself).
  public var id: Int64?
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
  /// Whether the match moves its players' ratings (``RatingRule`` decides it when the
  /// match ends; a match kept before ratings had rules was rated).
  public var rated: Bool
  /// The player identity holding each seat's name when the match ended (seat 1's, then
  /// seat 2's; nil for a keyless player): what a fleet's shared history rates, so that a
  /// name used by someone else on another server rates its own player.
  public var identities: [String?] = [nil, nil]
  /// The match's rounds, in order; nil for a match kept before rounds were (an older
  /// release's). A match of more than ``roundLimit`` rounds keeps its last ones (rounds
  /// keep their numbers, so what is missing shows).
  public var rounds: [RoundResult]?

  /// Rounds a match keeps: what a room holds of its history.
  public static let roundLimit = RoomView.historyLimit

  public init(
    id: Int64? = nil, room: String, finishedAt: Int64, ruleset: String, bestOf: Int,
    players: [String], scores: [Int], winner: String, forfeit: Bool, fair: Bool,
    rated: Bool = true, rounds: [RoundResult]? = nil
  ) {
    self.id = id
    self.room = room
    self.finishedAt = finishedAt
    self.ruleset = ruleset
    self.bestOf = bestOf
    self.players = players
    self.scores = scores
    self.winner = winner
    self.forfeit = forfeit
    self.fair = fair
    self.rated = rated
    self.rounds = rounds
  }

  /// The finished match of `room`, which must be over; `forfeit` when the loser gave up.
  /// Not rated until the server's ``RatingRule`` says it is: the room does not know who
  /// its players are beyond their names.
  init(room: RoomState, at: Int64, forfeit: Bool) {
    let seats = Seat.allCases.map { room.seats[$0] }
    self.id = nil
    self.room = room.name
    self.finishedAt = at
    self.ruleset = room.settings.ruleset.rawValue
    self.bestOf = room.settings.bestOf
    self.players = seats.map { $0?.name ?? "?" }
    self.scores = seats.map { $0?.score ?? 0 }
    self.winner = room.winner.flatMap { room.seats[$0]?.name } ?? "?"
    self.forfeit = forfeit
    self.fair = room.settings.fair
    self.rated = false
    self.rounds = room.history
  }

  /// Whether a round of the match was played (resolved), as far as what is kept shows.
  public var hadRound: Bool {
    if let rounds, !rounds.isEmpty { return true }
    return scores.contains { $0 > 0 }
  }

  /// Whether every round of the match is kept: rounds kept, from round 1.
  public var hasEveryRound: Bool {
    guard let rounds else { return false }
    return rounds.first.map { $0.round == 1 } ?? true
  }
}
