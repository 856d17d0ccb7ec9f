import RoshamboGame

/// What the hub's store reduces: the lobby's actions, each with who asked for it.
///
/// Invariant: only ``Gatekeeper`` decides whether a `.lobby` action reaches the
/// reducer; every later middleware sees accepted actions only.
enum HubAction: Sendable {
  /// A lobby action from a player's request (`origin`: a refusal is answered there) or
  /// from the server itself (nil: a timer or a dropped connection; a refusal is dropped).
  case lobby(LobbyAction, origin: Origin?)
  /// The lobby exactly as the journal holds it, after a commit failed.
  case restore(LobbyState)
}

/// The connection and message id a refusal is answered to.
struct Origin: Sendable {
  let link: ConnectionLink
  /// The `id` of the message that asked, echoed as `re`.
  let re: Int?
}
