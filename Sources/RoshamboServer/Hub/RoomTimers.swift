import NIOCore
import Redux
import RoshamboGame

/// The lobby's clocks as effects: each room's round deadline and each disconnected
/// seat's grace, scheduled on the hub's loop; when one fires it dispatches the action
/// that ends it (`deadlinePassed`, `graceExpired`), which the rules accept or drop as
/// stale.
///
/// Invariant: at most one task per ``Key``, and a room's deadline task, if any, is for
/// the deadline its state holds now.
final class RoomTimers {
  /// What a timer is for.
  enum Key: Hashable {
    case deadline(room: String)
    case grace(room: String, seat: Seat)
  }

  private var tasks: [Key: (at: Int64, task: Scheduled<Void>)] = [:]
  private let loop: any EventLoop
  private let now: () -> Int64
  private let dispatch: (HubAction) -> Void

  /// `dispatch` sends a fired timer's action into the hub's store.
  init(loop: any EventLoop, now: @escaping () -> Int64, dispatch: @escaping (HubAction) -> Void) {
    self.loop = loop
    self.now = now
    self.dispatch = dispatch
  }

  /// After each accepted action: the room's deadline follows its state; a seat that
  /// disconnected starts its grace, one that came back ends it.
  var middleware: Middleware<LobbyState, HubAction> {
    Middleware { [self] context, action, next in
      next(action)
      guard case .lobby(let lobbyAction, _) = action else { return }
      let name = context.state.room(of: lobbyAction)
      guard let room = context.state.rooms[name] else {
        cancel(.deadline(room: name))
        return
      }
      followDeadline(of: room)
      switch lobbyAction {
      case .room(_, .disconnected(let seat, _)):
        if let ends = room.seats[seat]?.graceEndsAt {
          startGrace(room: name, seat: seat, endsAt: ends)
        }
      case .room(_, .reconnected(let seat, _)):
        cancel(.grace(room: name, seat: seat))
      default:
        break
      }
    }
  }

  /// Every deadline and grace the lobby holds, scheduled (after a restart, or when the
  /// journal can be written again).
  func scheduleAll(_ lobby: LobbyState) {
    for (name, room) in lobby.rooms {
      for (seat, held) in room.seats where !held.hasLeft && !held.connected {
        if let ends = held.graceEndsAt { startGrace(room: name, seat: seat, endsAt: ends) }
      }
      followDeadline(of: room)
    }
  }

  func cancel(_ key: Key) {
    tasks.removeValue(forKey: key)?.task.cancel()
  }

  func cancelAll() {
    for timer in tasks.values { timer.task.cancel() }
    tasks.removeAll()
  }

  private func followDeadline(of room: RoomState) {
    let key = Key.deadline(room: room.name)
    guard let deadline = room.deadline, room.phase == .choosing else { return cancel(key) }
    let round = room.round
    schedule(key, at: deadline) { at in .room(room.name, .deadlinePassed(round: round, at: at)) }
  }

  private func startGrace(room: String, seat: Seat, endsAt: Int64) {
    schedule(.grace(room: room, seat: seat), at: endsAt) { at in
      .room(room, .graceExpired(seat: seat, at: at))
    }
  }

  /// Runs `action` at `at` (ms since 1970), never earlier by the server's clock.
  private func schedule(_ key: Key, at: Int64, _ action: @escaping (Int64) -> LobbyAction) {
    if tasks[key]?.at == at { return }
    tasks[key]?.task.cancel()
    let task = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, at - now()))) {
      self.tasks[key] = nil
      self.dispatch(.lobby(action(max(self.now(), at)), origin: nil))
    }
    tasks[key] = (at, task)
  }
}
