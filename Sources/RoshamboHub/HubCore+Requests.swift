import RoshamboGame
import RoshamboProtocol

/// What connections say: each message turned into a lobby action (or a challenge, an
/// entry, a reading), who may say what, and a connection's going.
extension HubCore {
  mutating func receive(_ message: ClientMessage, from peer: Peer) {
    switch message {
    case .hello(
      let version, let name, let role, let room, let resume, let fair, let challenges, _,
      let patches, let id):
      hello(
        Hello(
          peer: peer, version: version, name: name, role: role, room: room, resume: resume,
          fair: fair, challenges: challenges, patches: patches, id: id))
    case .lobbyResync(let id):
      resendLobbyView(to: peer, re: id)
    case .challenge(let name, let bestOf, let ruleset, let fair, let id):
      let origin = Origin(link: peer, re: id)
      if refusedWhileDraining(origin) { break }
      challenge(name, bestOf: bestOf, ruleset: ruleset, fair: fair, origin: origin)
    case .accept(let challenge, let id):
      if refusedWhileDraining(Origin(link: peer, re: id)) { break }
      answer(challenge, accept: true, origin: Origin(link: peer, re: id))
    case .decline(let challenge, let block, let id):
      answer(challenge, accept: false, block: block, origin: Origin(link: peer, re: id))
    case .enter(let id):
      if refusedWhileDraining(Origin(link: peer, re: id)) { break }
      enterTournament(Origin(link: peer, re: id), withdraw: false)
    case .withdraw(let id):
      enterTournament(Origin(link: peer, re: id), withdraw: true)
    case .match(let match, let id):
      sendRecord(of: Int64(match), origin: Origin(link: peer, re: id))
    case .choose(let round, let weapon, let id):
      guard let (room, seat) = seat(of: peer, re: id) else { break }
      log(.debug, "chose") {
        ["conn": "\(peer.id)", "room": room, "seat": "\(seat.rawValue)", "round": "\(round)"]
      }
      perform(
        .room(room, .chose(seat: seat, round: round, weapon: weapon, at: now)),
        origin: Origin(link: peer, re: id))
    case .commit(let round, let digest, let id):
      guard let (room, seat) = seat(of: peer, re: id) else { break }
      perform(
        .room(room, .committed(seat: seat, round: round, digest: digest, at: now)),
        origin: Origin(link: peer, re: id))
    case .reveal(let round, let weapon, let nonce, let id):
      guard let (room, seat) = seat(of: peer, re: id) else { break }
      // Checked here, outside the reducer: the action carries the result, so replaying
      // the journal needs no hashing and always gives the same room.
      let commitment = state.lobby.rooms[room]?.seats[seat]?.commitment
      let matches =
        commitment.map {
          Commitment.verify(
            $0, room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
        } ?? false
      perform(
        .room(
          room,
          .revealed(
            seat: seat, round: round, weapon: weapon, nonce: nonce, matches: matches, at: now)),
        origin: Origin(link: peer, re: id))
    case .rematch(let id):
      guard let (room, seat) = seat(of: peer, re: id),
        !refusedWhileDraining(Origin(link: peer, re: id))
      else { break }
      perform(
        .room(room, .rematchRequested(seat: seat, at: now)), origin: Origin(link: peer, re: id))
    case .leave(let id):
      leave(peer, re: id)
    case .ping:
      break
    }
  }

  private mutating func leave(_ peer: Peer, re id: Int?) {
    if let follower = state.sessions.followers[peer.id], state.sessions.unfollow(peer.id) {
      settle(state.challenges.reduce(.departed(peer.id)))
      tournamentFollowerLeft(follower.name, link: peer, dropped: false)
      state.feed.lobbyChanged()
      state.outbox.append(.close(peer))
      scheduleFlush()
      return
    }
    guard let member = state.sessions.remove(peer.id) else {
      reply(peer, .notPlaying("You have not joined a room."), re: id)
      return
    }
    let action: RoomAction = member.seat.map { .left(seat: $0, at: now) } ?? .spectatorLeft
    perform(.room(member.room, action), origin: Origin(link: peer, re: id))
    log(.info, "left", ["conn": "\(peer.id)", "room": member.room])
    state.outbox.append(.close(peer))
    scheduleFlush()
  }

  /// The connection is gone: its seat starts its grace, or its spectator leaves.
  mutating func closed(_ peer: Peer) {
    if let follower = state.sessions.followers[peer.id], state.sessions.unfollow(peer.id) {
      settle(state.challenges.reduce(.departed(peer.id)))
      tournamentFollowerLeft(follower.name, link: peer, dropped: true)
      state.feed.lobbyChanged()
      scheduleFlush()
    }
    state.noticesAfterFirstView[peer.id] = nil
    state.feed.forget(peer.id)
    guard let member = state.sessions.remove(peer.id) else { return }
    if let seat = member.seat {
      perform(.room(member.room, .disconnected(seat: seat, at: now)))
      log(.info, "disconnected", ["conn": "\(peer.id)", "room": member.room])
      seatFollowerBack(member.name)
    } else {
      perform(.room(member.room, .spectatorLeft))
    }
  }

  /// The room and seat `peer` plays in, or nil (and `peer` is told why not).
  private mutating func seat(of peer: Peer, re: Int?) -> (String, Seat)? {
    guard let member = state.sessions[peer.id] else {
      reply(peer, .notPlaying("You have not joined a room; send hello first."), re: re)
      return nil
    }
    guard let seat = member.seat else {
      reply(peer, .notPlaying("Spectators watch; they do not play."), re: re)
      return nil
    }
    return (member.room, seat)
  }
}
