import NIOConcurrencyHelpers
import RoshamboProtocol

/// The events of one connection waiting to be read, bounded whatever the server sends:
/// a `state` replaces a `state` of the same room queued right before it with a lower
/// `seq` (only the newest view matters, as the server does for its own slow readers),
/// unless the one queued ends a match, and past ``limit`` queued events the connection is treated as a flood and closed. A player's views of a fair room are never
/// replaced: the client checks the server against each of them (a commitment shown, a
/// reveal received), and an honest server sends them at the pace of people.
///
/// Invariant: at most ``limit`` events are held; the last event read is `.closed`, and
/// nothing is queued after it. One reader at a time (the session's loop over its current
/// connection): a second waiting reader would take the first one's place.
public final class ServerEvents: AsyncSequence, Sendable {
  public typealias Element = ConnectionEvent

  /// How many events may wait to be read (consecutive states count once).
  public static let limit = 64

  private struct Buffer {
    var queue: [ConnectionEvent] = []
    var head = 0
    var finished = false
    var waiter: CheckedContinuation<ConnectionEvent?, Never>?
    var count: Int { queue.count - head }
  }

  // The queue and the waiting reader: every access takes this lock.
  private let buffer = NIOLockedValueBox(Buffer())

  public init() {}

  /// Queues a message; returns false when the queue is full (the caller closes the
  /// connection as a flood).
  public func yield(_ message: ServerMessage) -> Bool {
    buffer.withLockedValue { buffer in
      guard !buffer.finished else { return true }
      if let waiter = buffer.waiter {
        buffer.waiter = nil
        waiter.resume(returning: .message(message))
        return true
      }
      if buffer.count > 0, case .message(let last) = buffer.queue[buffer.queue.count - 1],
        Self.replaces(message, last)
      {
        buffer.queue[buffer.queue.count - 1] = .message(message)
        return true
      }
      guard buffer.count < Self.limit else { return false }
      buffer.queue.append(.message(message))
      return true
    }
  }

  /// Whether `new` may take the place of `queued`: both lobby views with `seq` rising, or
  /// both states of the same room, `seq` rising, neither a player's view of a fair room,
  /// and `queued` not the end of a match. Anything else the client must see: a view of
  /// another room or a `seq` going back is a violation to catch, and a match's end is
  /// counted (a bot playing several matches in a room would miss one replaced by the
  /// next match's first view).
  static func replaces(_ new: ServerMessage, _ queued: ServerMessage) -> Bool {
    if case .lobby(let seq, _) = new, case .lobby(let queuedSeq, _) = queued {
      return seq > queuedSeq
    }
    guard case .state(let seq, let view) = new, case .state(let queuedSeq, let queuedView) = queued
    else { return false }
    return seq > queuedSeq && view.room == queuedView.room && queuedView.phase != .over
      && !(view.fair && view.you != nil) && !(queuedView.fair && queuedView.you != nil)
  }

  /// Queues the final `.closed`; nothing is queued after it.
  public func finish(_ error: (any Error)?) {
    buffer.withLockedValue { buffer in
      guard !buffer.finished else { return }
      buffer.finished = true
      if let waiter = buffer.waiter {
        buffer.waiter = nil
        waiter.resume(returning: .closed(error))
      } else {
        buffer.queue.append(.closed(error))
      }
    }
  }

  /// How many events wait to be read (for tests).
  public var waiting: Int { buffer.withLockedValue(\.count) }

  private func next() async -> ConnectionEvent? {
    await withCheckedContinuation { continuation in
      buffer.withLockedValue { buffer in
        if buffer.head < buffer.queue.count {
          let event = buffer.queue[buffer.head]
          buffer.head += 1
          if buffer.head == buffer.queue.count {
            buffer.queue.removeAll(keepingCapacity: true)
            buffer.head = 0
          }
          continuation.resume(returning: event)
        } else if buffer.finished {
          continuation.resume(returning: nil)
        } else {
          buffer.waiter = continuation
        }
      }
    }
  }

  public struct AsyncIterator: AsyncIteratorProtocol {
    let events: ServerEvents
    public mutating func next() async -> ConnectionEvent? { await events.next() }
  }

  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: self) }
}
