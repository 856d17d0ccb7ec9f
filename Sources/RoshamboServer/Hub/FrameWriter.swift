import Logging
import NIOCore
import RoshamboConnections
import RoshamboHub
import RoshamboProtocol

/// Writes the hub's deliveries on connections: one frame per delivery (one encoding for
/// all its connections), now when a connection can take it, else into its backlog
/// (``ConnectionBacklogs``); lobby views a slice per turn of the loop, so a view to
/// every follower never holds up the game in one burst.
///
/// Invariant: runs on the hub's loop only; a connection that went is written nothing.
final class FrameWriter {
  private var backlogs = ConnectionBacklogs<ByteBuffer>()
  /// Counts states skipped for, and connections closed as, consumers that do not read.
  var metrics: ServerMetrics?
  private let logger: Logger
  private let loop: any EventLoop
  /// Lobby views waiting to be written, oldest first (``spreadSlice`` per turn).
  private var spread: [(link: ConnectionLink, frame: ByteBuffer)] = []
  private var spreadStart = 0
  /// Lobby views written per turn of the loop.
  static let spreadSlice = 16

  init(logger: Logger, loop: any EventLoop) {
    self.logger = logger
    self.loop = loop
  }

  /// Writes `deliveries` to the connections `links` names (a connection not there any
  /// more is skipped).
  func deliver(_ deliveries: [Delivery], links: [Int: ConnectionLink]) {
    let wasSpreading = spreadStart < spread.count
    for delivery in deliveries {
      guard let payload = delivery.payload else {
        for id in delivery.to { links[id]?.channel.close(promise: nil) }
        continue
      }
      let frame = ByteBuffer.frame(payload)
      for id in delivery.to {
        guard let link = links[id] else { continue }
        if delivery.spread {
          spread.append((link, frame))
          continue
        }
        // A connection that went while its batch was being saved keeps no backlog.
        guard link.channel.isActive else { continue }
        write(frame, to: link, isState: delivery.kind == .state)
      }
    }
    if !wasSpreading, spreadStart < spread.count { writeSpreadSlice() }
  }

  /// Writes the next slice of lobby views, and queues the rest for the loop's next turn.
  private func writeSpreadSlice() {
    let end = min(spread.count, spreadStart + Self.spreadSlice)
    for (link, frame) in spread[spreadStart..<end] where link.channel.isActive {
      write(frame, to: link, isState: true)
    }
    spreadStart = end
    guard spreadStart < spread.count else {
      spread.removeAll(keepingCapacity: true)
      spreadStart = 0
      return
    }
    // A timer, not `execute`: the loop runs tasks queued meanwhile before its sockets,
    // so chained tasks would be one burst again.
    _ = loop.assumeIsolated().scheduleTask(in: .milliseconds(1)) { self.writeSpreadSlice() }
  }

  /// The connection can take more: what waited for it goes out, the newest state last.
  func writable(_ link: ConnectionLink) {
    let frames = backlogs.drain(link.id)
    guard !frames.isEmpty else { return }
    for frame in frames { link.channel.write(frame, promise: nil) }
    link.channel.flush()
  }

  /// The connection is gone: nothing waits for it any more.
  func forget(_ id: Int) {
    backlogs.forget(id)
  }

  /// How many connections have something waiting.
  var backlogCount: Int { backlogs.count }

  private func write(_ frame: ByteBuffer, to link: ConnectionLink, isState: Bool) {
    switch backlogs.deliver(
      frame, bytes: frame.readableBytes, to: link.id, isState: isState,
      writable: link.channel.isWritable)
    {
    case .write:
      link.channel.writeAndFlush(frame, promise: nil)
    case .held:
      break
    case .replaced:
      metrics?.slowConsumerConflations.increment()
    case .close:
      metrics?.slowConsumerCloses.increment()
      logger.info("closing a connection that does not read", metadata: ["conn": "\(link.id)"])
      link.channel.close(promise: nil)
    }
  }
}
