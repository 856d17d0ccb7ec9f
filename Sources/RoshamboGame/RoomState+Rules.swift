extension RoomState {
  /// Applies `action` if the rules allow it and returns nil, or returns why not and
  /// changes nothing.
  @discardableResult
  public mutating func apply(_ action: RoomAction) -> Refusal? {
    if let refusal = refusal(for: action) { return refusal }
    applyAccepted(action)
    return nil
  }

  /// Applies `action` if the rules allow it and returns what it did, or returns why not
  /// and changes nothing.
  public mutating func reduce(_ action: RoomAction) -> Result<[RoomEvent], Refusal> {
    if let refusal = refusal(for: action) { return .failure(refusal) }
    return .success(applyAccepted(action))
  }

  /// Changes the room for an action the rules accept, without checking them again, and
  /// returns what it did.
  ///
  /// Precondition: ``refusal(for:)`` returned nil for `action` on this room (a caller
  /// that has already validated, like the server's hub, runs the rules once).
  @discardableResult
  public mutating func applyAccepted(_ action: RoomAction) -> [RoomEvent] {
    var events: [RoomEvent] = []
    switch action {
    case .playerJoined(let name, let token, let at):
      let seat = freeSeat!
      seats[seat] = SeatState(name: name, token: token)
      events.append(.seated(seat, name: name))
      if let other = seats[seat.opponent], !other.hasLeft {
        startMatch(at: at, &events)
      } else {
        seats[seat.opponent] = nil
        resetToWaiting(&events)
      }
    case .spectatorJoined:
      spectators += 1
      events.append(.spectatorJoined)
    case .spectatorLeft:
      spectators -= 1
      events.append(.spectatorLeft)
    case .chose(let seat, _, let weapon, let at):
      seats[seat]!.pick = weapon
      events.append(.picked(seat))
      if seats.values.allSatisfy({ $0.pick != nil }) {
        resolveRound(at: at, &events)
      }
    case .committed(let seat, _, let digest, let at):
      seats[seat]!.commitment = digest
      events.append(.committed(seat))
      if isRevealing {
        // Both are bound now: the reveal stage has its own deadline, always.
        setDeadline(at + settings.revealMillis, &events)
      }
    case .revealed(let seat, _, let weapon, let nonce, let matches, let at):
      if matches {
        seats[seat]!.pick = weapon
        seats[seat]!.nonce = nonce
      } else {
        seats[seat]!.revealFailed = true
      }
      events.append(.revealed(seat, matches: matches))
      if seats.values.allSatisfy(\.hasRevealed) {
        resolveRound(at: at, &events)
      }
    case .disconnected(let seat, let at):
      seats[seat]!.connected = false
      seats[seat]!.graceEndsAt = at + settings.graceMillis
      events.append(.graceStarted(seat, endsAt: at + settings.graceMillis))
    case .reconnected(let seat, _):
      seats[seat]!.connected = true
      seats[seat]!.graceEndsAt = nil
      events.append(.graceEnded(seat))
    case .tokenRenewed(let seat, let token, _):
      seats[seat]!.token = token
      seats[seat]!.connected = true
      seats[seat]!.graceEndsAt = nil
      events.append(.graceEnded(seat))
    case .left(let seat, let at):
      giveUp(seat, at: at, how: .left, &events)
    case .graceExpired(let seat, let at):
      giveUp(seat, at: at, how: .timedOut, &events)
    case .deadlinePassed(_, let at):
      resolveRound(at: at, &events)
    case .rematchRequested(let seat, let at):
      seats[seat]!.wantsRematch = true
      events.append(.rematchAsked(seat))
      if seats.values.allSatisfy(\.wantsRematch) {
        startMatch(at: at, &events)
      }
    }
    version += 1
    return events
  }

  /// Why the rules refuse `action` in this room, or nil when they accept it.
  public func refusal(for action: RoomAction) -> Refusal? {
    switch action {
    case .playerJoined:
      return freeSeat == nil ? .roomFull : nil
    case .spectatorJoined:
      return spectators < Self.maxSpectators ? nil : .spectatorsFull(Self.maxSpectators)
    case .spectatorLeft:
      return spectators > 0 ? nil : .stale("no spectator to remove")
    case .chose(let seat, let round, let weapon, _):
      guard let held = seats[seat], !held.hasLeft else {
        return .notPlaying("You do not hold a seat in this room.")
      }
      guard phase == .choosing else {
        return .notPlaying(
          phase == .waiting
            ? "The match has not started: waiting for a second player."
            : "The match is over; ask for a rematch to play again.")
      }
      guard !settings.fair else {
        return .fairRoom(
          "This room is fair: commit to a pick first, then reveal it once both have committed.")
      }
      guard round == self.round else { return .wrongRound(current: self.round) }
      guard ruleset.allows(weapon) else { return .invalidWeapon(weapon, settings.ruleset) }
      return held.pick == nil ? nil : .alreadyChosen
    case .committed(let seat, let round, let digest, _):
      if let refusal = fairRefusal(seat: seat, round: round) { return refusal }
      guard Commitment.isHex256(digest) else {
        return .fairRoom("A commitment is a SHA-256 digest: 64 lower-case hex digits.")
      }
      return seats[seat]!.commitment == nil ? nil : .alreadyChosen
    case .revealed(let seat, let round, let weapon, let nonce, _, _):
      if let refusal = fairRefusal(seat: seat, round: round) { return refusal }
      guard isRevealing else {
        return .notPlaying(
          seats[seat]!.commitment == nil
            ? "Commit first; reveal once both commitments are in."
            : "Reveal once your opponent has committed too.")
      }
      guard Commitment.isHex256(nonce) else {
        return .fairRoom("A nonce is 32 bytes: 64 lower-case hex digits.")
      }
      guard ruleset.allows(weapon) else { return .invalidWeapon(weapon, settings.ruleset) }
      return seats[seat]!.hasRevealed ? .alreadyChosen : nil
    case .disconnected(let seat, _):
      guard let held = seats[seat], !held.hasLeft, held.connected else {
        return .stale("seat \(seat.rawValue) is not connected")
      }
      return nil
    case .reconnected(let seat, _), .tokenRenewed(let seat, _, _):
      guard let held = seats[seat], !held.hasLeft, !held.connected else {
        return .stale("seat \(seat.rawValue) is not waiting to reconnect")
      }
      return nil
    case .left(let seat, _):
      guard let held = seats[seat], !held.hasLeft else {
        return .notPlaying("You do not hold a seat in this room.")
      }
      return nil
    case .deadlinePassed(let round, let at):
      guard phase == .choosing, round == self.round, let deadline, at >= deadline else {
        return .stale("round \(round) has no deadline due at \(at)")
      }
      return nil
    case .graceExpired(let seat, let at):
      guard let held = seats[seat], !held.hasLeft, !held.connected,
        let ends = held.graceEndsAt, at >= ends
      else {
        return .stale("seat \(seat.rawValue) has no grace ending by \(at)")
      }
      return nil
    case .rematchRequested(let seat, _):
      guard let held = seats[seat], !held.hasLeft else {
        return .notPlaying("You do not hold a seat in this room.")
      }
      guard phase == .over else {
        return .notPlaying("A rematch can be asked once the match is over.")
      }
      guard let other = seats[seat.opponent], !other.hasLeft else {
        return .notPlaying("Your opponent has left; wait here for a new one.")
      }
      return held.wantsRematch ? .notPlaying("You already asked for a rematch.") : nil
    }
  }

  /// Why a seat may not commit or reveal for `round` now, or nil (the checks both share).
  private func fairRefusal(seat: Seat, round: Int) -> Refusal? {
    guard let held = seats[seat], !held.hasLeft else {
      return .notPlaying("You do not hold a seat in this room.")
    }
    guard settings.fair else { return .notFair }
    guard phase == .choosing else {
      return .notPlaying(
        phase == .waiting
          ? "The match has not started: waiting for a second player."
          : "The match is over; ask for a rematch to play again.")
    }
    return round == self.round ? nil : .wrongRound(current: self.round)
  }

  /// Clears what a seat did in the round (its pick, and in a fair room its commitment,
  /// nonce and failed reveal).
  private mutating func clearRound() {
    for seat in seats.keys {
      seats[seat]!.pick = nil
      seats[seat]!.commitment = nil
      seats[seat]!.nonce = nil
      seats[seat]!.revealFailed = false
    }
  }

  /// Sets the round's deadline, saying so when it changes.
  private mutating func setDeadline(_ new: Int64?, _ events: inout [RoomEvent]) {
    guard new != deadline else { return }
    deadline = new
    events.append(new.map { .deadlineSet(round: round, at: $0) } ?? .deadlineCleared)
  }

  /// Scores to zero, history cleared, round 1 open.
  private mutating func startMatch(at: Int64, _ events: inout [RoomEvent]) {
    clearRound()
    for seat in seats.keys {
      seats[seat]!.score = 0
      seats[seat]!.wantsRematch = false
    }
    round = 1
    history = []
    winner = nil
    phase = .choosing
    events.append(.matchStarted)
    setDeadline(settings.roundMillis > 0 ? at + settings.roundMillis : nil, &events)
  }

  /// Resolves the current round from the picks in (a missing pick loses; two missing
  /// draw), then ends the match or opens the next round. In a fair room's commit stage
  /// (a deadline before both committed) a commitment counts as a pick that wins against
  /// none, and its weapon stays unknown; in the reveal stage a reveal that failed or
  /// never came is a missing pick.
  private mutating func resolveRound(at: Int64, _ events: inout [RoomEvent]) {
    let first = seats[.one]?.pick
    let second = seats[.two]?.pick
    let fair = settings.fair
    let commitStage = fair && !isRevealing
    let roundWinner: Seat?
    let reason: String?
    if commitStage {
      let committed = Seat.allCases.map { seats[$0]?.commitment != nil }
      roundWinner = committed[0] == committed[1] ? nil : committed[0] ? .one : .two
      reason = nil
    } else {
      let decided = ruleset.decide(first, second)
      roundWinner = decided.winner
      reason = decided.rule?.sentence
    }
    var result = RoundResult(
      round: round, weapons: commitStage ? [nil, nil] : [first, second], winner: roundWinner,
      reason: reason, at: at)
    if fair {
      result.commitments = Seat.allCases.map { seats[$0]?.commitment }
      result.nonces = Seat.allCases.map { commitStage ? nil : seats[$0]?.nonce }
    }
    history.append(result)
    events.append(.roundResolved(result))
    if history.count > RoomView.historyLimit {
      // Endless draws must not grow the room: keep what a view can show (the scores are
      // in the seats, and rounds keep their numbers).
      history.removeFirst(history.count - RoomView.historyLimit)
    }
    clearRound()
    if let roundWinner {
      seats[roundWinner]!.score += 1
      if seats[roundWinner]!.score >= winsNeeded {
        finish(winner: roundWinner, at: at, forfeit: false, &events)
        return
      }
    }
    round += 1
    let next = settings.roundMillis > 0 ? at + settings.roundMillis : nil
    // A new round's deadline is new even when it falls on the same moment as the last.
    if next != nil { deadline = nil }
    setDeadline(next, &events)
  }

  private mutating func finish(
    winner seat: Seat, at: Int64, forfeit: Bool, _ events: inout [RoomEvent]
  ) {
    phase = .over
    winner = seat
    setDeadline(nil, &events)
    clearRound()
    events.append(.matchEnded(FinishedMatch(room: self, at: at, forfeit: forfeit)))
  }

  /// A seat gives up: the opponent wins a running match; the seat is kept (to show the
  /// result) but is free for a new player (none comes to a tournament's room, which keeps
  /// the result once both have gone). While waiting, the seat simply empties.
  private mutating func giveUp(
    _ seat: Seat, at: Int64, how: Leaving, _ events: inout [RoomEvent]
  ) {
    events.append(.gaveUp(seat))
    if phase != .waiting { seats[seat]!.leftBy = how }
    switch phase {
    case .waiting:
      seats[seat] = nil
    case .choosing:
      seats[seat]!.hasLeft = true
      seats[seat]!.connected = false
      seats[seat]!.graceEndsAt = nil
      finish(winner: seat.opponent, at: at, forfeit: true, &events)
    case .over:
      seats[seat]!.hasLeft = true
      seats[seat]!.connected = false
      seats[seat]!.graceEndsAt = nil
      for held in seats.keys { seats[held]!.wantsRematch = false }
    }
    // A room empty of players waits for new ones; a tournament's takes none, so it keeps
    // its result for those still watching it (it closes when they go).
    if seats.values.allSatisfy(\.hasLeft), !Tournament.isTournamentRoom(name) {
      seats = [:]
      resetToWaiting(&events)
    }
  }

  /// Seat `seat`'s player, who withdrew from the tournament, gives this match up as it is
  /// paired: their opponent wins it by walkover.
  mutating func walkOver(_ seat: Seat, at: Int64) -> [RoomEvent] {
    var events: [RoomEvent] = []
    giveUp(seat, at: at, how: .withdrew, &events)
    version += 1
    return events
  }

  /// Takes the lone player (``loneSeat``) out of the room without a forfeit (quick match
  /// moves a player left alone to another room); the room is left with no player,
  /// waiting.
  mutating func releaseLonePlayer() -> [RoomEvent] {
    var events: [RoomEvent] = [.released(loneSeat!)]
    seats = [:]
    resetToWaiting(&events)
    return events
  }

  /// The tournament this room belongs to moved on: a new version, nothing else, so that
  /// those still in the room are sent where the tournament stands now (the champion, or
  /// when the next round starts), whichever of its matches ended last.
  mutating func tournamentMovedOn() -> [RoomEvent] {
    version += 1
    return [.tournamentMovedOn]
  }

  /// No match: waiting for players, from round 1 with no history.
  private mutating func resetToWaiting(_ events: inout [RoomEvent]) {
    phase = .waiting
    round = 1
    history = []
    winner = nil
    setDeadline(nil, &events)
  }
}
