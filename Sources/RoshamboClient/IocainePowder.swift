/// Iocaine Powder's meta-strategy (Dan Egnor's winner of the First International RoShamBo
/// Programming Competition, 1999), over predictions handed to it each round.
///
/// Each prediction is a position on the ``WeaponCycle``: either the opponent's next move
/// (P) or this player's own next move as the opponent would predict it (P′). Every
/// rotation of a prediction round the circle is a variant: with three weapons they are
/// exactly the original's six (P.0 beats the prediction, P.1 beats the opponent who
/// second-guesses P.0, P.2 the one who second-guesses P.1; P′.0–P′.2 likewise against the
/// opponent's prediction of this player), and with five every answer to a prediction is
/// among them. Every variant is scored on what it would have done (+1 a win, −1 a loss, 0 a
/// draw) under several decays, short memories to long; each decay backs its best variant,
/// and the decay whose choices have lately done best is followed.
/// When even that choice has not been winning, the player plays at random instead (the
/// original's hedge against being out-guessed).
///
/// Invariant: `choice` and every score depend only on the predictions and the opponent's
/// moves handed in, in order (no randomness), so a player rebuilt from the same rounds
/// reaches the same state.
struct IocainePowder: Sendable {
  /// How much of each score survives a round: from almost the whole match to the last
  /// couple of rounds, like the original's ages of 1,000 down to 1 round.
  static let decays: [Double] = [0.99, 0.9, 0.7, 0.5]
  /// How much of a decay's record of choices survives a round.
  static let choiceDecay = 0.9

  private let cycle: WeaponCycle
  private let variantCount: Int
  /// What each variant would play next (−1: its predictor has no prediction).
  private var moves: [Int]
  /// Per decay, per variant: the decayed sum of what it would have scored.
  private var scores: [Double]
  /// Per decay: the variant it backs (−1: none yet), and how its choices have done.
  private var backed: [Int]
  private var records: [Double]
  /// The move to play next, nil: play at random.
  private(set) var choice: Int?

  init(cycle: WeaponCycle, predictions: Int) {
    self.cycle = cycle
    variantCount = predictions * cycle.count
    moves = Array(repeating: -1, count: variantCount)
    scores = Array(repeating: 0, count: variantCount * Self.decays.count)
    backed = Array(repeating: -1, count: Self.decays.count)
    records = Array(repeating: 0, count: Self.decays.count)
  }

  /// Scores every variant, and every decay's choice, against the opponent's move of the
  /// round just played.
  mutating func score(theirs: Int) {
    for (d, decay) in Self.decays.enumerated() {
      let base = d * variantCount
      for variant in 0..<variantCount {
        let move = moves[variant]
        scores[base + variant] =
          scores[base + variant] * decay + (move >= 0 ? Double(cycle.payoff(move, theirs)) : 0)
      }
      let choice = backed[d]
      records[d] =
        records[d] * Self.choiceDecay
        + (choice >= 0 ? Double(cycle.payoff(moves[choice], theirs)) : 0)
    }
  }

  /// Takes the predictions for the next round (nil: a predictor with nothing to say yet),
  /// in the same order every round, and decides the next move.
  mutating func propose(_ predictions: [Int?]) {
    let k = cycle.count
    for (index, prediction) in predictions.enumerated() {
      for rotation in 0..<k {
        // Rotation 1 first, so that among equal scores "beat the prediction" wins.
        moves[index * k + rotation] = prediction.map { ($0 + 1 + rotation) % k } ?? -1
      }
    }
    var bestDecay = -1
    for d in Self.decays.indices {
      let base = d * variantCount
      var best = -1
      for variant in 0..<variantCount where moves[variant] >= 0 {
        if best < 0 || scores[base + variant] > scores[base + best] { best = variant }
      }
      backed[d] = best
      if best >= 0, bestDecay < 0 || records[d] > records[bestDecay] { bestDecay = d }
    }
    guard bestDecay >= 0, scores[bestDecay * variantCount + backed[bestDecay]] > 0 else {
      choice = nil
      return
    }
    choice = moves[backed[bestDecay]]
  }
}
