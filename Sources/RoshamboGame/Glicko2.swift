#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A player's Glicko-2 rating: how strong they seem (`rating`, 1500 for a newcomer), how
/// sure that is (`deviation`, one standard deviation of it, in the same points) and how
/// erratic their results are (`volatility`).
///
/// Invariant: a rating ``Glicko2`` makes from valid ones is valid (``problem`` is nil:
/// finite, deviation and volatility above zero) and is a multiple of a millionth of a
/// point (a billionth for the volatility, ``kept``), so what is kept and what is
/// recomputed from the same history are the same bits.
public struct Glicko2Rating: Sendable, Hashable {
  public var rating: Double
  public var deviation: Double
  public var volatility: Double

  public init(rating: Double, deviation: Double, volatility: Double) {
    self.rating = rating
    self.deviation = deviation
    self.volatility = volatility
  }

  /// Someone who has finished no rated match: Glickman's starting values.
  public static let unrated = Glicko2Rating(rating: 1500, deviation: 350, volatility: 0.06)

  /// Above this deviation a rating is provisional (shown with "?"), as lichess marks one.
  public static let provisionalDeviation = 110.0

  /// Whether the rating is still too uncertain to mean much: a newcomer's, or one who has
  /// played few matches.
  public var isProvisional: Bool { deviation > Self.provisionalDeviation }

  /// The different opponents a player must have been rated against to be listed on a
  /// leaderboard (where a provisional rating ranks below every settled one): one
  /// opponent, or a pair of identities, cannot put anyone on it.
  public static let listedOpponents = 3

  /// The rating as it is kept: rounded to a millionth of a point (the volatility to a
  /// billionth), so a last-bit difference between two machines' `exp` and `log` never
  /// reaches what is stored.
  public var kept: Glicko2Rating {
    Glicko2Rating(
      rating: (rating * 1e6).rounded() / 1e6, deviation: (deviation * 1e6).rounded() / 1e6,
      volatility: (volatility * 1e9).rounded() / 1e9)
  }

  /// Why these numbers cannot be a rating (a file or database another program changed),
  /// or nil.
  public var problem: String? {
    guard rating.isFinite, deviation.isFinite, volatility.isFinite else {
      return
        "rating \(rating), deviation \(deviation), volatility \(volatility) are not all numbers"
    }
    guard deviation > 0, volatility > 0 else {
      return "deviation \(deviation) and volatility \(volatility) must be above 0"
    }
    guard abs(rating) < 1e6, deviation <= 1e4, volatility < 10 else {
      return "rating \(rating), deviation \(deviation) or volatility \(volatility) is far "
        + "beyond what any history can make"
    }
    return nil
  }
}

/// The Glicko-2 rating system, as Glickman's "Example of the Glicko-2 system" (glicko.net)
/// sets it out, with the Illinois algorithm for the new volatility.
///
/// A rating period here is one finished match, as lichess rates each game: both players
/// are rated from their ratings before it. There is no decay with time: a player's
/// deviation does not grow while they are away, so a rating is a pure function of the
/// matches in order, and recomputing it from the history gives the same bits.
///
/// Invariant: pure; the same ratings and results give the same new rating.
public struct Glicko2: Sendable, Equatable {
  /// The system constant τ: how much the volatility may change (0.3 to 1.2; smaller is
  /// steadier).
  public var tau: Double
  /// When the volatility's search stops (Glickman's ε).
  public var tolerance: Double

  public init(tau: Double = 0.5, tolerance: Double = 0.000_001) {
    self.tau = tau
    self.tolerance = tolerance
  }

  /// τ = 0.5, the value of Glickman's example.
  public static let standard = Glicko2()

  /// Glicko-2's points per unit of its own scale.
  public static let scale = 173.7178

  /// A game of a rating period: the opponent's rating before the period, and the score
  /// (1 a win, 0 a loss, ½ a draw).
  public struct Game: Sendable, Equatable {
    public var opponent: Glicko2Rating
    public var score: Double

    public init(opponent: Glicko2Rating, score: Double) {
      self.opponent = opponent
      self.score = score
    }
  }

  /// `player`'s rating after a rating period in which they played `games` (steps 2 to 8
  /// of Glickman's example). Not rounded (see ``Glicko2Rating/kept``).
  public func rated(_ player: Glicko2Rating, games: [Game]) -> Glicko2Rating {
    let mu = (player.rating - 1500) / Self.scale
    let phi = player.deviation / Self.scale
    let sigma = player.volatility
    guard !games.isEmpty else {
      // Step 6 alone: the deviation grows by the volatility for a period without games.
      let grown = (phi * phi + sigma * sigma).squareRoot()
      return Glicko2Rating(
        rating: player.rating, deviation: grown * Self.scale, volatility: sigma)
    }
    // Step 3: the estimated variance of the rating from the games alone; step 4: the
    // improvement the games suggest.
    var inverseVariance = 0.0
    var improvement = 0.0
    for game in games {
      let opponentMu = (game.opponent.rating - 1500) / Self.scale
      let g = Self.g(game.opponent.deviation / Self.scale)
      let expected = 1 / (1 + exp(-g * (mu - opponentMu)))
      inverseVariance += g * g * expected * (1 - expected)
      improvement += g * (game.score - expected)
    }
    let variance = 1 / inverseVariance
    let delta = variance * improvement
    // Step 5: the new volatility.
    let newSigma = volatility(sigma: sigma, phi: phi, variance: variance, delta: delta)
    // Steps 6 and 7: the deviation grown by the new volatility, then narrowed by the
    // games, and the rating moved.
    let grown = (phi * phi + newSigma * newSigma).squareRoot()
    let newPhi = 1 / (1 / (grown * grown) + 1 / variance).squareRoot()
    let newMu = mu + newPhi * newPhi * improvement
    // Step 8: back to the rating's own scale.
    return Glicko2Rating(
      rating: Self.scale * newMu + 1500, deviation: Self.scale * newPhi, volatility: newSigma)
  }

