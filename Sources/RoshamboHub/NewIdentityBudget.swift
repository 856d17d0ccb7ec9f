/// How many player identities new to this server each address may bring: an identity
/// costs nothing to make, so without a bound one machine could hold every name anyone
/// might want. A bucket per address (an IPv6 address by its /64) holds ``perHour`` and
/// fills again at that rate; an identity taking its first name here spends one.
///
/// Invariant: an address's bucket holds between 0 and ``perHour`` (ms of refill are
/// counted exactly, so the same arrivals at the same times always give the same answers);
/// at most ``maxAddresses`` are remembered, the fullest forgotten first (a full bucket
/// is what a forgotten one would be), the least address of equally full ones.
struct NewIdentityBudget: Equatable {
  /// New identities an address may bring in an hour (0: any number).
  let perHour: Int
  /// An address's bucket, in thousandths of an identity, and when it was last counted.
  private struct Bucket: Equatable {
    var milli: Int64
    var at: Int64
  }
  private var buckets: [String: Bucket] = [:]
  static let maxAddresses = 4_096
  private static let hourMillis: Int64 = 3_600_000

  init(perHour: Int) { self.perHour = perHour }

  /// What is left at `address` at `now`, in thousandths.
  private func left(at address: String, now: Int64) -> Int64 {
    let full = Int64(perHour) * 1_000
    guard let bucket = buckets[address] else { return full }
    // perHour identities an hour: perHour thousandths every 3.6 s.
    let refilled = max(0, now - bucket.at) * Int64(perHour) * 1_000 / Self.hourMillis
    return min(full, bucket.milli + refilled)
  }

  /// Whether `address` may bring one more new identity at `now` (an unknown address, or
  /// no bound, always may).
  func allows(_ address: String?, now: Int64) -> Bool {
    guard perHour > 0, let address else { return true }
    return left(at: address, now: now) >= 1_000
  }

  /// A new identity from `address` took its first name at `now`.
  mutating func spend(_ address: String?, now: Int64) {
    guard perHour > 0, let address else { return }
    buckets[address] = Bucket(milli: max(0, left(at: address, now: now) - 1_000), at: now)
    if buckets.count > Self.maxAddresses {
      let fullest = buckets.keys.max { a, b in
        let (leftA, leftB) = (left(at: a, now: now), left(at: b, now: now))
        return leftA != leftB ? leftA < leftB : a > b
      }
      if let fullest { buckets[fullest] = nil }
    }
  }
}
