import Logging
import NIOCore
import Redux
import RoshamboGame
import RoshamboProtocol

/// The hub's first middleware: runs the rules once per lobby action, answers a refused
/// request with its error and swallows it, and lets nothing through while the journal
/// cannot be written.
///
/// Invariant: a `.lobby` action passes `next` only if the journal is writable and
/// `LobbyState.refusal(for:)` accepts it on the state it will be reduced on.
final class Gatekeeper {
  /// Whether the journal can be written.
  enum Saving {
    case healthy
    /// A commit failed: client actions are answered `unavailable` until a probe succeeds.
    case failing(retry: Scheduled<Void>?)
  }

  var saving = Saving.healthy
  private let logger: Logger
  private let answer: (Origin, ProtocolError) -> Void

  /// `answer` sends a refusal to the connection that asked.
  init(logger: Logger, answer: @escaping (Origin, ProtocolError) -> Void) {
    self.logger = logger
    self.answer = answer
  }

  var middleware: Middleware<LobbyState, HubAction> {
    Middleware { [self] context, action, next in
      guard case .lobby(let lobbyAction, let origin) = action else { return next(action) }
      if case .failing = saving {
        // Nothing may run ahead of the journal: timers and dropped connections are
        // reconciled once it can be written again.
        if let origin { answer(origin, .unavailable()) }
        return
      }
      guard let refusal = context.state.refusal(for: lobbyAction) else { return next(action) }
      // A stale timer or connection event is nobody's mistake: dropped silently.
      if case .stale = refusal { return }
      if let origin {
        answer(origin, ProtocolError(refusal))
        logger.info(
          "refused", metadata: ["conn": "\(origin.link.id)", "code": "\(ErrorCode(refusal))"])
      }
    }
  }
}
