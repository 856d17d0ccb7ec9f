import Logging
import NIOCore
import RoshamboGame
import RoshamboProtocol

/// Turns the outbox into frames on connections: each room's state encoded once per
/// audience (seat 1, seat 2, spectators), never once per connection, when its batch is
/// sealed (``prepare(_:lobby:sessions:)``), then written once the batch is durable
/// (``deliver(_:)``), held for connections that cannot take more now.
///
/// Invariant: room state leaves only through `RoomState.view(for:)`; no frame over the
/// protocol's limit is ever written (it is logged as a server bug instead).
final class Broadcaster {
  private var backlogs = ConnectionBacklogs()
  /// When the tournament's next round is paired (ms since 1970), if its timer runs: the
  /// tournament's rooms say it.
  var tournamentStartsAt: Int64?
  /// The stage each tournament room's latest state carried, by its version: a state sent
  /// again (to a seat resumed) is the very view sent before, as the protocol says.
  private var stages: [String: (version: Int, stage: RoomView.TournamentStage?)] = [:]
  /// Counts states skipped for, and connections closed as, consumers that do not read.
  var metrics: ServerMetrics?
  private let logger: Logger
  private let loop: any EventLoop
  /// Lobby views waiting to be written, oldest first: a view goes to every follower, so
  /// it is written a slice every millisecond instead of in one burst that would hold up
  /// the game (``spreadSlice``).
  private var spread: [(link: ConnectionLink, frame: ByteBuffer)] = []
  private var spreadStart = 0
  /// Lobby views written per turn of the loop.
  static let spreadSlice = 16

  init(logger: Logger, loop: any EventLoop) {
    self.logger = logger
    self.loop = loop
  }

  /// A frame ready to write (or a close), made when its batch was sealed and written
  /// once the batch is durable.
  struct Delivery {
    enum Kind {
      case state, error, other

      init(_ message: ServerMessage) {
        switch message {
        case .state: self = .state
        case .error: self = .error
        default: self = .other
        }
      }
    }
    let link: ConnectionLink
    /// nil: close the connection.
    let frame: ByteBuffer?
    let kind: Kind
    /// A lobby view: written a slice per turn of the loop (conflated like a state).
    var spread = false

    /// Whether it may still go out when the commit it waited for failed: errors and
    /// closes say nothing of what was not saved.
    var survivesFailedCommit: Bool { frame == nil || kind == .error }
  }

  /// Encodes `items` (already in sending order) from `lobby` for the connections
  /// `sessions` names: each room's state once per audience.
  func prepare(_ items: [Outbox.Item], lobby: LobbyState, sessions: Sessions) -> [Delivery] {
    var deliveries: [Delivery] = []
    deliveries.reserveCapacity(items.count)
    func add(_ message: ServerMessage, to link: ConnectionLink, room: String?) {
      guard let frame = frame(message, room: room) else { return }
      deliveries.append(Delivery(link: link, frame: frame, kind: Delivery.Kind(message)))
    }
    // A tournament's room also says where the tournament stands (the same for everyone).
    // A state sent again for the same version carries the stage it carried first.
    func view(_ room: RoomState, for seat: Seat?) -> RoomView {
      var view = room.view(for: seat)
      guard Tournament.isTournamentRoom(room.name) else { return view }
      if let sent = stages[room.name], sent.version == room.version {
        view.tournament = sent.stage
      } else {
        view.tournament = lobby.tournament?.stage(
          ofRoom: room.name, startsAt: tournamentStartsAt)
        stages[room.name] = (room.version, view.tournament)
      }
      return view
    }
    defer {
      // Rooms closed since are forgotten.
      if stages.count > lobby.rooms.count + 64 {
        stages = stages.filter { lobby.rooms[$0.key] != nil }
      }
    }
    for item in items {
      switch item {
      case .message(let link, let message):
        add(message, to: link, room: sessions[link.id]?.room)
      case .roomState(let name):
        guard let room = lobby.rooms[name], let audience = sessions.audience(of: name) else {
          continue
        }
        for (seat, link) in audience.seats {
          add(.state(seq: room.version, view: view(room, for: seat)), to: link, room: name)
        }
        // One frame for every spectator.
        if !audience.spectators.isEmpty,
          let frame = frame(.state(seq: room.version, view: view(room, for: nil)), room: name)
        {
          for link in audience.spectators {
            deliveries.append(Delivery(link: link, frame: frame, kind: .state))
          }
        }
      case .stateTo(let link, let name):
        guard let room = lobby.rooms[name] else { continue }
        let seat = sessions[link.id]?.seat
        add(.state(seq: room.version, view: view(room, for: seat)), to: link, room: name)
      case .close(let link):
        deliveries.append(Delivery(link: link, frame: nil, kind: .other))
      case .lobby(let seq, let view, let to):
        // One encoding for every follower; a follower that cannot take more keeps only
        // the newest, as a spectator does its room's state.
        guard let frame = frame(.lobby(seq: seq, view: view), room: nil) else { continue }
        // Only to those who follow it still (a newcomer may have been seated since).
        for link in to ?? sessions.followers.values.map(\.link)
        where sessions.followers[link.id] != nil {
          deliveries.append(Delivery(link: link, frame: frame, kind: .state, spread: true))
        }
      case .afterLobbyViews(let link, let message):
        guard sessions.followers[link.id] != nil, let frame = frame(message, room: nil) else {
          continue
        }
        deliveries.append(
          Delivery(link: link, frame: frame, kind: Delivery.Kind(message), spread: true))
      }
    }
    return deliveries
  }

  /// Writes what was prepared: now if a connection can take it, else into its backlog.
  func deliver(_ deliveries: [Delivery]) {
    let wasSpreading = spreadStart < spread.count
    for delivery in deliveries {
      guard let frame = delivery.frame else {
        delivery.link.channel.close(promise: nil)
        continue
      }
      if delivery.spread {
        spread.append((delivery.link, frame))
        continue
      }
      // A connection that went while its batch was being saved keeps no backlog.
      guard delivery.link.channel.isActive else { continue }
      deliver(frame, to: delivery.link, isState: delivery.kind == .state)
    }
    if !wasSpreading, spreadStart < spread.count { writeSpreadSlice() }
  }

  /// Writes the next slice of lobby views, and queues the rest for the loop's next turn.
  private func writeSpreadSlice() {
    let end = min(spread.count, spreadStart + Self.spreadSlice)
    for (link, frame) in spread[spreadStart..<end] where link.channel.isActive {
      deliver(frame, to: link, isState: true)
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
  func forget(_ link: ConnectionLink) {
    backlogs.forget(link.id)
  }

  /// How many connections have something waiting.
  var backlogCount: Int { backlogs.count }

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
    case .replaced:
      metrics?.slowConsumerConflations.increment()
    case .close:
      metrics?.slowConsumerCloses.increment()
      logger.info("closing a connection that does not read", metadata: ["conn": "\(link.id)"])
      link.channel.close(promise: nil)
    }
  }
}
