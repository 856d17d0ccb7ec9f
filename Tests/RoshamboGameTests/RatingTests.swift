import PropertyBased
import RoshamboGame
import Testing

/// Glicko-2 as the leaderboard rates players: Glickman's published example, the
/// properties a rating must keep, and the fold over a history.
@Suite("Ratings: Glicko-2")
struct RatingTests {
  /// Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf): a player
  /// rated 1500, RD 200, σ 0.06 beats a 1400 (RD 30), loses to a 1550 (RD 100) and to a
  /// 1700 (RD 300), with τ = 0.5: r′ = 1464.06, RD′ = 151.52, σ′ = 0.05999 (the paper
  /// rounds its intermediate steps; unrounded, as other implementations also give,
  /// 1464.0507, 151.5165, 0.0599960).
  @Test("Glickman's worked example, to the published precision")
  func glickmanExample() {
    let player = Glicko2Rating(rating: 1500, deviation: 200, volatility: 0.06)
    let games = [
      Glicko2.Game(opponent: .init(rating: 1400, deviation: 30, volatility: 0.06), score: 1),
      Glicko2.Game(opponent: .init(rating: 1550, deviation: 100, volatility: 0.06), score: 0),
      Glicko2.Game(opponent: .init(rating: 1700, deviation: 300, volatility: 0.06), score: 0),
    ]
    let rated = Glicko2(tau: 0.5).rated(player, games: games)
    #expect(abs(rated.rating - 1464.06) < 0.01, "\(rated.rating)")
    #expect(abs(rated.deviation - 151.52) < 0.01, "\(rated.deviation)")
    #expect(abs(rated.volatility - 0.05999) < 0.00001, "\(rated.volatility)")
    // On Glicko-2's own scale, as the paper states them: μ′ = −0.2069, φ′ = 0.8722.
    #expect(abs((rated.rating - 1500) / Glicko2.scale - -0.2069) < 0.0001)
    #expect(abs(rated.deviation / Glicko2.scale - 0.8722) < 0.0001)
    // Unrounded.
    #expect(abs(rated.rating - 1464.0507) < 0.0001, "\(rated.rating)")
    #expect(abs(rated.deviation - 151.5165) < 0.0001, "\(rated.deviation)")
    #expect(abs(rated.volatility - 0.059996) < 0.000001, "\(rated.volatility)")
  }

  /// A rating drawn from what a history can make.
  static let rating = zip(
    Gen.double(in: 800...2_200), Gen.double(in: 45...350), Gen.double(in: 0.04...0.09)
  ).map { Glicko2Rating(rating: $0, deviation: $1, volatility: $2).kept }

  @Test("a win never lowers a rating, and a loss never raises one")
  func winsRaise() async {
    await propertyCheck(count: 500, input: Self.rating, Self.rating) { winner, loser in
      let after = Glicko2.standard.afterMatch(winner: winner, loser: loser)
      #expect(after.winner.rating >= winner.rating)
      #expect(after.loser.rating <= loser.rating)
      #expect(after.winner.problem == nil && after.loser.problem == nil)
    }
  }

