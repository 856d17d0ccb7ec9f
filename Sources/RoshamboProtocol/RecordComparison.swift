import RoshamboGame

/// Where two records of one match disagree: a player's own (what their client saw) and
/// the server's (what it published). Names are compared as given.
///
/// Invariant: ``differences(_:_:)`` is empty exactly when the two records hold the same
/// room, players, scores, winner, forfeit and rounds (times and ids aside).
public enum RecordComparison {
  public static func differences(_ mine: FinishedMatch, _ theirs: FinishedMatch) -> [String] {
    var found: [String] = []
    func quoted(_ text: String) -> String { "\"\(UntrustedText.escaped(text))\"" }
    if mine.room != theirs.room {
      found.append("the room: \(quoted(mine.room)) and \(quoted(theirs.room))")
    }
    if mine.players != theirs.players {
      found.append(
        "the players: \(mine.players.map(quoted).joined(separator: ", ")) and "
          + theirs.players.map(quoted).joined(separator: ", "))
    }
    if mine.scores != theirs.scores {
      found.append(
        "the scores: \(mine.scores[0])–\(mine.scores[1]) and \(theirs.scores[0])–\(theirs.scores[1])"
      )
    }
    if mine.winner != theirs.winner || mine.forfeit != theirs.forfeit {
      found.append("the winner: \(quoted(mine.winner)) and \(quoted(theirs.winner))")
    }
    let strip = { (rounds: [RoundResult]?) in
      (rounds ?? []).map { round -> RoundResult in
        var round = round
        round.at = nil
        return round
      }
    }
    let (a, b) = (strip(mine.rounds), strip(theirs.rounds))
    let byNumber = Dictionary(b.map { ($0.round, $0) }, uniquingKeysWith: { first, _ in first })
    for round in a {
      guard let other = byNumber[round.round] else {
        found.append("round \(round.round) is only in the first")
        continue
      }
      if round != other { found.append("round \(round.round): " + describe(round, other)) }
    }
    let numbers = Set(a.map(\.round))
    for round in b where !numbers.contains(round.round) {
      found.append("round \(round.round) is only in the second")
    }
    return found
  }

  private static func describe(_ a: RoundResult, _ b: RoundResult) -> String {
    var parts: [String] = []
    for seat in Seat.allCases {
      if a.weapon(of: seat) != b.weapon(of: seat) {
        parts.append(
          "seat \(seat.rawValue) played \(a.weapon(of: seat)?.rawValue ?? "nothing") in one, "
            + "\(b.weapon(of: seat)?.rawValue ?? "nothing") in the other")
      }
      if a.commitment(of: seat) != b.commitment(of: seat) {
        parts.append("seat \(seat.rawValue)'s commitment differs")
      }
      if a.nonce(of: seat) != b.nonce(of: seat) {
        parts.append("seat \(seat.rawValue)'s nonce differs")
      }
    }
    if a.winner != b.winner { parts.append("the winner differs") }
    if a.reason != b.reason, parts.isEmpty { parts.append("the reason differs") }
    return parts.joined(separator: "; ")
  }
}
