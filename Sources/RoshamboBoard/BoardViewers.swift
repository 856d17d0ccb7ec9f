/// Who watches the board's stream, as a value: how many may (``capacity``), and what
/// becomes of an event for a viewer that does not read.
///
/// Invariant: at most ``capacity`` viewers are open at once; a viewer whose connection
/// cannot take more when an event comes is dropped, so what waits for it is never more
/// than its connection's write buffer and one event.
struct BoardViewers {
  let capacity: Int
  private(set) var open: Set<Int> = []

  init(capacity: Int) {
    self.capacity = max(0, capacity)
  }

  /// Viewer `id` asks to watch: whether there is room.
  mutating func admit(_ id: Int) -> Bool {
    guard open.count < capacity || open.contains(id) else { return false }
    open.insert(id)
    return true
  }

  /// Viewer `id` is gone.
  mutating func leave(_ id: Int) {
    open.remove(id)
  }

  enum Delivery: Equatable {
    case write
    /// It does not read: close its connection.
    case drop
  }

  /// An event for viewer `id`, whose connection is `writable` or not.
  mutating func deliver(to id: Int, writable: Bool) -> Delivery {
    guard open.contains(id) else { return .drop }
    if writable { return .write }
    open.remove(id)
    return .drop
  }
}
