import RoshamboGame

/// A de Bruijn sequence B(k, n) over a ruleset's weapons: a cycle of kⁿ picks in which
/// every run of n weapons comes exactly once. Played in order it leaves a predictor that
/// looks back fewer than n picks nothing to learn over a period (after any shorter run each
/// weapon comes equally often), and misleads one that counts: what has followed a run least
/// often so far is what is most likely to follow it next.
///
/// The sequence is a seeded random one, not the lexicographically least (whose start is n
/// rocks in a row and whose middle is orderly enough for a Markov predictor to come out a
/// tenth of the rounds ahead before the period is out): an Euler circuit of the de Bruijn graph
/// (one node per run of n − 1 weapons, one edge per weapon that can follow it), leaving
/// each node by its edges in a shuffled order.
///
/// Invariant: `weapons.count` is kⁿ, and each of the kⁿ runs of n weapons starts at
/// exactly one position of the cycle (reading on from the end into the start).
struct DeBruijnSequence: Sendable {
  /// The run length n.
  let order: Int
  /// One period of the sequence.
  let weapons: [Weapon]

  /// B(3, 6) for rock, paper, scissors (729 picks) and B(5, 4) for the five weapons (625):
  /// the longest runs whose period still fits in a 1,000-round match.
  static func of(_ ruleset: Ruleset) -> DeBruijnSequence {
    switch ruleset.id {
    case .classic: classic
    case .lizardSpock: lizardSpock
    }
  }

  static let classic = DeBruijnSequence(weapons: Ruleset.classic.weapons, order: 6, seed: 1999)
  static let lizardSpock = DeBruijnSequence(
    weapons: Ruleset.lizardSpock.weapons, order: 4, seed: 1999)

  /// B(k, n) over `symbols` (k = their count, n = `order`), the same for the same seed on
  /// every platform.
  init(weapons symbols: [Weapon], order: Int, seed: UInt64) {
    precondition(!symbols.isEmpty && order >= 1)
    let k = symbols.count
    var nodes = 1
    for _ in 1..<order { nodes *= k }
    // Each node's edges (the weapon each appends), shuffled by Fisher–Yates on SplitMix64
    // so that no standard library's shuffle decides the sequence.
    var random = SplitMix64(seed: seed)
    var unused = (0..<nodes).map { _ in
      var edges = Array(0..<k)
      for index in stride(from: k - 1, to: 0, by: -1) {
        edges.swapAt(index, Int(random.next() % UInt64(index + 1)))
      }
      return edges
    }
    // Hierholzer's algorithm from the node of n − 1 first weapons: walk unused edges until
    // stuck, and back off, writing the circuit's edges down last first.
    var path: [(node: Int, symbol: Int?)] = [(0, nil)]
    var circuit: [Int] = []
    while let step = path.last {
      if let next = unused[step.node].popLast() {
        path.append(((step.node * k + next) % nodes, next))
      } else {
        path.removeLast()
        if let symbol = step.symbol { circuit.append(symbol) }
      }
    }
    self.order = order
    self.weapons = circuit.reversed().map { symbols[$0] }
  }
}
