import RoshamboGame
import RoshamboHub
import RoshamboJournal

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
    for action in commit.actions {
      let row = JournalFormat.bytes(of: action)
      rows.append(row)
      do {
        try JournalFormat.replay(row, onto: &lobby)
      } catch {
        // The live hub accepted it, so its replay must too: the invariant check names it.
        replayFailures.append("row \(rows.count): \(error)")
      }
    }
    matches += commit.matches
    for match in commit.matches { ratings.record(match) }
    for (name, room) in lobby.rooms {
      highestVersion[name] = max(highestVersion[name] ?? 0, room.version)
    }
    return .success(())
  }

  /// Rows whose replay the rules refused (a bug: the live hub accepted them).
  private(set) var replayFailures: [String] = []

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
