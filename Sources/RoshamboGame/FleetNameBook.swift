/// A name as a fleet's name book holds it (one row of PostgreSQL's `roshambo_names`): the
/// identity holding it on every server of the fleet, its last use anywhere, and whether
/// the host released it.
///
/// Invariant: `folded` is a name in ``NameBook/folded(_:)`` form, so two names that look
/// alike are one row.
public struct FleetName: Sendable, Hashable {
  public var folded: String
  /// The identity that holds the name, or held it until `released`.
  public var identity: String
  /// The holder's last use on any server of the fleet (ms since 1970).
  public var usedAt: Int64
  /// The host released the name: nobody holds it until someone claims it.
  public var released: Bool

  public init(folded: String, identity: String, usedAt: Int64, released: Bool = false) {
    self.folded = folded
    self.identity = identity
    self.usedAt = usedAt
    self.released = released
  }

  /// Whether `identity` holds the name at `now`: it is not released, and its holder used
  /// it within `lapseMillis` (nil: holds never lapse).
  public func holds(now: Int64, lapseMillis: Int64?) -> Bool {
    guard !released else { return false }
    guard let lapseMillis else { return true }
    return now - usedAt < lapseMillis
  }
}

/// What one server tells the fleet's name book of a name it holds.
///
/// Invariant: `identity` is the identity the server's own ``NameBook`` has (or, for a
/// release, had) holding the name.
public struct NameOffer: Sendable, Hashable {
  public enum Kind: String, Sendable, Hashable {
    /// The identity took the name on this server just now.
    case claim
    /// The identity holds the name on this server and used it (or the server started).
    case use
    /// The host released the name (`--release-name`): released on every server.
    case release
  }
  public var kind: Kind
  public var folded: String
  public var identity: String
  public var at: Int64

  public init(_ kind: Kind, name: String, identity: String, at: Int64) {
    self.kind = kind
    self.folded = NameBook.folded(name)
    self.identity = identity
    self.at = at
  }
}

/// A fleet's name book as a value: the rule the shared history's `roshambo_names` table
/// follows when a server offers what it holds (``offer(_:now:lapseMillis:)``), so that
/// a name held on one server of a fleet is held on all. The first claim to reach the book
/// holds the name; a server whose holder differs yields when it reads the row. A claim
/// takes a row only when it is released or its holder has not used it for the lapse.
///
/// Invariant: one row per folded name, and a row changes identity only through a claim
/// or use offered while the row did not hold (``FleetName/holds(now:lapseMillis:)``).
public struct FleetNameBook: Sendable, Equatable {
  public private(set) var rows: [String: FleetName] = [:]

  public init(rows: [FleetName] = []) {
    for row in rows { self.rows[row.folded] = row }
  }

  /// Applies `offer` at `now`; returns the row it changed (its new value), or nil when the
  /// book is unchanged.
  @discardableResult
  public mutating func offer(_ offer: NameOffer, now: Int64, lapseMillis: Int64?)
    -> FleetName?
  {
    let key = offer.folded
    guard let row = rows[key] else {
      guard offer.kind != .release else { return nil }
      return put(FleetName(folded: key, identity: offer.identity, usedAt: offer.at))
    }
    if row.identity == offer.identity {
      switch offer.kind {
      case .release:
        guard !row.released else { return nil }
        var released = row
        released.released = true
        return put(released)
      case .claim:
        guard row.released || offer.at > row.usedAt else { return nil }
        return put(
          FleetName(folded: key, identity: row.identity, usedAt: max(row.usedAt, offer.at)))
      case .use:
        // A use from a server that has not yet read the release does not undo it.
        guard !row.released, offer.at > row.usedAt else { return nil }
        var used = row
        used.usedAt = offer.at
        return put(used)
      }
    }
    guard offer.kind != .release, !row.holds(now: now, lapseMillis: lapseMillis) else {
      return nil
    }
    return put(FleetName(folded: key, identity: offer.identity, usedAt: offer.at))
  }

  private mutating func put(_ row: FleetName) -> FleetName {
    rows[row.folded] = row
    return row
  }
}
