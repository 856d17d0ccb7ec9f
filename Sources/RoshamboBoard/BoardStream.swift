import Foundation
import NIOCore
import NIOHTTP1
import RoshamboHub

/// The board's viewers and their feed on the board's own loop: views come in from the
/// hub's loop (one hop each), events go out to every viewer's connection.
///
/// Invariant: touched on ``loop`` only; every open stream is in ``viewers`` and in
/// `channels`, and a dropped or closed one in neither.
final class BoardStream {
  let loop: any EventLoop
  private var feed = BoardFeed()
  private var viewers: BoardViewers
  private var channels: [Int: any Channel] = [:]
  private var nextID = 1
  /// Connections open on the board's port (page loads and streams), and their bound.
  private(set) var connections = 0
  let maxConnections: Int
  private var keepalive: Scheduled<Void>?
  /// Once the server closes, no stream opens.
  private var closed = false

  init(loop: any EventLoop, viewers: Int) {
    self.loop = loop
    self.viewers = BoardViewers(capacity: viewers)
    // Room for the page's own files beside the streams.
    self.maxConnections = max(0, viewers) + 16
  }

  /// A connection arrived: whether it may stay (it is counted until it closes).
  func connectionOpened(_ channel: any Channel) -> Bool {
    guard connections < maxConnections, !closed else { return false }
    connections += 1
    channel.closeFuture.assumeIsolated().whenComplete { _ in self.connections -= 1 }
    if keepalive == nil { scheduleKeepalive() }
    return true
  }

  /// A comment to every stream every 15 s, until the server closes.
  private func scheduleKeepalive() {
    keepalive = loop.assumeIsolated().scheduleTask(in: .seconds(15)) {
      self.send(BoardFeed.keepalive)
      if !self.closed { self.scheduleKeepalive() }
    }
  }

  /// `channel` asks for the stream: its id, or nil when the board is full (or closing).
  func open(_ channel: any Channel) -> Int? {
    guard !closed else { return nil }
    let id = nextID
    guard viewers.admit(id) else { return nil }
    nextID += 1
    channels[id] = channel
    channel.closeFuture.assumeIsolated().whenComplete { _ in self.close(id) }
    return id
  }

  /// What a stream starts with: how soon to come back, and the whole view if there is one.
  var welcome: [UInt8] {
    BoardFeed.retry + (feed.welcome ?? [])
  }

  func close(_ id: Int) {
    viewers.leave(id)
    channels[id] = nil
  }

  /// A view went to every follower of the lobby (now, by the system's clock).
  func received(_ view: SentLobbyView) {
    send(feed.received(view, at: Int64(Date().timeIntervalSince1970 * 1_000)))
  }

  /// The server is closing: every viewer is told, and its stream ends.
  func shutDown() {
    closed = true
    keepalive?.cancel()
    for (id, channel) in channels.sorted(by: { $0.key < $1.key }) {
      close(id)
      channel.writeAndFlush(Self.part(BoardFeed.closing)).assumeIsolated().whenComplete { _ in
        channel.close(promise: nil)
      }
    }
  }

  /// How many streams are open (for tests).
  var viewerCount: Int { channels.count }

  private func send(_ event: [UInt8]) {
    for (id, channel) in channels.sorted(by: { $0.key < $1.key }) {
      switch viewers.deliver(to: id, writable: channel.isWritable) {
      case .write:
        channel.writeAndFlush(Self.part(event), promise: nil)
      case .drop:
        channels[id] = nil
        channel.close(promise: nil)
      }
    }
  }

  static func part(_ bytes: [UInt8]) -> HTTPServerResponsePart {
    .body(.byteBuffer(ByteBuffer(bytes: bytes)))
  }
}