  /// The two ratings after a match `winner` won against `loser`, each from both ratings
  /// before it, as kept (``Glicko2Rating/kept``).
  public func afterMatch(winner: Glicko2Rating, loser: Glicko2Rating) -> (
    winner: Glicko2Rating, loser: Glicko2Rating
  ) {
    (
      rated(winner, games: [Game(opponent: loser, score: 1)]).kept,
      rated(loser, games: [Game(opponent: winner, score: 0)]).kept
    )
  }

  /// The most a settled player's rating moves, up or down, in a match against a
  /// provisional opponent: a newcomer's result says little, and a string of fresh
  /// identities must not carry anyone up or down the leaderboard.
  public static let provisionalOpponentLimit = 5.0

  /// The two seats' ratings after `match` (seat 1's, then seat 2's) from `before`, theirs
  /// before it. A match rates nothing, and the ratings stay, when it is not
  /// ``FinishedMatch/rated``, its winner is neither player (a room that lost a seat's
  /// name) or both seats have the same name. A settled player facing a provisional one
  /// moves at most ``provisionalOpponentLimit`` points.
  public func ratings(after match: FinishedMatch, before: [Glicko2Rating]) -> [Glicko2Rating] {
    guard match.rated, match.players.count == 2, before.count == 2,
      match.players[0] != match.players[1],
      let winner = match.players.firstIndex(of: match.winner)
    else { return before }
    let (won, lost) = afterMatch(winner: before[winner], loser: before[1 - winner])
    var after = winner == 0 ? [won, lost] : [lost, won]
    for seat in 0..<2 where !before[seat].isProvisional && before[1 - seat].isProvisional {
      let limit = Self.provisionalOpponentLimit
      let moved = after[seat].rating - before[seat].rating
      after[seat].rating = before[seat].rating + min(max(moved, -limit), limit)
      after[seat] = after[seat].kept
    }
    return after
  }

  /// Glickman's g(φ): how much an opponent's uncertainty dampens what a game says.
  private static func g(_ phi: Double) -> Double {
    1 / (1 + 3 * phi * phi / (Double.pi * Double.pi)).squareRoot()
  }

  /// Step 5: the volatility σ′ that solves Glickman's equation, by the Illinois
  /// algorithm (regula falsi that halves the stale side's value).
  private func volatility(sigma: Double, phi: Double, variance: Double, delta: Double)
    -> Double
  {
    let a = log(sigma * sigma)
    let phi2 = phi * phi
    let f = { (x: Double) -> Double in
      let ex = exp(x)
      let d = phi2 + variance + ex
      return ex * (delta * delta - phi2 - variance - ex) / (2 * d * d) - (x - a) / (tau * tau)
    }
    var lower = a
    var upper: Double
    if delta * delta > phi2 + variance {
      upper = log(delta * delta - phi2 - variance)
    } else {
      var k = 1.0
      while f(a - k * tau) < 0 { k += 1 }
      upper = a - k * tau
    }
    var fLower = f(lower)
    var fUpper = f(upper)
    // The bracket shrinks every step; the bound only guards against a pathological input.
    var steps = 0
    while abs(upper - lower) > tolerance, steps < 1_000 {
      steps += 1
      let c = lower + (lower - upper) * fLower / (fUpper - fLower)
      let fC = f(c)
      if fC * fUpper <= 0 {
        lower = upper
        fLower = fUpper
      } else {
        fLower /= 2
      }
      upper = c
      fUpper = fC
    }
    return exp(lower / 2)
  }
}

/// Every player's rating, folded over finished matches in the order they finished: what
/// the journal keeps, what a shared history keeps, and what recomputing either from its
/// matches gives.
///
/// Invariant: ``ratings`` holds exactly the players of the matches folded in (by name),
/// each with the rating after their last one; folding the same matches in the same
/// order from empty gives equal values, bit for bit.
public struct PlayerRatings: Sendable, Equatable {
  public private(set) var ratings: [String: Glicko2Rating]
  public let system: Glicko2

  public init(_ ratings: [String: Glicko2Rating] = [:], system: Glicko2 = .standard) {
    self.ratings = ratings
    self.system = system
  }

  /// The rating of `name` now (``Glicko2Rating/unrated`` for someone with no rated match).
  public subscript(name: String) -> Glicko2Rating { ratings[name] ?? .unrated }

  /// Folds `match` in; returns both seats' ratings after it (seat 1's, then seat 2's),
  /// unchanged when it rates nothing (``Glicko2/ratings(after:before:)``).
  @discardableResult
  public mutating func record(_ match: FinishedMatch) -> [Glicko2Rating] {
    let after = system.ratings(after: match, before: match.players.map { self[$0] })
    for (name, rating) in zip(match.players, after) { ratings[name] = rating }
    return after
  }

  /// Sets `name`'s rating (what a journal read back says it is).
  public mutating func set(_ name: String, _ rating: Glicko2Rating) { ratings[name] = rating }

  /// The ratings `matches` give, folded in order from nobody rated.
  public static func recomputed(
    from matches: some Sequence<FinishedMatch>, system: Glicko2 = .standard
  ) -> PlayerRatings {
    var ratings = PlayerRatings(system: system)
    for match in matches { ratings.record(match) }
    return ratings
  }
}
