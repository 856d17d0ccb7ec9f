import RoshamboGame

/// The simulation's one source of randomness: SplitMix64 from the seed.
///
/// Invariant: the sequence depends on the seed alone.
public struct SimulationRandom: RandomNumberGenerator, Sendable {
  private var generator: SplitMix64

  public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  public mutating func next() -> UInt64 { generator.next() }

  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool {
    Double(next() >> 11) / Double(1 << 53) < p
  }

  /// A whole number in `range`.
  public mutating func int(_ range: ClosedRange<Int64>) -> Int64 {
    range.lowerBound + Int64(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }

  /// 32 random bytes as hex (a fair round's nonce).
  public mutating func hex32() -> String {
    (0..<4).map {
      _ in
      let hex = String(next(), radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }.joined()
  }
}

/// What is due when, in virtual time: the earliest first, and among equals the first
/// scheduled first, so the order never depends on anything but the seed.
struct EventQueue<Event> {
  private var heap: [(at: Int64, order: Int, event: Event)] = []
  private var scheduled = 0

  var isEmpty: Bool { heap.isEmpty }
  var count: Int { heap.count }

  mutating func schedule(_ event: Event, at: Int64) {
    scheduled += 1
    heap.append((at, scheduled, event))
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard before(child, parent) else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  mutating func next() -> (at: Int64, event: Event)? {
    guard !heap.isEmpty else { return nil }
    heap.swapAt(0, heap.count - 1)
    let first = heap.removeLast()
    var parent = 0
    while true {
      let (left, right) = (2 * parent + 1, 2 * parent + 2)
      var smallest = parent
      if left < heap.count, before(left, smallest) { smallest = left }
      if right < heap.count, before(right, smallest) { smallest = right }
      guard smallest != parent else { break }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
    return (first.at, first.event)
  }

  private func before(_ a: Int, _ b: Int) -> Bool {
    heap[a].at != heap[b].at ? heap[a].at < heap[b].at : heap[a].order < heap[b].order
  }
}
