import RoshamboGame

/// What the `challenge` message tells both sides of a challenge: who challenged whom, on
/// which terms, and where it stands. Sent when it is made and again when it ends.
///
/// Invariant: a challenge's notices to one connection end with exactly one status other
/// than `pending`; `expires` is only meaningful while it is pending.
public struct ChallengeNotice: Sendable, Equatable {
  public enum Status: String, Sendable, CaseIterable {
    /// Waiting for the answer of `to`.
    case pending
    /// Taken: a `welcome` into the new room follows at once.
    case accepted
    case declined
    /// Nobody answered within the time.
    case expired
    /// One side left the lobby, or took another challenge.
    case withdrawn
  }

  /// The server's number for the challenge (what `accept` and `decline` name).
  public var id: Int
  public var status: Status
  /// The challenger's name and the name of the one challenged.
  public var from: String
  public var to: String
  public var bestOf: Int
  public var ruleset: Ruleset.ID
  public var fair: Bool
  /// When it expires unanswered (ms since 1970).
  public var expires: Int64
  /// A decline for the evening: the one challenged declines every later challenge of
  /// the challenger's for the evening (extension key `forTheEvening`, sent only when true).
  public var forTheEvening: Bool

  public init(
    id: Int, status: Status, from: String, to: String, bestOf: Int, ruleset: Ruleset.ID,
    fair: Bool, expires: Int64, forTheEvening: Bool = false
  ) {
    self.forTheEvening = forTheEvening
    self.id = id
    self.status = status
    self.from = from
    self.to = to
    self.bestOf = bestOf
    self.ruleset = ruleset
    self.fair = fair
    self.expires = expires
  }

  /// The notice of `event` (what the server sends both sides).
  public init(_ event: ChallengeBoard.Event) {
    let challenge = event.challenge
    let status: Status =
      switch event {
      case .offered: .pending
      case .accepted: .accepted
      case .declined: .declined
      case .expired: .expired
      case .withdrawn: .withdrawn
      }
    self.init(
      id: challenge.id, status: status, from: challenge.from.name, to: challenge.to.name,
      bestOf: challenge.terms.bestOf, ruleset: challenge.terms.ruleset,
      fair: challenge.terms.fair, expires: challenge.expiresAt)
  }
}
