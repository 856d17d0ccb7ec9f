import RoshamboGame
import RoshamboProtocol

/// Challenges between followers of the lobby: the ``ChallengeBoard`` decides, the hub
/// tells both sides each change (`challenge` messages), expires what nobody answers, and
/// seats both players in a new room when one is accepted.
extension HubCore {
  /// A follower challenges the person named `name`, on the lobby's terms where the
  /// challenge names none. `fair` asks for a fair match; on a server whose rooms are all
  /// fair (`--fair`) every challenge is fair, asked or not.
  mutating func challenge(
    _ name: String, bestOf: Int?, ruleset: Ruleset.ID?, fair asked: Bool, origin: Origin
  ) {
    guard let challenger = state.sessions.followers[origin.link.id], challenger.takesChallenges
    else {
      reply(
        origin.link,
        .notPlaying("Only someone following the lobby who can take challenges may make one."),
        re: origin.re)
      return
    }
    let target: Sessions.Follower
    switch state.sessions.challengeable(named: name) {
    case .success(let found): target = found
    case .failure(let refusal):
      reply(origin.link, ProtocolError(refusal), re: origin.re)
      return
    }
    let defaults = state.lobby.defaults
    let fair = asked || defaults.fair
    if fair, !(challenger.playsFair && target.playsFair) {
      let who = challenger.playsFair ? "\(name)'s program" : "your program"
      reply(
        origin.link,
        ProtocolError(
          code: .fairRoom,
          message: asked
            ? "\(name)'s program cannot play a fair (commit–reveal) match; challenge "
              + "without asking for one."
            : "Every match on this server is fair (commit–reveal), and \(who) cannot play "
              + "one."),
        re: origin.re)
      return
    }
    let terms = ChallengeBoard.Terms(
      bestOf: bestOf ?? defaults.bestOf, ruleset: ruleset ?? defaults.ruleset, fair: fair)
    let offer = ChallengeBoard.Action.offer(
      from: .init(
        id: challenger.link.id, name: challenger.name, identity: challenger.identity,
        address: challenger.link.address),
      to: .init(
        id: target.link.id, name: target.name, identity: target.identity,
        address: target.link.address), terms: terms, at: now)
    switch state.challenges.reduce(offer) {
    case .failure(let refusal): reply(origin.link, ProtocolError(refusal), re: origin.re)
    case .success(let events): settle(.success(events))
    }
  }

  /// The one challenged answers challenge `id`; a decline with `block` refuses its
  /// challenger's later challenges too, for the evening (journaled for a decliner with an
  /// identity), and both sides are told so.
  mutating func answer(_ id: Int, accept: Bool, block: Bool = false, origin: Origin) {
    let by = origin.link.id
    let action: ChallengeBoard.Action =
      accept
      ? .accept(id: id, by: by)
      : block ? .block(id: id, by: by, at: now) : .decline(id: id, by: by)
    let answered = state.challenges.pending[id]
    switch state.challenges.reduce(action) {
    case .failure(let refusal): reply(origin.link, ProtocolError(refusal), re: origin.re)
    case .success(let events):
      // The block of someone with an identity is journaled: a restart lifts none.
      if block, let answered, answered.to.identity != nil {
        for block in ChallengeBoard.blocks(of: answered, at: now) { perform(.blocked(block)) }
      }
      settle(.success(events), origin: origin, forTheEvening: block)
    }
  }

  /// Carries out what the board decided: each side still following is told (a decline
  /// `forTheEvening` saying so), timers start and stop, and an accepted challenge seats
  /// both once this is done (a follow-up: seating them settles again what their leaving
  /// the lobby ends, which must not run inside this).
  mutating func settle(
    _ result: Result<[ChallengeBoard.Event], Refusal>, origin: Origin? = nil,
    forTheEvening: Bool = false
  ) {
    guard case .success(let events) = result, !events.isEmpty else { return }
    for event in events {
      let challenge = event.challenge
      var told = ChallengeNotice(event)
      if case .declined = event { told.forTheEvening = forTheEvening }
      let notice = ServerMessage.challenge(told)
      for person in [challenge.from.id, challenge.to.id] {
        if let follower = state.sessions.followers[person] {
          state.outbox.append(.message(follower.link, notice))
        }
      }
      switch event {
      case .offered:
        schedule(.challengeExpiry(id: challenge.id), at: challenge.expiresAt)
      case .accepted:
        cancel(.challengeExpiry(id: challenge.id))
        queue(.seatChallenge(challenge, origin: origin))
      case .declined, .expired, .withdrawn:
        cancel(.challengeExpiry(id: challenge.id))
      }
    }
    scheduleFlush()
  }

  /// Seats both sides of an accepted challenge in a new room: the challenger in seat 1.
  /// Each stops following the lobby and gets a `welcome` (with a token to resume), then
  /// the room's state, as a player who joined.
  mutating func seat(_ challenge: ChallengeBoard.Challenge, origin: Origin?) {
    let sides = [challenge.from, challenge.to].compactMap { state.sessions.followers[$0.id] }
    guard sides.count == 2 else { return }
    var settings = state.lobby.defaults
    settings.bestOf = challenge.terms.bestOf
    settings.ruleset = challenge.terms.ruleset
    settings.fair = challenge.terms.fair
    let tokens = sides.map { _ in state.tokens.next() }
    let entrants = zip(sides, tokens).map {
      LobbyAction.Entrant(name: $0.name, token: ResumeToken.stored($1))
    }
    let room = state.lobby.nextMatchRoom
    guard perform(.openMatch(players: entrants, settings: settings, at: now), origin: origin) != nil
    else {
      // Nothing was seated (the journal cannot be written): both stay in the lobby.
      for side in sides where side.link != origin?.link {
        reply(side.link, .unavailable(), re: nil)
      }
      return
    }
    for (side, token) in zip(sides, tokens) {
      guard let seat = state.lobby.rooms[room]?.seat(holding: ResumeToken.stored(token)) else {
        continue
      }
      takeSeat(side.link, name: side.name, room: room, seat: seat, token: token)
    }
    if configuration.tellsNews {
      emit(
        .news(
          HostNews.challengeAccepted(
            from: challenge.from.name, to: challenge.to.name, room: room)))
    }
    log(
      .info, "challenge accepted",
      [
        "room": room, "from": LogText.quoted(challenge.from.name),
        "to": LogText.quoted(challenge.to.name),
      ], event: .challengeAccepted(id: challenge.id, room: room))
  }

  /// Takes `link` out of the lobby (whatever else it had pending with challenges ends)
  /// or out of a finished room (giving that seat up), and into `seat` of `room`, with a
  /// `welcome` carrying the seat's token; the room's state follows after the commit.
  mutating func takeSeat(_ link: Peer, name: String, room: String, seat: Seat, token: String) {
    let identity =
      state.sessions.followers[link.id]?.identity ?? state.sessions[link.id]?.identity
    if state.sessions.unfollow(link.id) {
      settle(state.challenges.reduce(.departed(link.id)))
    } else if let member = state.sessions.remove(link.id), let old = member.seat {
      perform(.room(member.room, .left(seat: old, at: now)))
    }
    state.sessions.attach(
      link, room: room, seat: seat, name: name, token: ResumeToken.stored(token),
      resumeToken: token, identity: identity)
    state.outbox.append(.message(link, .welcome(room: room, seat: seat, token: token)))
    scheduleFlush()
  }
}
