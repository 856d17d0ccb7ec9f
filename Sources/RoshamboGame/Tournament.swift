/// A tournament the server runs for its lobby: entries, then rounds of matches the
/// server pairs and seats, until a champion. Round robin (everyone meets everyone once),
/// single elimination (a bracket; byes so that the second round is a power of two) or
/// Swiss (⌈log2 n⌉ rounds, players of equal points paired, no rematch while one can be
/// avoided). A value: pairing is a pure function of the results so far, so replaying the
/// journal pairs the same rounds.
///
/// Invariants: entrants' names are unique and at most ``maxEntrants``; every pairing of
/// a finished round has a winner; a player is in at most one pairing per round; the
/// withdrawn are entrants, each once.
public struct Tournament: Sendable, Equatable {
  public enum Kind: String, Sendable, CaseIterable {
    case roundRobin = "round-robin"
    case singleElimination = "single-elimination"
    case swiss
  }

  public enum Phase: String, Sendable {
    /// Taking entries.
    case entry
    case running
    case finished
  }

  /// Two players meeting in a round (a match in `room`), or one player with a bye.
  public struct Pairing: Sendable, Equatable {
    /// One name for a bye, two for a match (seat 1 then seat 2).
    public var players: [String]
    /// The match's room (nil for a bye).
    public var room: String?
    /// Who took it (a bye's player at once); nil while it is played.
    public var winner: String?
    /// Rounds won by seat 1 and seat 2 (a bye: none).
    public var scores: [Int]
    /// Whether its loser forfeited by not coming back within the grace period (they were
    /// away), rather than on the rounds or by leaving.
    public var graceRanOut = false

    public init(players: [String], room: String?, winner: String? = nil, scores: [Int] = []) {
      self.players = players
      self.room = room
      self.winner = winner
      self.scores = scores
    }

    public var isBye: Bool { players.count == 1 }
  }

  /// A line of the standings.
  public struct Standing: Sendable, Equatable {
    public var name: String
    /// Matches won (a bye counts as one).
    public var wins: Int
    public var losses: Int
    /// The tie-break: rounds won minus rounds lost over all matches.
    public var roundDifference: Int
    /// In single elimination, whether they are still in.
    public var alive: Bool
    /// Whether they withdrew while it ran: their matches from then on are walkovers for
    /// their opponents (extension field).
    public var withdrawn: Bool
    /// How many of their losses were forfeits for not coming back in time (extension).
    public var lostAway: Int

    public init(
      name: String, wins: Int, losses: Int, roundDifference: Int, alive: Bool,
      withdrawn: Bool = false, lostAway: Int = 0
    ) {
      self.lostAway = lostAway
      self.name = name
      self.wins = wins
      self.losses = losses
      self.roundDifference = roundDifference
      self.alive = alive
      self.withdrawn = withdrawn
    }
  }

  /// The most entrants a tournament takes.
  public static let maxEntrants = 64

  public var kind: Kind
  /// How its matches are played (best of, ruleset, fair, clocks).
  public var settings: RoomState.Settings
  public var phase: Phase
  /// In order of entry: the seeding.
  public var entrants: [String]
  /// Entrants who withdrew once it was running, in the order they did: they stay in the
  /// pairings (so the rounds are the same), each of their matches a walkover.
  public var withdrawn: [String] = []
  /// The rounds paired so far, in order.
  public var rounds: [[Pairing]]
  public var champion: String?
  /// Tells this tournament's rooms from an earlier one's (`cup-N-R-M`).
  public var number: Int

  public init(kind: Kind, settings: RoomState.Settings, number: Int = 1) {
    self.kind = kind
    self.settings = settings
    self.phase = .entry
    self.entrants = []
    self.rounds = []
    self.champion = nil
    self.number = number
  }

  /// How many rounds it plays with its entrants: n − 1 for round robin (n for an odd n),
  /// ⌈log2 n⌉ for single elimination and Swiss.
  public var roundCount: Int {
    let n = entrants.count
    guard n >= 2 else { return 0 }
    switch kind {
    case .roundRobin: return n % 2 == 0 ? n - 1 : n
    case .singleElimination, .swiss: return log2ceil(n)
    }
  }

  /// Whether every pairing of the latest round has a winner.
  public var roundIsOver: Bool {
    rounds.last.map { $0.allSatisfy { $0.winner != nil } } ?? true
  }

  /// The room a match of round `round` (1-based), pairing `index`, is played in.
  public func room(round: Int, index: Int) -> String {
    "cup-\(number)-\(round)-\(index + 1)"
  }

  /// Whether `name` is a tournament room's name (`cup-N-R-M`): only the server makes them.
  public static func isTournamentRoom(_ name: String) -> Bool {
    // Asked for every state a room sends: most rooms are not, and say so at once.
    guard name.utf8.starts(with: "cup-".utf8) else { return false }
    let parts = name.split(separator: "-", omittingEmptySubsequences: false)
    return parts.count == 4 && parts[0] == "cup"
      && parts.dropFirst().allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
  }

  // MARK: - Standings

  /// Everyone's wins, losses and tie-break so far, best first (ties by entry order).
  public var standings: [Standing] {
    var table = Dictionary(
      uniqueKeysWithValues: entrants.map {
        (
          $0,
          Standing(
            name: $0, wins: 0, losses: 0, roundDifference: 0, alive: true,
            withdrawn: withdrawn.contains($0))
        )
      })
    for round in rounds {
      for pairing in round {
        guard let winner = pairing.winner else { continue }
        table[winner]?.wins += 1
        for (seat, name) in pairing.players.enumerated() where pairing.scores.count == 2 {
          table[name]?.roundDifference += pairing.scores[seat] - pairing.scores[1 - seat]
        }
        for loser in pairing.players where loser != winner {
          table[loser]?.losses += 1
          if pairing.graceRanOut { table[loser]?.lostAway += 1 }
          table[loser]?.alive = false
        }
      }
    }
    let order = Dictionary(uniqueKeysWithValues: entrants.enumerated().map { ($1, $0) })
    return table.values.sorted { a, b in
      if kind == .singleElimination, a.alive != b.alive { return a.alive }
      if a.wins != b.wins { return a.wins > b.wins }
      if a.roundDifference != b.roundDifference { return a.roundDifference > b.roundDifference }
      return order[a.name]! < order[b.name]!
    }
  }

