import Redux
import RoshamboGame

/// What the next commit makes durable: every accepted lobby action since the last one,
/// the matches they finished, and who asked (to answer them if the commit fails).
///
/// Invariant: it holds exactly the actions reduced since the last ``clear()``, in the
/// order they were reduced; nothing of them is sent before they are committed.
final class JournalBatch {
  private(set) var actions: [LobbyAction] = []
  private(set) var matches: [FinishedMatch] = []
  private(set) var origins: [Origin] = []
  /// Connections whose membership rests on actions not committed yet.
  var joined: Set<Int> = []
  private let now: () -> Int64

  init(now: @escaping () -> Int64) {
    self.now = now
  }

  var isEmpty: Bool { actions.isEmpty && matches.isEmpty }

  /// What a sealed batch holds: the commit's rows and matches, and whom it concerns.
  struct Sealed {
    var actions: [LobbyAction] = []
    var matches: [FinishedMatch] = []
    var origins: [Origin] = []
    var joined: Set<Int> = []
  }

  /// Takes everything for a commit, leaving the batch empty.
  func seal() -> Sealed {
    defer { clear() }
    return Sealed(actions: actions, matches: matches, origins: origins, joined: joined)
  }

  func clear() {
    actions.removeAll(keepingCapacity: true)
    matches.removeAll()
    origins.removeAll(keepingCapacity: true)
    joined.removeAll(keepingCapacity: true)
  }

  /// Records each action that reaches it (placed after the ``Gatekeeper``: accepted
  /// ones only), and a ``FinishedMatch`` when one ends the room's match.
  var middleware: Middleware<LobbyState, HubAction> {
    Middleware { [self] context, action, next in
      guard case .lobby(let lobbyAction, let origin) = action else { return next(action) }
      let name = context.state.room(of: lobbyAction)
      let wasOver = context.state.rooms[name]?.phase == .over
      next(action)
      actions.append(lobbyAction)
      if let origin { origins.append(origin) }
      if let room = context.state.rooms[name], room.phase == .over, !wasOver {
        matches.append(FinishedMatch(room: room, at: now()))
      }
    }
  }
}