  @Test("deviation shrinks with each match against a near opponent, to below provisional")
  func deviationShrinks() async {
    // Opponents within 200 points; results at random. (Against someone a thousand points
    // away a match says almost nothing, and the volatility then widens the deviation a
    // little, as Glicko-2 means it to.)
    let opponents = zip(
      Gen.double(in: -200...200), Gen.double(in: 45...350), Gen.bool
    ).array(of: 20...20)
    await propertyCheck(count: 200, input: opponents) { games in
      var me = Glicko2Rating.unrated
      for (offset, deviation, won) in games {
        let opponent = Glicko2Rating(
          rating: me.rating + offset, deviation: deviation, volatility: 0.06)
        let after =
          won
          ? Glicko2.standard.afterMatch(winner: me, loser: opponent).winner
          : Glicko2.standard.afterMatch(winner: opponent, loser: me).loser
        if me.deviation > 90 { #expect(after.deviation < me.deviation, "\(me) → \(after)") }
        me = after
      }
      #expect(!me.isProvisional, "after 20 matches: \(me)")
    }
  }

  @Test("symmetric results keep the total: exactly between two, nearly among many")
  func symmetricTotals() async {
    // Two players, whatever they win: their ratings stay mirrored around 1500.
    await propertyCheck(count: 200, input: Gen.bool.array(of: 1...40)) { results in
      var ratings = PlayerRatings()
      for aliceWins in results {
        ratings.record(Self.match(aliceWins ? "Alice" : "Bob", aliceWins ? "Bob" : "Alice"))
      }
      let total = ratings["Alice"].rating + ratings["Bob"].rating
      #expect(abs(total - 3_000) < 1e-5 * Double(results.count), "\(total)")
      #expect(abs(ratings["Alice"].deviation - ratings["Bob"].deviation) < 1e-5)
    }
    // Eight players; every pairing played twice, each winning once: the total moves
    // (Glicko-2 is not zero-sum when deviations differ) but little.
    let pairings = zip(Gen.int(in: 0...7), Gen.int(in: 1...7)).array(of: 30...30)
    await propertyCheck(count: 100, input: pairings) { pairs in
      var ratings = PlayerRatings()
      for (first, step) in pairs {
        let (one, two) = ("P\(first)", "P\((first + step) % 8)")
        ratings.record(Self.match(one, two))
        ratings.record(Self.match(two, one))
      }
      let total = (0..<8).map { ratings["P\($0)"].rating }.reduce(0, +)
      // Seen at 41 on one random draw: a wrong sign or an unsymmetric update moves it by
      // hundreds.
      #expect(abs(total / 8 - 1_500) < 80, "mean \(total / 8)")
    }
  }

  @Test("the same matches in the same order give the same bits; a match may rate nothing")
  func foldIsExact() {
    var generator = SplitMix64(seed: 40)
    let names = (0..<12).map { "P\($0)" }
    let matches = (0..<500).map { _ in
      let one = names.randomElement(using: &generator)!
      let two = names.filter { $0 != one }.randomElement(using: &generator)!
      return Self.match(one, two)
    }
    let first = PlayerRatings.recomputed(from: matches)
    let second = PlayerRatings.recomputed(from: matches)
    #expect(first == second)
    for name in names {
      let (a, b) = (first[name], second[name])
      #expect(
        [a.rating, a.deviation, a.volatility].map(\.bitPattern)
          == [b.rating, b.deviation, b.volatility].map(\.bitPattern))
      // Kept to a millionth (a billionth for the volatility).
      #expect(a == a.kept)
    }
    // Another order is another history.
    #expect(PlayerRatings.recomputed(from: matches.reversed()) != first)
    // A match against oneself, or whose winner is neither player, rates nobody.
    var ratings = first
    ratings.record(Self.match("P1", "P1"))
    var lost = Self.match("P2", "P3")
    lost.winner = "?"
    ratings.record(lost)
    #expect(ratings["P1"] == first["P1"] && ratings["P2"] == first["P2"])
    #expect(ratings["P3"] == first["P3"])
  }

  @Test("a newcomer is provisional, shown with a question mark; a settled rating with ±")
  func shown() {
    #expect(Glicko2Rating.unrated.isProvisional)
    #expect(LobbyView.Rating(.unrated).text == "1500?")
    #expect(LobbyView.Rating(points: 1_622.5, deviation: 47.6).text == "1623 ±48")
    #expect(LobbyView.Rating(points: 1_499.4, deviation: 110).text == "1499 ±110")
    #expect(LobbyView.Rating(points: 1_499.4, deviation: 110.000001).text == "1499?")
    #expect(Glicko2Rating(rating: .nan, deviation: 50, volatility: 0.06).problem != nil)
    #expect(Glicko2Rating(rating: 1_500, deviation: -3, volatility: 0.06).problem != nil)
    #expect(Glicko2Rating(rating: 1_500, deviation: 50, volatility: 0).problem != nil)
    #expect(Glicko2Rating.unrated.problem == nil)
  }

  @Test("the leaderboard's order: settled first, by rating, then the surer, then wins")
  func ranking() {
    func leader(_ name: String, _ points: Double?, _ deviation: Double = 60, won: Int = 0)
      -> LobbyView.Leader
    {
      LobbyView.Leader(
        name: name, won: won, lost: 0,
        rating: points.map { LobbyView.Rating(points: $0, deviation: deviation) })
    }
    let ranked = LobbyView.Leader.ranked([
      leader("old", nil, won: 50), leader("Cy", 1_600, 80), leader("Bo", 1_600, 40),
      leader("Di", 1_650), leader("Al", 1_600, 40, won: 3), leader("Ed", 1_600, 40, won: 3),
      leader("new", 1_662, 290, won: 1), leader("lucky", 1_700, 200, won: 2),
    ])
    #expect(ranked.map(\.name) == ["Di", "Al", "Ed", "Bo", "Cy", "lucky", "new", "old"])
  }

  /// A one-round match `winner` won against `loser`.
  static func match(_ winner: String, _ loser: String) -> FinishedMatch {
    FinishedMatch(
      room: "den", finishedAt: 0, ruleset: "classic", bestOf: 1, players: [winner, loser],
      scores: [1, 0], winner: winner, forfeit: false, fair: false)
  }
}
