extension Sequence {
  /// The `count` smallest elements in `areInIncreasingOrder`, sorted: what
  /// `sorted(by:).prefix(count)` gives, without sorting the whole sequence (each element
  /// past the first `count` costs one comparison unless it belongs among them), for
  /// lists like the lobby's, cut from thousands to a few dozen several times a second.
  public func smallest(
    _ count: Int, by areInIncreasingOrder: (Element, Element) -> Bool
  ) -> [Element] {
    guard count > 0 else { return [] }
    var kept: [Element] = []
    kept.reserveCapacity(count)
    for element in self {
      if kept.count == count {
        // Not smaller than the largest kept: not among the smallest.
        guard areInIncreasingOrder(element, kept[count - 1]) else { continue }
        kept.removeLast()
      }
      // Insert in order (binary search for the first kept element it precedes).
      var low = 0
      var high = kept.count
      while low < high {
        let middle = (low + high) / 2
        if areInIncreasingOrder(element, kept[middle]) { high = middle } else { low = middle + 1 }
      }
      kept.insert(element, at: low)
    }
    return kept
  }
}
