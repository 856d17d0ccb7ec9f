import Logging
import NIOCore
import RoshamboGame
import RoshamboProtocol

/// Turns the outbox into frames on connections: each room's state encoded once per
/// audience (seat 1, seat 2, spectators), never once per connection, and held for
/// connections that cannot take more now.
///
/// Invariant: room state leaves only through `RoomState.view(for:)`; no frame over the
/// protocol's limit is ever written (it is logged as a server bug instead).
final class Broadcaster {
  private var backlogs = ConnectionBacklogs()
  private let logger: Logger

  init(logger: Logger) {
    self.logger = logger
  }

  /// Sends `items` (already in sending order) from `lobby` to the connections `sessions`
  /// names.
  func send(_ items: [Outbox.Item], lobby: LobbyState, sessions: Sessions) {
    for item in items {
      switch item {
      case .message(let link, let message):
        send(message, to: link, room: sessions[link.id]?.room)
      case .roomState(let name):
        guard let room = lobby.rooms[name], let audience = sessions.audience(of: name) else {
          continue
        }
        broadcast(room, to: audience)
      case .stateTo(let link, let name):
        guard let room = lobby.rooms[name] else { continue }
        let seat = sessions[link.id]?.seat
        send(.state(seq: room.version, view: room.view(for: seat)), to: link, room: name)
      case .close(let link):
        link.channel.close(promise: nil)
      }
    }
  }

  /// The connection can take more: what waited for it goes out, the newest state last.
  func writable(_ link: ConnectionLink) {
    let frames = backlogs.drain(link.id)
    guard !frames.isEmpty else { return }
    for frame in frames { link.channel.write(frame, promise: nil) }
    link.channel.flush()
  }

  /// The connection is gone: nothing waits for it any more.
  func forget(_ link: ConnectionLink) {
    backlogs.forget(link.id)
  }

  /// How many connections have something waiting.
  var backlogCount: Int { backlogs.count }

  private func broadcast(_ room: RoomState, to audience: Sessions.Audience) {
    for (seat, link) in audience.seats {
      send(.state(seq: room.version, view: room.view(for: seat)), to: link, room: room.name)
    }
    if !audience.spectators.isEmpty,
      let frame = frame(.state(seq: room.version, view: room.view(for: nil)), room: room.name)
    {
      for link in audience.spectators { deliver(frame, to: link, isState: true) }
    }
  }

  private func send(_ message: ServerMessage, to link: ConnectionLink, room: String?) {
    guard let frame = frame(message, room: room) else { return }
    if case .state = message {
      deliver(frame, to: link, isState: true)
    } else {
      deliver(frame, to: link, isState: false)
    }
  }

  /// The message as a frame, or nil (logged as critical) if it would be over the
  /// protocol's limit: a peer could not read it, so it is a server bug never to send.
  private func frame(_ message: ServerMessage, room: String?) -> ByteBuffer? {
    let payload = message.encoded()
    guard payload.count <= WireProtocol.maxFrameLength else {
      logger.critical(
        "a frame over the protocol's limit was not sent (a server bug: please report it)",
        metadata: ["bytes": "\(payload.count)", "room": "\(room ?? "-")"])
      return nil
    }
    return ByteBuffer.frame(payload)
  }

  private func deliver(_ frame: ByteBuffer, to link: ConnectionLink, isState: Bool) {
    switch backlogs.deliver(frame, to: link.id, isState: isState, writable: link.channel.isWritable)
    {
    case .write:
      link.channel.writeAndFlush(frame, promise: nil)
    case .held:
      break
    case .close:
      logger.info("closing a connection that does not read", metadata: ["conn": "\(link.id)"])
      link.channel.close(promise: nil)
    }
  }
}
