/// The newest moves of one stream (one player's positions on the ``WeaponCycle``, or both
/// players' as pairs), as many as the longest window or context looks back.
///
/// Invariant: holds the last `min(total, capacity)` moves appended, in order.
struct RecentMoves: Sendable {
  private var ring: [Int]
  /// Every move ever appended, kept or not.
  private(set) var total = 0

  init(capacity: Int) { ring = Array(repeating: 0, count: capacity) }

  mutating func append(_ move: Int) {
    ring[total % ring.count] = move
    total += 1
  }

  /// The move `back` places before the newest (0: the newest), if it is still kept.
  subscript(back back: Int) -> Int? {
    guard back >= 0, back < min(total, ring.count) else { return nil }
    return ring[(total - 1 - back) % ring.count]
  }

  /// The last `length` moves as one number in base `alphabet` (the newest the least
  /// significant digit), or nil before there are that many.
  func context(length: Int, alphabet: Int) -> Int? {
    guard length <= min(total, ring.count) else { return nil }
    var code = 0
    for back in stride(from: length - 1, through: 0, by: -1) {
      code = code * alphabet + self[back: back]!
    }
    return code
  }
}

/// How often each weapon came in the last `window` moves of a stream (or in all of them):
/// a frequency counter that moves along in constant time per move.
///
/// Invariant: `counts` sums to the number of moves in the window so far.
struct FrequencyWindow: Sendable {
  /// nil: every move since the start.
  let window: Int?
  private(set) var counts: [Int]
  /// The move number at which each weapon last came (−1: never): ties go to the latest.
  private var lastSeen: [Int]

  init(window: Int?, weapons: Int) {
    self.window = window
    counts = Array(repeating: 0, count: weapons)
    lastSeen = Array(repeating: -1, count: weapons)
  }

  /// Counts the move just appended to `moves`, and forgets the one that left the window.
  mutating func record(newestOf moves: RecentMoves) {
    let move = moves[back: 0]!
    counts[move] += 1
    lastSeen[move] = moves.total
    if let window, let leaving = moves[back: window] { counts[leaving] -= 1 }
  }

  /// The commonest weapon in the window (ties: the one seen last), nil before any.
  var commonest: Int? { Self.commonest(counts: counts[...], lastSeen: lastSeen[...]) }

  /// The largest count, ties to the latest seen; nil when every count is 0.
  static func commonest(counts: ArraySlice<Int>, lastSeen: ArraySlice<Int>) -> Int? {
    var best: Int?
    var bestCount = 0
    var bestSeen = -1
    for (offset, count) in counts.enumerated() {
      let seen = lastSeen[lastSeen.startIndex + offset]
      if count > bestCount || (count == bestCount && count > 0 && seen > bestSeen) {
        best = offset
        bestCount = count
        bestSeen = seen
      }
    }
    return best
  }
}

/// For each context of a stream's last `order` moves, how often each weapon came next:
/// an order-`order` Markov model, counted (every follower counts, none forgotten).
///
/// Invariant: the counts for a context sum to the number of times it was followed.
struct MarkovTable: Sendable {
  let order: Int
  private let weapons: Int
  private var counts: [Int]
  private var lastSeen: [Int]

  init(order: Int, weapons: Int) {
    self.order = order
    self.weapons = weapons
    var contexts = 1
    for _ in 0..<order { contexts *= weapons }
    counts = Array(repeating: 0, count: contexts * weapons)
    lastSeen = Array(repeating: -1, count: contexts * weapons)
  }

  /// Counts `next` as following the context of `moves`' last moves (call before appending
  /// `next` to them); `step` orders ties.
  mutating func record(_ next: Int, after moves: RecentMoves, step: Int) {
    guard let context = moves.context(length: order, alphabet: weapons) else { return }
    counts[context * weapons + next] += 1
    lastSeen[context * weapons + next] = step
  }

  /// What came next most often after the context of `moves`' last moves, with the counts
  /// of every follower; nil for a context never followed yet.
  func prediction(after moves: RecentMoves) -> (weapon: Int, counts: ArraySlice<Int>)? {
    guard let context = moves.context(length: order, alphabet: weapons) else { return nil }
    let row = context * weapons..<(context + 1) * weapons
    guard
      let weapon = FrequencyWindow.commonest(counts: counts[row], lastSeen: lastSeen[row])
    else { return nil }
    return (weapon, counts[row])
  }
}

/// For each context of the last `order` rounds (both players' moves), the round that came
/// next the last time it occurred: history matching, as Iocaine Powder does it, for one
/// length of match.
///
/// Invariant: holds one answer per context, the latest.
struct LastFollowers: Sendable {
  let order: Int
  private let pairs: Int
  /// −1: the context never occurred with a round after it.
  private var next: [Int]

  init(order: Int, pairs: Int) {
    self.order = order
    self.pairs = pairs
    var contexts = 1
    for _ in 0..<order { contexts *= pairs }
    next = Array(repeating: -1, count: contexts)
  }

  /// Remembers `pair` as the round after the context of `rounds`' last ones (call before
  /// appending `pair` to them).
  mutating func record(_ pair: Int, after rounds: RecentMoves) {
    guard let context = rounds.context(length: order, alphabet: pairs) else { return }
    next[context] = pair
  }

  /// The round that followed the context of `rounds`' last ones the last time, if any.
  func prediction(after rounds: RecentMoves) -> Int? {
    guard let context = rounds.context(length: order, alphabet: pairs) else { return nil }
    return next[context] >= 0 ? next[context] : nil
  }
}
