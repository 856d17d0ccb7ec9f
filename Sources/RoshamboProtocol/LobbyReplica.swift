import RoshamboGame

/// A lobby follower's copy of the server's lobby view, kept from whole `lobby` views and
/// `lobbyPatch` messages: a patch is applied only to the view it was made from (its
/// `base` is the copy's `seq`) and kept only if the result has the patch's fingerprint;
/// otherwise the copy asks for the whole view (`lobbyResync`) and ignores patches until
/// it comes.
///
/// Invariant: ``view`` is the view the server sent as ``seq`` (nil before the first),
/// never a patched view whose fingerprint differed from the server's (while
/// ``checksFingerprints``).
public struct LobbyReplica: Sendable, Equatable {
  /// What the follower does after a message.
  public enum Outcome: Sendable, Equatable {
    /// The view changed to the server's at ``LobbyReplica/seq``: show it.
    case updated
    /// Nothing to show (a patch while the whole view is awaited).
    case waiting
    /// Out of step: send `lobbyResync` and keep showing the view it has.
    case resync
  }

  public private(set) var seq: Int?
  public private(set) var view: LobbyView?
  /// Whether patched views are compared with the server's fingerprint. A follower stops
  /// comparing when twice in a row the first patch after a whole view gave a view of
  /// another fingerprint: a newer server whose views carry fields it does not read (its
  /// own writing of them differs), where `seq` and `base` still keep it in step.
  public private(set) var checksFingerprints = true
  /// Whether a `lobbyResync` is outstanding.
  public private(set) var awaitingWholeView = false
  private var patchesSinceWholeView = 0
  private var mismatchesRightAfterWholeView = 0
  private var ignoredWhileAwaiting = 0

  /// After this many patches ignored while the whole view is awaited, it is asked for
  /// again (a slow connection may have been sent only the newest of its lobby messages).
  public static let patchesBeforeAskingAgain = 8

  public init() {}

  public mutating func receive(_ message: ServerMessage) -> Outcome {
    switch message {
    case .lobby(let seq, let view):
      self.seq = seq
      self.view = view
      awaitingWholeView = false
      patchesSinceWholeView = 0
      ignoredWhileAwaiting = 0
      return .updated
    case .lobbyPatch(let seq, let base, let fingerprint, let patch):
      return receive(patch, seq: seq, base: base, fingerprint: fingerprint)
    default:
      return .waiting
    }
  }

  private mutating func receive(
    _ patch: LobbyPatch, seq: Int, base: Int, fingerprint: String
  ) -> Outcome {
    if awaitingWholeView {
      ignoredWhileAwaiting += 1
      guard ignoredWhileAwaiting >= Self.patchesBeforeAskingAgain else { return .waiting }
      ignoredWhileAwaiting = 0
      return .resync
    }
    guard let view, base == self.seq, let next = view.applying(patch) else {
      return outOfStep()
    }
    if checksFingerprints, next.fingerprint != fingerprint {
      guard patchesSinceWholeView == 0 else { return outOfStep() }
      mismatchesRightAfterWholeView += 1
      guard mismatchesRightAfterWholeView >= 2 else { return outOfStep() }
      checksFingerprints = false
    } else if patchesSinceWholeView == 0 {
      mismatchesRightAfterWholeView = 0
    }
    self.view = next
    self.seq = seq
    patchesSinceWholeView += 1
    return .updated
  }

  private mutating func outOfStep() -> Outcome {
    awaitingWholeView = true
    ignoredWhileAwaiting = 0
    return .resync
  }
}
