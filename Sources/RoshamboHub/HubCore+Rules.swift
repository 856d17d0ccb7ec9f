import RoshamboGame
import RoshamboProtocol

/// Actions through the rules: reduced once by ``HubReduction``, and each of their
/// ``HubEffect`` values carried out as state and outputs.
extension HubCore {
  /// Reduces `action` and carries out its effects; returns them, or nil when it was
  /// refused (answered to `origin`, if any: a stale timer or connection event is
  /// nobody's mistake and dropped silently), or when play is paused because the journal
  /// cannot be written (answered `unavailable`; timers and dropped connections are
  /// reconciled once it can be written again).
  @discardableResult
  mutating func perform(_ action: LobbyAction, origin: Origin? = nil) -> [HubEffect]? {
    guard state.commits.acceptsActions else {
      if let origin { reply(origin.link, .unavailable(), re: origin.re) }
      return nil
    }
    let concerned = state.lobby.room(of: action)
    switch HubReduction.reduce(&state.lobby, action) {
    case .failure(let refusal):
      if case .stale = refusal { return nil }
      if let origin {
        reply(origin.link, ProtocolError(refusal), re: origin.re)
        log(
          .info, "refused", ["conn": "\(origin.link.id)", "code": "\(ErrorCode(refusal))"],
          event: .refused)
      }
      return nil
    case .success(let effects):
      if origin != nil { count(.actionAccepted) }
      indexTokens(of: concerned, touchedBy: effects)
      for effect in effects { run(effect, origin: origin) }
      state.feed.lobbyChanged()
      if waitsForTheOtherReveal(action) {
        holdFlush()
      } else {
        scheduleFlush()
      }
      return effects
    }
  }

  /// How long a fair room's first reveal of a round waits for the other seat's. Both
  /// seats reveal as soon as they see both commitments, so the second usually comes
  /// within a round trip: both are then made durable in one commit and the result goes
  /// out in one state, instead of a commit and a state for each (the first state says
  /// only that one seat revealed). Past this, the first goes out alone.
  static let revealHoldMillis: Int64 = 20

  /// Whether `action`, just carried out, is a reveal that left its round waiting for the
  /// other seat's (the second resolves the round: the room moves to the next, or is over).
  private func waitsForTheOtherReveal(_ action: LobbyAction) -> Bool {
    guard case .room(let name, .revealed(_, let round, _, _, _, _)) = action,
      let room = state.lobby.rooms[name]
    else { return false }
    return room.phase == .choosing && room.round == round
  }

  /// Commits and sends what gathered at the next flush anything else asks for, or when
  /// ``revealHoldMillis`` have passed, whichever comes first.
  private mutating func holdFlush() {
    guard !state.flushScheduled, state.timers[.heldReveal] == nil else { return }
    schedule(.heldReveal, at: now + Self.revealHoldMillis)
  }

  /// The rooms an accepted action touched (the one it concerned, those it sent states
  /// of, moved players between or closed) are indexed again in ``HubState/seatTokens``.
  private mutating func indexTokens(of concerned: String?, touchedBy effects: [HubEffect]) {
    if let concerned { state.seatTokens.index(concerned, in: state.lobby) }
    for effect in effects {
      switch effect {
      case .sendState(let room), .cancelTimer(.deadline(let room)):
        // A pick's room is the one it concerned: indexed already.
        if room != concerned { state.seatTokens.index(room, in: state.lobby) }
      case .follow(let move):
        state.seatTokens.index(move.from, in: state.lobby)
        state.seatTokens.index(move.to, in: state.lobby)
      default:
        break
      }
    }
  }

  private mutating func run(_ effect: HubEffect, origin: Origin?) {
    switch effect {
    case .journal(let action): state.batch.record(action, origin: origin)
    case .recordMatch(let match): state.batch.record(judged(match))
    case .sendState(let room): state.outbox.append(.roomState(room))
    case .follow(let move): follow(move)
    case .startDeadline(let room, let round, let at):
      schedule(.deadline(room: room), at: at, round: round)
    case .startGrace(let room, let seat, let at):
      schedule(.grace(room: room, seat: seat), at: at)
      if let held = state.lobby.rooms[room], held.phase != .over, let who = held.seats[seat]?.name {
        let seconds = Self.seconds(ofGrace: held.settings.graceMillis)
        tell(HostNews.connectionLost(who, room: room, graceSeconds: seconds))
      }
    case .cancelTimer(let timer): cancel(timer)
    case .forgetRoom(let room): state.sessions.forgetSeats(of: room)
    case .tournament(let event): tournamentChanged(event)
    case .log(let line): log(line)
    }
  }

