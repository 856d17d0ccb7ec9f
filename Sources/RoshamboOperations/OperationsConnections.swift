import NIOConcurrencyHelpers
import NIOCore

/// Which connections the operations port holds, and which gives way when it is full: the
/// one that has gone longest with no answer being prepared for it (idle, sending a
/// request slowly, or not reading its answer). A connection whose answer is being
/// prepared (its probe under way on the game loop, which takes milliseconds) is never
/// closed for another; only when every connection is being answered is a new one refused.
///
/// So idle connections cannot keep a probe out: a new connection always finds room.
struct OperationsAdmission {
  enum Decision: Equatable {
    case admit
    /// Admit, and close the connection with this id to make room.
    case admitClosing(Int)
    case refuse
  }

  let capacity: Int
  /// Each connection held: since when it has had no answer being prepared, or nil while
  /// it has one.
  private(set) var idleSince: [Int: NIODeadline?] = [:]

  init(capacity: Int) { self.capacity = capacity }

  /// Admits connection `id` (new) at `now`.
  mutating func admit(_ id: Int, now: NIODeadline) -> Decision {
    guard idleSince.count >= capacity else {
      idleSince[id] = .some(now)
      return .admit
    }
    let idle = idleSince.compactMap { key, since in since.map { (id: key, since: $0) } }
    guard let oldest = idle.min(by: { ($0.since, $0.id) < ($1.since, $1.id) }) else {
      return .refuse
    }
    idleSince.removeValue(forKey: oldest.id)
    idleSince[id] = .some(now)
    return .admitClosing(oldest.id)
  }

  /// Connection `id` has a complete request whose answer is being prepared.
  mutating func answering(_ id: Int) {
    if idleSince[id] != nil { idleSince[id] = .some(nil) }
  }

  /// Connection `id`'s answer is prepared (handed to the socket) at `now`.
  mutating func answered(_ id: Int, now: NIODeadline) {
    if idleSince[id] != nil { idleSince[id] = .some(now) }
  }

  mutating func remove(_ id: Int) { idleSince.removeValue(forKey: id) }
}

/// The operations port's connections, shared by its event loops: ``OperationsAdmission``
/// with the channels it names.
final class OperationsConnections: Sendable {
  private struct State {
    var admission: OperationsAdmission
    var channels: [Int: any Channel] = [:]
    var nextID = 0
  }

  /// One admitted connection, as its handler reports on it.
  struct Slot: Sendable {
    let connections: OperationsConnections
    let id: Int

    func answering() { connections.state.withLockedValue { $0.admission.answering(id) } }
    func answered() {
      connections.state.withLockedValue { $0.admission.answered(id, now: .now()) }
    }
  }

  private let state: NIOLockedValueBox<State>

  init(capacity: Int) {
    state = NIOLockedValueBox(State(admission: OperationsAdmission(capacity: capacity)))
  }

  /// Connections held now.
  var count: Int { state.withLockedValue { $0.channels.count } }

  /// Admits `channel`, closing the connection that has gone longest without an answer
  /// being prepared if the port is full (that one is returned too); nil when every
  /// connection held is being answered.
  func admit(_ channel: any Channel) -> (slot: Slot, closing: (any Channel)?)? {
    let admitted = state.withLockedValue { state -> (Int, (any Channel)?)? in
      let id = state.nextID
      state.nextID += 1
      switch state.admission.admit(id, now: .now()) {
      case .refuse:
        return nil
      case .admit:
        state.channels[id] = channel
        return (id, nil)
      case .admitClosing(let old):
        state.channels[id] = channel
        return (id, state.channels.removeValue(forKey: old))
      }
    }
    guard let (id, closing) = admitted else { return nil }
    closing?.close(promise: nil)
    channel.closeFuture.whenComplete { _ in
      self.state.withLockedValue { state in
        state.admission.remove(id)
        state.channels.removeValue(forKey: id)
      }
    }
    return (Slot(connections: self, id: id), closing)
  }
}
