import RoshamboGame
import RoshamboHub
import RoshamboJournalFormat

/// The journal as the simulation keeps it, under the real one's contract: a commit is
/// durable once it is answered, and not before; a crash loses what was not; a full disk
/// refuses commits and probes but still reads. Rows are kept as the real journal writes
/// them (``JournalFormat``), and a restarted hub's lobby is rebuilt from them by the real
/// replay (``JournalFormat/replay(_:onto:)``), as `roshambo-server` does after kill -9.
///
/// Invariant: ``rows`` holds exactly the actions of the commits answered with success,
/// in order; ``lobby`` is them replayed.
struct SimulatedJournal {
  private(set) var rows: [[UInt8]] = []
  /// Every finished match committed, in order.
  private(set) var matches: [FinishedMatch] = []
  /// Every player's rating, kept as each commit lands (as the real journal rates a
  /// commit's matches in it), never recomputed.
  private(set) var ratings = PlayerRatings()
  /// The rows replayed, kept as each commit lands (what a restart must rebuild exactly).
  private(set) var lobby: LobbyState
  /// The highest version each room ever had in what is durable (rooms close and go).
  private(set) var highestVersion: [String: Int] = [:]
  let defaults: RoomState.Settings
  /// While true, commits and probes fail.
  var diskFull = false

  init(defaults: RoomState.Settings) {
    self.defaults = defaults
    self.lobby = LobbyState(defaults: defaults)
  }

  /// Makes `commit` durable, or refuses it when the disk is full.
  mutating func commit(_ commit: JournalCommit) -> Result<Void, JournalFailure> {
    guard !diskFull else { return .failure(JournalFailure("No space left on device")) }
    // The rooms this commit's rows end, counted from the rooms themselves (not from the
    // batch's list of matches, which is what is checked).
    var ended: [String] = []
    for action in commit.actions {
      let row = JournalFormat.bytes(of: action)
      rows.append(row)
      var endsRoom: String?
      if case .room(let name, let roomAction) = action {
        if lobby.rooms[name]?.phase != .over { endsRoom = name }
        checkReveal(roomAction, in: name)
      }
      do {
        try JournalFormat.replay(row, onto: &lobby)
      } catch {
        // The live hub accepted it, so its replay must too: the invariant check names it.
        replayFailures.append("row \(rows.count): \(error)")
      }
      if let name = endsRoom, let room = lobby.rooms[name], room.phase == .over,
        let winner = room.winner
      {
        ended.append(name)
        // Whoever gave the match up (left, or not back within the grace) never wins it.
        if case .room(_, .left(let seat, _)) = action, winner == seat {
          matchFailures.append("\(name): seat \(seat.rawValue) left the match and won it")
        }
        if case .room(_, .graceExpired(let seat, _)) = action, winner == seat {
          matchFailures.append("\(name): seat \(seat.rawValue)'s grace ran out and it won")
        }
      }
    }
    for name in ended where commit.matches.count(where: { $0.room == name }) == 0 {
      matchFailures.append("room \(name)'s match ended in a commit that keeps no match of it")
    }
    for match in commit.matches {
      if let wrong = Self.unlikeTheRules(match) { matchFailures.append(wrong) }
    }
    matches += commit.matches
    for match in commit.matches {
      let before = match.players.map { ratings[$0] }
      ratings.record(match)
      let after = match.players.map { ratings[$0] }
      if let wrong = Self.wrongMove(match, before: before, after: after) {
        ratingMoveFailures.append(wrong)
      }
      if let wrong = Self.unlikeReference(match, before: before, after: after) {
        ratingValueFailures.append(wrong)
      }
    }
    for (name, room) in lobby.rooms {
      highestVersion[name] = max(highestVersion[name] ?? 0, room.version)
    }
    return .success(())
  }

  /// Rows whose replay the rules refused (a bug: the live hub accepted them).
  private(set) var replayFailures: [String] = []
  /// Rated matches whose ratings moved against what any rating must do.
  private(set) var ratingMoveFailures: [String] = []
  /// Each commitment kept and not yet revealed, by room, round and seat.
  private var commitments: [String: String] = [:]
  /// Reveals kept as matching their commitment that do not.
  private(set) var revealFailures: [String] = []