  /// `match` rated or not by the server's ``RatingRule``: each seat's holder is the
  /// identity holding its name, from the address the seat was last taken from.
  private func judged(_ match: FinishedMatch) -> FinishedMatch {
    let holders = zip(Seat.allCases, match.players).map { seat, name in
      RatingRule.Holder(
        identity: state.lobby.names.holder(of: name),
        address: state.sessions.address(of: seat, in: match.room))
    }
    return configuration.ratingRule.judged(match, holders: holders)
  }

  /// The game's log: nothing of a round before it resolves.
  private mutating func log(_ line: GameLogLine) {
    switch line {
    case .round(let room, let result):
      count(.roundResolved)
      log(.info, "round", event: .roundResolved) {
        [
          "room": room, "round": "\(result.round)",
          "weapons": "\(result.weapons.map { $0?.rawValue ?? "none" })",
          "winner": "\(result.winner?.rawValue ?? 0)",
        ]
      }
    case .matchOver(let match):
      if configuration.tellsNews, let sentence = HostNews.match(match) { emit(.news(sentence)) }
      count(.matchFinished(forfeit: match.forfeit, fair: match.fair))
      log(.info, "match over", event: .matchOver) {
        ["room": match.room, "winner": LogText.quoted(match.winner), "score": "\(match.scores)"]
      }
      for name in match.players { queue(.callToWaitingSeat(name: name, finished: match.room)) }
    case .graceExpired(let room, let seat):
      log(
        .info, "grace expired", ["room": room, "seat": "\(seat.rawValue)"],
        event: .graceExpired(room: room, seat: seat))
      if let held = state.lobby.rooms[room], let who = held.seats[seat]?.name {
        let seconds = Self.seconds(ofGrace: held.settings.graceMillis)
        tell(HostNews.graceRanOut(who, room: room, graceSeconds: seconds))
      }
    }
  }

  /// Quick match moved a player left alone (``LobbyEvent/Move``): their connection, if
  /// it is here, follows them, with the old room's last state, then a new `welcome` (the
  /// same token) before the new room's state.
  private mutating func follow(_ move: LobbyEvent.Move) {
    guard let link = state.sessions.audience(of: move.from)?.seats[move.fromSeat],
      let member = state.sessions[link.id], member.token == move.token,
      let resumeToken = member.resumeToken
    else { return }
    let last = move.lastState
    state.outbox.append(
      .message(link, .state(seq: last.version, view: last.view(for: move.fromSeat))))
    state.sessions.remove(link.id)
    state.sessions.attach(
      link, room: move.to, seat: move.seat, name: member.name, token: move.token,
      resumeToken: resumeToken, identity: member.identity)
    state.outbox.append(
      .message(link, .welcome(room: move.to, seat: move.seat, token: resumeToken)))
    log(
      .info, "moved by quick match",
      ["conn": "\(link.id)", "from": move.from, "room": move.to, "seat": "\(move.seat.rawValue)"],
      event: .movedByQuickMatch)
  }

  /// Makes the lobby agree with the connections the hub holds: a seat marked connected
  /// with no connection starts its grace, spectators nobody holds are removed (a room left
  /// empty goes away), every deadline and grace is scheduled, and a follower whose seat
  /// waits is seated in it. Run after a restart and
  /// when the journal can be written again after failing.
  mutating func reconcile() {
    for (name, room) in state.lobby.rooms.sorted(by: { $0.key < $1.key }) {
      let audience = state.sessions.audience(of: name)
      for (seat, held) in room.seats.sorted(by: { $0.key < $1.key })
      where !held.hasLeft && held.connected {
        if audience?.seats[seat] == nil { perform(.room(name, .disconnected(seat: seat, at: now))) }
      }
      let watching = audience?.spectators.count ?? 0
      for _ in 0..<max(0, room.spectators - watching) { perform(.room(name, .spectatorLeft)) }
    }
    for (name, room) in state.lobby.rooms.sorted(by: { $0.key < $1.key }) {
      for (seat, held) in room.seats.sorted(by: { $0.key < $1.key })
      where !held.hasLeft && !held.connected {
        if let ends = held.graceEndsAt { schedule(.grace(room: name, seat: seat), at: ends) }
      }
      if let deadline = room.deadline, room.phase == .choosing {
        schedule(.deadline(room: name), at: deadline, round: room.round)
      } else {
        cancel(.deadline(room: name))
      }
    }
    // Someone back in the lobby while nothing could be written (or before a close was
    // seen) has their waiting seat now.
    let waiting = state.lobby.rooms.values.flatMap { room in
      room.seats.values.filter { !$0.hasLeft && !$0.connected }.map(\.name)
    }
    for name in Set(waiting).sorted() { seatFollowerBack(name) }
    flush()
  }
}