  // MARK: - Pairing

  /// The pairings of the next round, from the entrants and the results so far (rooms
  /// named by ``room(round:index:)``; a bye already won, and none for one who withdrew).
  /// Empty when no round is left.
  public func nextRound() -> [Pairing] {
    let round = rounds.count + 1
    guard round <= roundCount else { return [] }
    let pairs: [[String]]
    switch kind {
    // A withdrawn player's scheduled bye is no pairing: it would be a free win.
    case .roundRobin:
      pairs = roundRobinPairs(round: round).filter { $0.count == 2 || !withdrawn.contains($0[0]) }
    case .singleElimination: pairs = eliminationPairs(round: round)
    case .swiss: pairs = swissPairs()
    }
    var index = 0
    return pairs.map { players in
      if players.count == 1 { return Pairing(players: players, room: nil, winner: players[0]) }
      defer { index += 1 }
      return Pairing(players: players, room: room(round: round, index: index))
    }
  }

  /// The circle method: the first entrant stays, the others turn one place a round; with
  /// an odd count a bye takes the place of a missing player.
  private func roundRobinPairs(round: Int) -> [[String]] {
    var circle: [String?] = entrants
    if circle.count % 2 == 1 { circle.append(nil) }
    let n = circle.count
    let rest = Array(circle.dropFirst())
    let turned = (0..<(n - 1)).map { rest[($0 + round - 1) % (n - 1)] }
    let order = [circle[0]] + turned
    var pairs: [[String]] = []
    for i in 0..<(n / 2) {
      let (a, b) = (order[i], order[n - 1 - i])
      switch (a, b) {
      case (let a?, let b?): pairs.append([a, b])
      case (let a?, nil), (nil, let a?): pairs.append([a])
      default: break
      }
    }
    return pairs
  }

  /// Round 1: the top seeds get byes so that round 2 holds a power of two, the others
  /// meet highest against lowest; later rounds: the winners of the round before, in
  /// bracket order, two by two.
  private func eliminationPairs(round: Int) -> [[String]] {
    guard round > 1 else {
      let n = entrants.count
      let size = 1 << log2ceil(n)
      let byes = size - n
      let playing = Array(entrants.dropFirst(byes))
      var pairs = entrants.prefix(byes).map { [$0] }
      for i in 0..<(playing.count / 2) {
        pairs.append([playing[i], playing[playing.count - 1 - i]])
      }
      return pairs
    }
    let winners = rounds[round - 2].compactMap(\.winner)
    return stride(from: 0, to: winners.count - 1, by: 2).map { [winners[$0], winners[$0 + 1]] }
  }

  /// Players in order of the standings; each takes the next one below not met yet (a
  /// search that backtracks, so no rematch while a pairing without one exists); with an
  /// odd count the lowest-ranked player still playing who has had no bye gets one (one who
  /// withdrew only when nobody else can: their matches are walkovers, a bye a free win).
  private func swissPairs() -> [[String]] {
    var ranked = standings.map(\.name)
    var pairs: [[String]] = []
    if ranked.count % 2 == 1 {
      let hadBye = Set(rounds.flatMap { $0.filter(\.isBye).flatMap(\.players) })
      let playing = ranked.filter { !withdrawn.contains($0) }
      let bye =
        playing.last { !hadBye.contains($0) } ?? ranked.last { !hadBye.contains($0) }
        ?? ranked.last!
      ranked.removeAll { $0 == bye }
      pairs.append([bye])
    }
    let met = Set(
      rounds.flatMap { $0.filter { !$0.isBye }.map { Set($0.players) } })
    func pair(_ left: [String]) -> [[String]]? {
      guard let first = left.first else { return [] }
      for (offset, other) in left.dropFirst().enumerated()
      where !met.contains([first, other]) {
        var rest = Array(left.dropFirst())
        rest.remove(at: offset)
        if let tail = pair(rest) { return [[first, other]] + tail }
      }
      return nil
    }
    // No pairing without a rematch: take them in order.
    let matches =
      pair(ranked)
      ?? stride(from: 0, to: ranked.count - 1, by: 2).map { [ranked[$0], ranked[$0 + 1]] }
    return matches + pairs
  }
}

/// ⌈log2 n⌉ for n ≥ 1.
func log2ceil(_ n: Int) -> Int {
  var bits = 0
  while (1 << bits) < n { bits += 1 }
  return bits
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Tournament {
  /// Where this tournament stands, for the players and spectators of `room`: nil unless
  /// it is one of this tournament's rooms (`cup-N-R-M`, N its number). `startsAt`: when
  /// the next round is paired, if it is known.
  public func stage(ofRoom room: String, startsAt: Int64?) -> RoomView.TournamentStage? {
    guard Self.isTournamentRoom(room),
      room.split(separator: "-").dropFirst().first.flatMap({ Int($0) }) == number
    else { return nil }
    return RoomView.TournamentStage(
      kind: kind, phase: phase, round: rounds.count, rounds: roundCount,
      startsAt: phase == .running ? startsAt : nil,
      byes: (rounds.last ?? []).filter(\.isBye).flatMap(\.players), champion: champion)
  }
}