  /// A commitment is remembered; a reveal the hub kept as matching it is checked again
  /// here, from the rows alone (a dishonest player's other weapon must never count).
  private mutating func checkReveal(_ action: RoomAction, in room: String) {
    switch action {
    case .committed(let seat, let round, let digest, _):
      commitments["\(room) \(round) \(seat.rawValue)"] = digest
    case .revealed(let seat, let round, let weapon, let nonce, let matches, _):
      let digest = commitments.removeValue(forKey: "\(room) \(round) \(seat.rawValue)")
      guard matches else { return }
      let verified = digest.map {
        Commitment.verify($0, room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
      }
      if verified != true {
        revealFailures.append(
          "\(room) round \(round): seat \(seat.rawValue)'s reveal of \(weapon) was kept as "
            + "matching \(digest.map { "commitment \($0.prefix(12))…" } ?? "no commitment")")
      }
    default:
      break
    }
  }

  /// Matches whose record breaks the rules, and rooms whose end no match records.
  private(set) var matchFailures: [String] = []

  /// What in `match`'s record the rules forbid, checked from its own numbers: a match is
  /// won by reaching `bestOf / 2 + 1` rounds, and then it is no forfeit; one that is not
  /// a forfeit was won so, and its loser has fewer.
  static func unlikeTheRules(_ match: FinishedMatch) -> String? {
    guard match.players.count == 2, match.scores.count == 2,
      let winner = match.players.firstIndex(of: match.winner),
      match.players[0] != match.players[1]
    else { return nil }
    let needed = match.bestOf / 2 + 1
    let (won, lost) = (match.scores[winner], match.scores[1 - winner])
    let name = "\(match.players[0]) v \(match.players[1]) in \(match.room), \(match.scores)"
    if won >= needed, match.forfeit {
      return "\(name): won on the rounds (best of \(match.bestOf)) yet kept as a forfeit"
    }
    if !match.forfeit, won != needed || lost >= needed {
      return "\(name): no forfeit, yet not won by reaching \(needed) of best of \(match.bestOf)"
    }
    return nil
  }

  /// Rated matches whose new ratings are not the reference Glicko-2's.
  private(set) var ratingValueFailures: [String] = []

  /// The server's rule for a settled player against a provisional one, its constants
  /// written out here (not read from the rating code): a deviation of at most
  /// `settledDeviation` is settled, and such a player moves at most `provisionalMoveLimit`
  /// points against one above it.
  static let settledDeviation = 110.0
  static let provisionalMoveLimit = 5.0

  /// Whether seat `seat` was settled and its opponent provisional before the match.
  static func settledAgainstProvisional(_ before: [Glicko2Rating], seat: Int) -> Bool {
    before[seat].deviation <= settledDeviation && before[1 - seat].deviation > settledDeviation
  }

  /// How far a kept rating may be from the reference's: the kept ones are rounded to a
  /// millionth, and the two volatility searches stop at slightly different points.
  static let referenceTolerance = (points: 0.001, volatility: 0.000_001)

  /// What differs between the ratings a rated match gave its players and those
  /// ``ReferenceRating`` gives from the same ratings before it (each player's one game
  /// against the other's rating before), a settled player's move against a provisional
  /// opponent held to ``provisionalMoveLimit`` points.
  static func unlikeReference(
    _ match: FinishedMatch, before: [Glicko2Rating], after: [Glicko2Rating]
  ) -> String? {
    guard match.rated, match.players.count == 2, match.players[0] != match.players[1],
      let winner = match.players.firstIndex(of: match.winner)
    else { return nil }
    let reference = before.map {
      ReferenceRating(rating: $0.rating, deviation: $0.deviation, volatility: $0.volatility)
    }
    for seat in 0..<2 {
      var expected = reference[seat].after([
        (opponent: reference[1 - seat], score: seat == winner ? 1 : 0)
      ])
      if Self.settledAgainstProvisional(before, seat: seat) {
        let (moved, limit) = (expected.rating - before[seat].rating, Self.provisionalMoveLimit)
        expected.rating = before[seat].rating + min(max(moved, -limit), limit)
      }
      let kept = after[seat]
      let tolerance = referenceTolerance
      if abs(kept.rating - expected.rating) > tolerance.points
        || abs(kept.deviation - expected.deviation) > tolerance.points
        || abs(kept.volatility - expected.volatility) > tolerance.volatility
      {
        return "\(match.players[seat]) after \(match.players[0]) v \(match.players[1]) in "
          + "\(match.room): kept \(kept.rating) ±\(kept.deviation) σ \(kept.volatility), the "
          + "reference gives \(expected.rating) ±\(expected.deviation) σ \(expected.volatility)"
      }
    }
    return nil
  }

  /// What is wrong with how a match moved its two players' ratings, by properties that
  /// hold whatever the formula, checked without the rating code (its constants written
  /// out here): a rated match's winner does not go down nor its loser up; a player whose
  /// deviation was at most 110 (settled) moves at most 5 points against one above it
  /// (provisional); every deviation stays in (0, 350]; an unrated match moves nobody.
  static func wrongMove(
    _ match: FinishedMatch, before: [Glicko2Rating], after: [Glicko2Rating]
  ) -> String? {
    guard match.players.count == 2, match.players[0] != match.players[1] else { return nil }
    let name = "\(match.players[0]) v \(match.players[1]) in \(match.room)"
    guard match.rated else {
      return before == after ? nil : "unrated \(name) moved a rating"
    }
    guard let winner = match.players.firstIndex(of: match.winner) else { return nil }
    let loser = 1 - winner
    if after[winner].rating < before[winner].rating {
      return "\(name): the winner went down, \(before[winner].rating) to \(after[winner].rating)"
    }
    if after[loser].rating > before[loser].rating {
      return "\(name): the loser went up, \(before[loser].rating) to \(after[loser].rating)"
    }
    for seat in 0..<2 {
      if Self.settledAgainstProvisional(before, seat: seat),
        abs(after[seat].rating - before[seat].rating) > Self.provisionalMoveLimit + 1e-9
      {
        return "\(name): settled \(match.players[seat]) moved "
          + "\(after[seat].rating - before[seat].rating) against a provisional opponent"
      }
      if !(after[seat].deviation > 0 && after[seat].deviation <= 350) {
        return "\(name): \(match.players[seat])'s deviation is \(after[seat].deviation)"
      }
    }
    return nil
  }

  /// The lobby rebuilt from the rows alone, as a restarted server loads it.
  func rebuilt() throws -> LobbyState {
    var lobby = LobbyState(defaults: defaults)
    for row in rows { try JournalFormat.replay(row, onto: &lobby) }
    return lobby
  }

  /// The leaderboard's top and the latest matches, as the real journal counts and ranks
  /// them, with the ratings kept.
  func standings(leaders most: Int, recent: Int) -> ([LobbyView.Leader], [FinishedMatch]) {
    standings(leaders: most, recent: recent, ratings: ratings)
  }

  /// The same with `ratings` instead of the kept ones.
  func standings(leaders most: Int, recent: Int, ratings: PlayerRatings) -> (
    [LobbyView.Leader], [FinishedMatch]
  ) {
    var won: [String: Int] = [:]
    var lost: [String: Int] = [:]
    var byForfeit: [String: Int] = [:]
    var opponents: [String: Set<String>] = [:]
    for match in matches {
      if ratings.system.ratings(after: match, before: match.players.map { _ in .unrated })
        != [.unrated, .unrated]
      {
        opponents[match.players[0], default: []].insert(match.players[1])
        opponents[match.players[1], default: []].insert(match.players[0])
      }
      won[match.winner, default: 0] += 1
      if match.forfeit { byForfeit[match.winner, default: 0] += 1 }
      for player in match.players where player != match.winner { lost[player, default: 0] += 1 }
    }
    let names = Set(won.keys).union(lost.keys).sorted().filter {
      opponents[$0, default: []].count >= Glicko2Rating.listedOpponents
    }
    let leaders = LobbyView.Leader.ranked(
      names.map {
        LobbyView.Leader(
          name: $0, won: won[$0] ?? 0, lost: lost[$0] ?? 0, wonByForfeit: byForfeit[$0] ?? 0,
          rating: LobbyView.Rating(ratings[$0]))
      })
    return (Array(leaders.prefix(most)), Array(matches.suffix(recent).reversed()))
  }
}
