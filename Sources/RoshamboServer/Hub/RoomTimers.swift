import NIOCore
import RoshamboGame

/// The lobby's clocks: each room's round deadline and each disconnected seat's grace,
/// scheduled on the hub's loop as the hub's effects say (``HubEffect``); when one fires
/// it hands the hub the action that ends it (`deadlinePassed`, `graceExpired`), which
/// the rules accept or drop as stale.
///
/// Invariant: at most one task per ``Key``, and a room's deadline task, if any, is for
/// the deadline its state holds now.
final class RoomTimers {
  /// What a timer is for.
  enum Key: Hashable {
    case deadline(room: String)
    case grace(room: String, seat: Seat)
  }

  /// Each task with the moment it fires and what it is for there (a deadline's round).
  private var tasks: [Key: (at: Int64, round: Int, task: Scheduled<Void>)] = [:]
  private let loop: any EventLoop
  private let now: () -> Int64
  private let dispatch: (LobbyAction) -> Void

  /// `dispatch` hands a fired timer's action to the hub.
  init(loop: any EventLoop, now: @escaping () -> Int64, dispatch: @escaping (LobbyAction) -> Void) {
    self.loop = loop
    self.now = now
    self.dispatch = dispatch
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
    guard let deadline = room.deadline, room.phase == .choosing else {
      return cancel(.deadline(room: room.name))
    }
    startDeadline(room: room.name, round: room.round, at: deadline)
  }

  /// The room's round `round` times out at `at` (a deadline for another moment replaces
  /// the one scheduled).
  func startDeadline(room: String, round: Int, at: Int64) {
    schedule(.deadline(room: room), at: at, round: round) { at in
      .room(room, .deadlinePassed(round: round, at: at))
    }
  }

  func startGrace(room: String, seat: Seat, endsAt: Int64) {
    schedule(.grace(room: room, seat: seat), at: endsAt, round: 0) { at in
      .room(room, .graceExpired(seat: seat, at: at))
    }
  }

  /// Runs `action` at `at` (ms since 1970), never earlier by the server's clock.
  private func schedule(
    _ key: Key, at: Int64, round: Int, _ action: @escaping (Int64) -> LobbyAction
  ) {
    if let held = tasks[key], held.at == at, held.round == round { return }
    tasks[key]?.task.cancel()
    let task = loop.assumeIsolated().scheduleTask(in: .milliseconds(max(0, at - now()))) {
      self.tasks[key] = nil
      self.dispatch(action(max(self.now(), at)))
    }
    tasks[key] = (at, round, task)
  }
}
