import RoshamboGame

/// Everything an arena found: its settings, each pairing's rounds, win rate, interval and
/// verdict, the ratings, and how fast it ran. The text report and `--json` are made from
/// it alone.
///
/// Invariant: `pairings` follows the schedule's order and each names two of `bots`;
/// the ratings are fitted from exactly the rounds the pairings counted.
public struct ArenaResult: Sendable {
  /// How the arena was run.
  public struct Settings: Sendable, Equatable {
    public var roundsPerGame: Int
    public var games: Int
    public var seed: UInt64
    public var test: SequentialTest.Parameters
    /// Pairings played at once.
    public var jobs: Int
    /// Rounds in one match on the server (a game is its matches played back to back).
    public var bestOf: Int?
    /// Where it played: "a server of its own" or the server's address.
    public var server: String

    public init(
      roundsPerGame: Int, games: Int, seed: UInt64, test: SequentialTest.Parameters, jobs: Int,
      bestOf: Int?, server: String
    ) {
      self.roundsPerGame = roundsPerGame
      self.games = games
      self.seed = seed
      self.test = test
      self.jobs = jobs
      self.bestOf = bestOf
      self.server = server
    }
  }

  /// One pairing's outcome.
  public struct Pairing: Sendable, Equatable {
    public var first: Int
    public var second: Int
    /// The counted rounds in each seat order (first bot in seat 1, then second bot).
    public var bySeatOrder: [PairingTally]
    /// The counted rounds as each bot's own connections saw them (first, second).
    public var seen: [BotTally]
    public var verdict: SequentialTest.Verdict
    public var decidedAfterRounds: Int?
    public var decidedAfterDecisive: Int?
    /// Rounds played past the verdict or the cap, not counted.
    public var uncounted: Int

    public init(_ referee: PairingReferee) {
      first = referee.pairing.first
      second = referee.pairing.second
      bySeatOrder = referee.tallies
      seen = referee.seen
      verdict = referee.test.verdict
      decidedAfterRounds = referee.decidedAfterRounds
      decidedAfterDecisive = referee.test.decidedAfter
      uncounted = referee.uncounted
    }

    public var total: PairingTally { bySeatOrder[0] + bySeatOrder[1] }
    /// The first bot's rate of the decisive rounds, with its 95% interval.
    public var winRate: WinRate { WinRate(wins: total.firstWins, losses: total.secondWins) }
  }

  /// How long programs' picks took (`exec:` bots), µs from asking to the answer: every
  /// pick but each process's first, and the first apart (it waits for the program to
  /// start).
  public struct PickTimes: Sendable, Equatable {
    public var picks: Int
    public var p50: Double
    public var p99: Double
    public var starts: Int
    public var firstP50: Double

    public init(sortedMicros: [Double], sortedFirstMicros: [Double] = []) {
      func at(_ q: Double, _ sorted: [Double]) -> Double {
        sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]
      }
      picks = sortedMicros.count
      p50 = at(0.5, sortedMicros)
      p99 = at(0.99, sortedMicros)
      starts = sortedFirstMicros.count
      firstP50 = at(0.5, sortedFirstMicros)
    }
  }

  public var bots: [String]
  public var settings: Settings
  public var pairings: [Pairing]
  public var ratings: BradleyTerry
  /// Wall time, s.
  public var seconds: Double
  /// Every round played, counted or not.
  public var roundsPlayed: Int
  public var programPicks: PickTimes?

  public init(
    bots: [String], settings: Settings, pairings: [Pairing], seconds: Double, roundsPlayed: Int,
    programPicks: PickTimes? = nil
  ) {
    self.bots = bots
    self.settings = settings
    self.pairings = pairings
    self.seconds = seconds
    self.roundsPlayed = roundsPlayed
    self.programPicks = programPicks
    var wins = Array(repeating: [Int](repeating: 0, count: bots.count), count: bots.count)
    for pairing in pairings {
      wins[pairing.first][pairing.second] += pairing.total.firstWins
      wins[pairing.second][pairing.first] += pairing.total.secondWins
    }
    ratings = BradleyTerry(wins: wins)
  }

  /// Rounds counted in every pairing.
  public var roundsCounted: Int { pairings.reduce(0) { $0 + $1.total.rounds } }
  public var roundsPerSecond: Double { seconds > 0 ? Double(roundsPlayed) / seconds : 0 }

  /// The row bot's win rate against the column bot (nil on the diagonal and for a pair
  /// that did not play).
  public func winRate(_ row: Int, against column: Int) -> WinRate? {
    for pairing in pairings {
      if pairing.first == row, pairing.second == column { return pairing.winRate }
      if pairing.second == row, pairing.first == column {
        let total = pairing.total
        return WinRate(wins: total.secondWins, losses: total.firstWins)
      }
    }
    return nil
  }

  /// The bots from the highest rating down (ties in their order).
  public var ranking: [Int] {
    bots.indices.sorted { a, b in
      ratings.strengths[a] != ratings.strengths[b]
        ? ratings.strengths[a] > ratings.strengths[b] : a < b
    }
  }
}
