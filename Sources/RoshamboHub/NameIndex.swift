import RoshamboGame

/// Connections by the name they go by, folded (``NameBook/folded(_:)``), and by the
/// identity they presented: who uses a name, and whether anyone but one identity does,
/// is found without looking at everyone connected.
///
/// Invariant: a connection is in at most one bucket, the one of the name and identity it
/// was inserted with; an empty bucket has no entry.
struct NameIndex: Equatable {
  private(set) var buckets: [String: [String?: Set<Int>]] = [:]

  mutating func insert(_ id: Int, name: String, identity: String?) {
    buckets[NameBook.folded(name), default: [:]][identity, default: []].insert(id)
  }

  mutating func remove(_ id: Int, name: String, identity: String?) {
    let key = NameBook.folded(name)
    guard var byIdentity = buckets.removeValue(forKey: key) else { return }
    if var ids = byIdentity.removeValue(forKey: identity) {
      ids.remove(id)
      if !ids.isEmpty { byIdentity[identity] = ids }
    }
    if !byIdentity.isEmpty { buckets[key] = byIdentity }
  }

  /// The connections under `name` presenting `identity`, in the order they arrived.
  func ids(named name: String, identity: String?) -> [Int] {
    (buckets[NameBook.folded(name)]?[identity] ?? []).sorted()
  }

  /// The connections under `name`, whatever their identity, in the order they arrived.
  func ids(named name: String) -> [Int] {
    (buckets[NameBook.folded(name)]?.values.flatMap { $0 } ?? []).sorted()
  }

  /// Whether any connection goes by `name` (in any case).
  func contains(named name: String) -> Bool { buckets[NameBook.folded(name)] != nil }

  /// Whether a connection under `name` presents an identity other than `identity`; for a
  /// connection with none (nil), whether any connection uses the name at all.
  func hasAnyoneBut(_ identity: String?, named name: String) -> Bool {
    guard let byIdentity = buckets[NameBook.folded(name)] else { return false }
    guard identity != nil else { return true }
    return byIdentity.count > 1 || byIdentity.keys.first != identity
  }
}
