import NIOCore

/// What waits for connections that cannot take more now (their peers do not read), as a
/// state machine: a frame goes in with whether the connection is writable, and what to
/// do with it comes out.
///
/// Invariant: per connection it keeps at most the newest `state` frame (older ones are
/// skipped; `seq` still only rises) and ``limit`` other frames in order; one more and
/// the answer is to close the connection.
struct ConnectionBacklogs {
  /// The most non-state messages kept for a connection that does not read.
  static let limit = 32

  /// What to do with a frame.
  enum Delivery: Equatable {
    /// Write and flush it now.
    case write
    /// Kept until the connection can take more.
    case held
    /// Kept in place of the `state` that was waiting, which is skipped (conflated).
    case replaced
    /// The connection has more waiting than it may: close it (its backlog is dropped).
    case close
  }

  private struct Backlog {
    var control: [ByteBuffer] = []
    var state: ByteBuffer?
  }

  private var waiting: [Int: Backlog] = [:]

  /// `frame` for connection `id`; a `state` frame replaces the one waiting.
  mutating func deliver(_ frame: ByteBuffer, to id: Int, isState: Bool, writable: Bool)
    -> Delivery
  {
    guard var backlog = waiting[id] else {
      if writable { return .write }
      waiting[id] = isState ? Backlog(state: frame) : Backlog(control: [frame])
      return .held
    }
    var replaced = false
    if isState {
      replaced = backlog.state != nil
      backlog.state = frame
    } else {
      backlog.control.append(frame)
    }
    guard backlog.control.count <= Self.limit else {
      waiting[id] = nil
      return .close
    }
    waiting[id] = backlog
    return replaced ? .replaced : .held
  }

  /// The connection can take more: what waited for it, in order, its newest state last.
  mutating func drain(_ id: Int) -> [ByteBuffer] {
    guard let backlog = waiting.removeValue(forKey: id) else { return [] }
    return backlog.control + (backlog.state.map { [$0] } ?? [])
  }

  /// The connection is gone.
  mutating func forget(_ id: Int) {
    waiting[id] = nil
  }

  /// How many connections have something waiting.
  var count: Int { waiting.count }
}
