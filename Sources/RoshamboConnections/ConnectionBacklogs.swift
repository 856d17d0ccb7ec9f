/// What waits for connections that cannot take more now (their peers do not read), as a
/// state machine: a frame goes in with whether the connection is writable, and what to
/// do with it comes out. Generic over the frame (the server's `ByteBuffer`, the
/// simulator's bytes): it only keeps them, and counts their bytes as it is told.
///
/// Invariant: frames go out in the order they came, except that of `state` frames in a
/// row with nothing between them only the newest is kept (older ones are skipped; `seq`
/// still only rises); at most ``ConnectionBacklog/limit`` other frames (and states they
/// follow) are kept; one more and the answer is to close the connection.
///
/// Its methods are inlinable so that the server's writer, which asks it about every frame,
/// gets them specialized for `ByteBuffer`.
public struct ConnectionBacklogs<Frame: Sendable>: Sendable {
  @usableFromInline
  struct Held: Sendable {
    @usableFromInline var frame: Frame
    @usableFromInline var bytes: Int

    @inlinable
    init(frame: Frame, bytes: Int) {
      self.frame = frame
      self.bytes = bytes
    }
  }

  @usableFromInline
  struct Backlog: Sendable {
    @usableFromInline var control: [Held]
    @usableFromInline var state: Held?

    @inlinable
    init(control: [Held] = [], state: Held? = nil) {
      self.control = control
      self.state = state
    }
  }

  @usableFromInline var waiting: [Int: Backlog] = [:]

  public init() {}

  /// `frame` (`bytes` long) for connection `id`; a `state` frame replaces the one waiting.
  @inlinable
  public mutating func deliver(
    _ frame: Frame, bytes: Int, to id: Int, isState: Bool, writable: Bool
  ) -> ConnectionBacklog.Delivery {
    let held = Held(frame: frame, bytes: bytes)
    guard var backlog = waiting[id] else {
      if writable { return .write }
      waiting[id] = isState ? Backlog(state: held) : Backlog(control: [held])
      return .held
    }
    var replaced = false
    if isState {
      replaced = backlog.state != nil
      backlog.state = held
    } else {
      // A state waiting goes out before what came after it: a welcome to the next room
      // must not overtake the state that ended the match in the last one.
      if let state = backlog.state {
        backlog.control.append(state)
        backlog.state = nil
      }
      backlog.control.append(held)
    }
    guard backlog.control.count <= ConnectionBacklog.limit else {
      waiting[id] = nil
      return .close
    }
    waiting[id] = backlog
    return replaced ? .replaced : .held
  }

  /// The connection can take more: what waited for it, in the order it came.
  @inlinable
  public mutating func drain(_ id: Int) -> [Frame] {
    guard let backlog = waiting.removeValue(forKey: id) else { return [] }
    return backlog.control.map(\.frame) + (backlog.state.map { [$0.frame] } ?? [])
  }

  /// The connection is gone.
  @inlinable
  public mutating func forget(_ id: Int) {
    waiting[id] = nil
  }

  /// The frames waiting for connection `id`.
  @inlinable
  public func heldFrames(for id: Int) -> Int {
    guard let backlog = waiting[id] else { return 0 }
    return backlog.control.count + (backlog.state == nil ? 0 : 1)
  }

  /// The bytes waiting for connection `id`.
  @inlinable
  public func heldBytes(for id: Int) -> Int {
    guard let backlog = waiting[id] else { return 0 }
    return backlog.control.reduce(0) { $0 + $1.bytes } + (backlog.state?.bytes ?? 0)
  }

  /// How many connections have something waiting.
  @inlinable
  public var count: Int { waiting.count }
}

/// What ``ConnectionBacklogs`` answers, whatever its frames are.
public enum ConnectionBacklog {
  /// The most non-state messages kept for a connection that does not read.
  public static let limit = 32

  /// What to do with a frame.
  public enum Delivery: Equatable, Sendable {
    /// Write and flush it now.
    case write
    /// Kept until the connection can take more.
    case held
    /// Kept in place of the `state` that was waiting, which is skipped (conflated).
    case replaced
    /// The connection has more waiting than it may: close it (its backlog is dropped).
    case close
  }
}
