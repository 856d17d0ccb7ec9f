import RoshamboGame
import RoshamboProtocol

/// A connection's `hello`: following the lobby, resuming a seat by its token, watching a
/// room, or joining one as a player.
extension HubCore {
  /// What a `hello` asked, from whom.
  struct Hello {
    var peer: Peer
    var version: Int
    var name: String
    var role: ClientMessage.Role
    var room: String?
    var resume: String?
    var fair: Bool?
    var challenges: Bool
    var patches = false
    var id: Int?
    var identity: String? { peer.identity }
  }

  mutating func hello(_ hello: Hello) {
    let link = hello.peer
    guard state.sessions[link.id] == nil, state.sessions.followers[link.id] == nil else {
      reply(link, .badMessage("hello was already accepted on this connection."), re: hello.id)
      return
    }
    guard hello.version == WireProtocol.version else {
      reply(link, .unsupportedProtocol(hello.version), re: hello.id)
      return
    }
    // A resume is by token, which holds the seat; spectators' names act on nothing.
    // A look at the lobby (`who`, `replay N`, `lobby --json`) acts on nothing, so it needs
    // no name of its own: it claims none and is refused none (it is not shown under a name
    // another holds).
    if hello.resume == nil, hello.role == .player || (hello.role == .lobby && hello.challenges) {
      if let refusal = nameRefusal(hello.name, identity: hello.identity, role: hello.role) {
        tell(HostNews.nameRefused(hello.name, heldByAnother: refusal.heldByAnother))
        reply(link, refusal.error, re: hello.id)
        return
      }
      claimName(hello.name, identity: hello.identity, link: link)
    }
    if hello.role == .lobby {
      followLobby(hello)
    } else if let token = hello.resume {
      resumeSeat(link, token: token, id: hello.id)
    } else if hello.role == .spectator, let room = hello.room {
      guard perform(.spectate(room: room), origin: Origin(link: link, re: hello.id)) != nil
      else { return }
      state.sessions.attachSpectator(
        link, room: room, name: hello.name, identity: hello.identity)
      state.outbox.append(.message(link, .welcome(room: room, seat: nil, token: nil)))
      log(.info, "spectating", ["conn": "\(link.id)", "room": room], event: .spectating)
    } else {
      join(hello)
    }
  }

  private mutating func followLobby(_ hello: Hello) {
    let link = hello.peer
    // A new lobby screen replaces the one a closed terminal left; a look does not.
    if hello.challenges { replaceGhosts(of: link, name: hello.name, identity: hello.identity) }
    state.sessions.follow(
      link, name: hello.name, takesChallenges: hello.challenges, playsFair: hello.fair != nil,
      identity: hello.identity, takesPatches: hello.patches)
    if hello.challenges, heldSeatArrived(link, name: hello.name, identity: hello.identity) {
      return
    }
    if hello.challenges, hello.identity != nil {
      entrantReturned(hello.name, link: link)
      tellLapsedEntry(hello.name, link: link)
    }
    state.feed.followed(by: link, takesPatches: hello.patches)
    state.feed.lobbyChanged()
    scheduleFlush()
    log(
      .info, "following the lobby", ["conn": "\(link.id)", "name": LogText.quoted(hello.name)],
      event: .followingTheLobby)
  }

  private mutating func join(_ hello: Hello) {
    let link = hello.peer
    let origin = Origin(link: link, re: hello.id)
    // Quick match for someone whose seat waits for them (its welcome never reached them):
    // that seat, not a match against it.
    if hello.room == nil, heldSeatArrived(link, name: hello.name, identity: hello.identity) {
      return
    }
    // A new player would start a new match: a draining server takes none.
    if refusedWhileDraining(origin, fatal: true) { return }
    let target = state.lobby.roomForJoin(requested: hello.room)
    if hello.fair == nil, state.lobby.settingsForJoin(requested: hello.room, fair: false).fair {
      reply(
        link,
        .needsUpgrade(
          .fairRoom, "Room \(target) plays fair (commit–reveal) and this client cannot",
          to: RoshamboVersion.playsFairSince, otherwise: "or join another room"),
        re: hello.id)
      return
    }
    let token = state.tokens.next()
    let stored = ResumeToken.stored(token)
    guard
      perform(
        .join(room: hello.room, name: hello.name, token: stored, fair: hello.fair == true, at: now),
        origin: origin) != nil,
      let seat = state.lobby.rooms[target]?.seat(holding: stored)
    else { return }
    state.sessions.attach(
      link, room: target, seat: seat, name: hello.name, token: stored, resumeToken: token,
      identity: hello.identity)
    state.outbox.append(.message(link, .welcome(room: target, seat: seat, token: token)))
    log(
      .info, "joined",
      [
        "conn": "\(link.id)", "room": target, "seat": "\(seat.rawValue)",
        "name": LogText.quoted(hello.name),
      ])
  }

  private mutating func resumeSeat(_ link: Peer, token: String, id: Int?) {
    let stored = ResumeToken.stored(token)
    guard let (room, seat) = state.seatTokens.locate(stored, in: state.lobby) else {
      // An entrant's token of last round, their match over: this round's seat is theirs
      // (its welcome went to a connection that was already lost).
      if let name = state.tournament.formerTokens[stored],
        let current = state.tournament.tokens[name],
        state.seatTokens.locate(ResumeToken.stored(current), in: state.lobby) != nil
      {
        resumeSeat(link, token: current, id: id)
      } else {
        reply(link, .badToken(), re: id)
      }
      return
    }
    let reconnecting = state.lobby.rooms[room]?.seats[seat]?.connected == false
    var (target, held) = (room, seat)
    if reconnecting {
      guard
        let effects = perform(
          .room(room, .reconnected(seat: seat, at: now)), origin: Origin(link: link, re: id))
      else { return }
      if let who = state.lobby.rooms[room]?.seats[seat]?.name {
        tell(HostNews.back(who, room: room))
      }
      // Back alone in a quick-match room, the player may have been paired elsewhere.
      for case .follow(let move) in effects where move.token == stored {
        (target, held) = (move.to, move.seat)
      }
    }
    if let old = state.sessions.audience(of: target)?.seats[held], old != link {
      // The same player on a new connection: the old one is stale.
      state.sessions.remove(old.id)
      state.outbox.append(.close(old))
    }
    let name = state.lobby.rooms[target]?.seats[held]?.name ?? ""
    state.sessions.attach(
      link, room: target, seat: held, name: name, token: stored, resumeToken: token,
      identity: link.identity)
    // The welcome first: a room's state goes out after every welcome into the room.
    state.outbox.append(.message(link, .welcome(room: target, seat: held, token: token)))
    if !reconnecting { state.outbox.append(.stateTo(link, target)) }
    scheduleFlush()
    log(
      .info, "resumed", ["conn": "\(link.id)", "room": target, "seat": "\(held.rawValue)"],
      event: .resumed)
  }
}
