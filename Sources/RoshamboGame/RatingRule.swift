/// Which finished matches move ratings: a rating says how one person did against other
/// people, so a match a person could have played against themselves, or one nobody
/// played, rates nothing. The match is still played, kept and counted in the standings.
///
/// A match is rated only when
/// - both seats were held by player identities (a keyless player's name is anyone's),
///   and two different ones (one identity under two names is one person);
/// - the seats came from two different addresses (an IPv6 address by its /64), unless the
///   host allows one address (`--rated-same-address`: a LAN behind one NAT);
/// - a round was played: a forfeit before the first round was resolved is not a result.
///
/// Invariant: pure; the verdict depends only on the match and the two seats given.
public struct RatingRule: Sendable, Equatable {
  /// Whether two seats from one address may be rated against each other.
  public var ratesSameAddress: Bool

  public init(ratesSameAddress: Bool = false) {
    self.ratesSameAddress = ratesSameAddress
  }

  /// Who held a seat, as the server knew them when the match ended.
  public struct Holder: Sendable, Equatable {
    /// The player identity holding the seat's name, if any.
    public var identity: String?
    /// The address the seat was last taken from, if known.
    public var address: String?

    public init(identity: String?, address: String?) {
      self.identity = identity
      self.address = address
    }
  }

  /// Whether a match is rated, and if not, why.
  public enum Verdict: Sendable, Equatable {
    case rated
    case unrated(Reason)
  }

  /// Why a match rates nothing, in the words a log or a host reads.
  public enum Reason: String, Sendable, Equatable {
    case keyless = "a seat was held without a player identity"
    case oneIdentity = "both seats were held by one player identity"
    case oneAddress = "both seats came from one address"
    case noRound = "it ended before a round was played"
    case noWinner = "it has no winner among its players"
  }

  /// The verdict for `match`, whose seats were held by `holders` (seat 1's, then seat 2's).
  public func verdict(for match: FinishedMatch, holders: [Holder]) -> Verdict {
    guard match.players.count == 2, holders.count == 2, match.players[0] != match.players[1],
      match.players.contains(match.winner)
    else { return .unrated(.noWinner) }
    guard let first = holders[0].identity, let second = holders[1].identity else {
      return .unrated(.keyless)
    }
    guard first != second else { return .unrated(.oneIdentity) }
    if !ratesSameAddress, let address = holders[0].address, address == holders[1].address {
      return .unrated(.oneAddress)
    }
    guard match.hadRound else { return .unrated(.noRound) }
    return .rated
  }

  /// `match` with ``FinishedMatch/rated`` set by its verdict, and the holders'
  /// identities (``FinishedMatch/identities``).
  public func judged(_ match: FinishedMatch, holders: [Holder]) -> FinishedMatch {
    var match = match
    match.rated = verdict(for: match, holders: holders) == .rated
    match.identities = holders.map(\.identity)
    return match
  }
}
