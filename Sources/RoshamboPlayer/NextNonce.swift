import RoshamboGame

/// The nonce a player's next fair commitment will use, drawn ahead: asked of the driver
/// while the player waits (for the server, for a key), so that a pick only hashes. A
/// nonce is secret until its reveal: it is kept here and in the round's ``FairPlay``
/// secret, and is never sent, shown or logged before then.
///
/// Invariant: a nonce drawn is handed out at most once (``take()`` forgets it), so no two
/// commitments ever share one; at most one draw is asked for at a time.
public struct NextNonce: Equatable, Sendable {
  enum Stage: Equatable, Sendable {
    /// None ready, none asked for.
    case none
    /// A draw was asked for and has not come.
    case asked
    /// 64 lower-case hex digits, never used.
    case ready(String)
  }

  private(set) var stage = Stage.none

  public init() {}

  /// Whether a nonce is ready for the next commitment.
  public var isReady: Bool {
    if case .ready = stage { return true }
    return false
  }

  /// Whether to ask for a draw now: none is ready or asked for (the ask is then noted).
  mutating func asks() -> Bool {
    guard stage == .none else { return false }
    stage = .asked
    return true
  }

  /// The driver's draw came: kept for the next commitment if it is a nonce's form (64
  /// lower-case hex digits); otherwise dropped, and asked for again.
  mutating func drawn(_ nonce: String) {
    stage = Commitment.isHex256(nonce) ? .ready(nonce) : .none
  }

  /// The nonce ready, forgotten here as it is handed out; nil if none is.
  mutating func take() -> String? {
    guard case .ready(let nonce) = stage else { return nil }
    stage = .none
    return nonce
  }
}
