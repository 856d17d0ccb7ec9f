import RoshamboGame
import RoshamboProtocol

/// The outbox as deliveries: each room's state encoded once per audience (seat 1, seat
/// 2, spectators), never once per connection, when its batch is sealed; the driver
/// writes them once the batch is durable.
///
/// Room state leaves only through `RoomState.view(for:)`; no frame over the protocol's
/// limit is ever made (it is logged as a server bug instead).
extension HubCore {
  /// What is pending, in sending order, as deliveries (a lobby view first, when due).
  mutating func prepareDeliveries() -> [Delivery] {
    queueLobbyView()
    let items = state.outbox.take()
    guard !items.isEmpty else { return [] }
    var deliveries: [Delivery] = []
    deliveries.reserveCapacity(items.count)
    // What everyone's lobby delivery cost a follower, on average: it paces the next
    // (``LobbyFeed/bytesPerSecond``).
    var paced = (bytes: 0, links: 0)
    for item in items {
      switch item {
      case .message(let link, let message):
        add(message, to: [link.id], room: state.sessions[link.id]?.room, into: &deliveries)
      case .roomState(let name):
        guard let room = state.lobby.rooms[name], let audience = state.sessions.audience(of: name)
        else { continue }
        for (seat, link) in audience.seats.sorted(by: { $0.key < $1.key }) {
          let view = tournamentView(room, for: seat)
          add(.state(seq: room.version, view: view), to: [link.id], room: name, into: &deliveries)
        }
        // One frame for every spectator.
        if !audience.spectators.isEmpty {
          let view = tournamentView(room, for: nil)
          add(
            .state(seq: room.version, view: view), to: audience.spectators.map(\.id).sorted(),
            room: name,
            into: &deliveries)
        }
      case .stateTo(let link, let name):
        guard let room = state.lobby.rooms[name] else { continue }
        let view = tournamentView(room, for: state.sessions[link.id]?.seat)
        add(.state(seq: room.version, view: view), to: [link.id], room: name, into: &deliveries)
      case .close(let link):
        deliveries.append(Delivery(to: [link.id], payload: nil, kind: .other))
      case .lobby(let seq, let view, let to, let toAll):
        // Only to those who follow it still (a newcomer may have been seated since).
        let followers = state.sessions.followers
        let links =
          to?.filter { followers[$0.id] != nil }
          ?? followers.keys.sorted().map { followers[$0]!.link }
        guard !links.isEmpty,
          let payload = payload(.lobby(seq: seq, view: view), room: nil)
        else { continue }
        if to == nil || toAll {
          paced.bytes += (payload.count + 4) * links.count
          paced.links += links.count
        }
        deliveries.append(
          Delivery(to: links.map(\.id), payload: payload, kind: .state, spread: true))
      case .lobbyPatch(let seq, let base, let fingerprint, let patch, let to):
        let links = to.filter { state.sessions.followers[$0.id] != nil }
        let message = ServerMessage.lobbyPatch(
          seq: seq, base: base, fingerprint: fingerprint, patch: patch)
        guard !links.isEmpty, let payload = payload(message, room: nil) else { continue }
        paced.bytes += (payload.count + 4) * links.count
        paced.links += links.count
        deliveries.append(
          Delivery(to: links.map(\.id), payload: payload, kind: .state, spread: true))
      case .board(let seq, var view):
        // The board's view has the tournament's earlier rounds too (a page opened late
        // draws the whole bracket): an event of its stream, not held to a frame's limit.
        if let rounds = state.lobby.tournament?.rounds.dropLast(), !rounds.isEmpty {
          view.tournament?.earlier = LobbyView.TournamentView.earlier(rounds)
        }
        let payload = ServerMessage.lobby(seq: seq, view: view).announcing(
          configuration.frameRate
        ).encoded()
        var delivery = Delivery(to: [Delivery.boardID], payload: payload, kind: .state)
        delivery.sentLobbyView = SentLobbyView(seq: seq, view: view, message: payload)
        deliveries.append(delivery)
      case .boardRecord(let answer):
        // The protocol's own answer as the payload; the board reads the value.
        let message: ServerMessage =
          switch answer.outcome {
          case .record(let match): .record(match, re: answer.request)
          case .noSuchMatch(let words):
            .error(ProtocolError(code: .noSuchMatch, message: words), re: answer.request)
          case .busy(let words): .error(.rateLimited(words, fatal: false), re: answer.request)
          case .unreadable(let words):
            .error(ProtocolError(code: .unavailable, message: words), re: answer.request)
          }
        var delivery = Delivery(
          to: [Delivery.boardID], payload: message.encoded(), kind: Delivery.Kind(message))
        delivery.boardRecord = answer
        deliveries.append(delivery)
      case .afterLobbyViews(let link, let message):
        guard state.sessions.followers[link.id] != nil, let payload = payload(message, room: nil)
        else { continue }
        deliveries.append(
          Delivery(to: [link.id], payload: payload, kind: Delivery.Kind(message), spread: true))
      }
    }
    if paced.links > 0 { state.feed.lastViewBytes = paced.bytes / paced.links }
    // Rooms closed since are forgotten.
    if state.stages.count > state.lobby.rooms.count + 64 {
      state.stages = state.stages.filter { state.lobby.rooms[$0.key] != nil }
    }
    return deliveries
  }

  private mutating func add(
    _ message: ServerMessage, to ids: [Int], room: String?, into deliveries: inout [Delivery]
  ) {
    guard let payload = payload(message, room: room) else { return }
    deliveries.append(Delivery(to: ids, payload: payload, kind: Delivery.Kind(message)))
  }

  /// A room's view for `seat`; a tournament's room also says where the tournament stands
  /// (the same for everyone), and a state sent again for the same version carries the
  /// stage it carried first.
  private mutating func tournamentView(_ room: RoomState, for seat: Seat?) -> RoomView {
    var view = room.view(for: seat)
    guard Tournament.isTournamentRoom(room.name) else { return view }
    if let sent = state.stages[room.name], sent.version == room.version {
      view.tournament = sent.stage
    } else {
      view.tournament = state.lobby.tournament?.stage(
        ofRoom: room.name, startsAt: state.tournament.startsAt)
      state.stages[room.name] = (room.version, view.tournament)
    }
    return view
  }

  /// The message encoded, or nil (logged as critical) if it would be over the protocol's
  /// limit: a peer could not read it, so it is a server bug never to send.
  private mutating func payload(_ message: ServerMessage, room: String?) -> [UInt8]? {
    let payload = message.announcing(configuration.frameRate).encoded()
    guard payload.count <= WireProtocol.maxFrameLength else {
      log(
        .critical,
        "a frame over the protocol's limit was not sent (a server bug: please report it)",
        ["bytes": "\(payload.count)", "room": room ?? "-"], event: .frameOverLimit)
      return nil
    }
    return payload
  }
}
