extension LobbyState {
  /// The room `action` concerns, in the lobby as it is before the action (a join
  /// without a name lands in the quick-match room, see ``roomForJoin(requested:)``); nil
  /// for the tournament's actions, which concern none or several.
  public func room(of action: LobbyAction) -> String? {
    switch action {
    case .join(let requested, _, _, _, _): roomForJoin(requested: requested)
    case .spectate(let name), .room(let name, _): name
    case .openMatch: nextMatchRoom
    case .tournament, .names, .blocked: nil
    }
  }

  /// Why the rules refuse `action`, or nil when they accept it.
  public func refusal(for action: LobbyAction) -> Refusal? {
    switch action {
    case .join(let requested, let name, let token, let fair, let at):
      let target = roomForJoin(requested: requested)
      if Tournament.isTournamentRoom(target) {
        return .notPlaying("Only the tournament seats players in its rooms; watch them instead.")
      }
      guard let room = rooms[target] else {
        if let requested, Self.isReservedRoomName(requested) {
          return .reservedRoomName(requested)
        }
        return nil
      }
      if fair, requested != nil, !room.settings.fair {
        return .fairRoom(
          "Room \(target) already exists and is not fair (commit–reveal); join it without "
            + "asking for a fair room, or pick another name.")
      }
      return room.refusal(for: .playerJoined(name: name, token: token, at: at))
    case .spectate(let name):
      guard let room = rooms[name] else { return .noSuchRoom(name) }
      return room.refusal(for: .spectatorJoined)
    case .room(let name, let roomAction):
      guard let room = rooms[name] else { return .noSuchRoom(name) }
      if case .rematchRequested = roomAction, Tournament.isTournamentRoom(name) {
        return .notPlaying(
          "Tournament matches have no rematch: the next round is paired when this one ends.")
      }
      return room.refusal(for: roomAction)
    case .tournament(let action):
      return refusal(for: action)
    case .names(.claim(let name, let identity)):
      guard NameAction.isIdentity(identity) else {
        return .notPlaying("That is not a player identity.")
      }
      guard names.holder(of: name) == nil else {
        return .notPlaying("The name \(name) already belongs to another player here.")
      }
      return nil
    case .names(.release), .names(.releaseForgotten), .names(.used), .names(.lapsed),
      .names(.heldElsewhere), .blocked:
      return nil
    case .openMatch(let players, let settings, _):
      guard players.count == Seat.allCases.count,
        Set(players.map(\.token)).count == players.count
      else { return .notPlaying("A match needs two different players.") }
      guard settings.isValid else { return .notPlaying("Those settings make no match.") }
      guard rooms[nextMatchRoom] == nil else { return .roomFull }
      return nil
    }
  }

  /// Applies `action` if the rules allow it and returns nil, or returns why not.
  @discardableResult
  public mutating func apply(_ action: LobbyAction) -> Refusal? {
    guard case .failure(let refusal) = reduce(action) else { return nil }
    return refusal
  }

  /// Applies `action` if the rules allow it and returns what it did, or returns why not
  /// and changes nothing.
  public mutating func reduce(_ action: LobbyAction) -> Result<[LobbyEvent], Refusal> {
    if case .tournament(let action) = action { return reduce(action) }
    if let refusal = refusal(for: action) { return .failure(refusal) }
    return .success(applyAccepted(action))
  }

  /// Changes the lobby for an action the rules accept, without checking them again, and
  /// returns what it did.
  ///
  /// Precondition: ``refusal(for:)`` returned nil for `action` on this lobby.
  @discardableResult
  public mutating func applyAccepted(_ action: LobbyAction) -> [LobbyEvent] {
    var events: [LobbyEvent] = []
    let name: String
    switch action {
    case .join(let requested, let player, let token, let fair, let at):
      name = roomForJoin(requested: requested)
      if rooms[name] == nil {
        rooms[name] = RoomState(
          name: name, settings: settingsForJoin(requested: requested, fair: fair))
        if requested == nil { nextQuickMatchNumber += 1 }
        events.append(.opened(name))
      }
      for event in rooms[name]!.applyAccepted(.playerJoined(name: player, token: token, at: at)) {
        events.append(.room(name, event))
      }
      if requested == nil, rooms[name]!.loneSeat != nil { quickMatchRoom = name }
    case .spectate(let room):
      name = room
      events.append(.room(name, rooms[name]!.applyAccepted(.spectatorJoined)[0]))
    case .openMatch(let players, let settings, let at):
      name = nextMatchRoom
      nextMatchNumber += 1
      rooms[name] = RoomState(name: name, settings: settings)
      events.append(.opened(name))
      for player in players {
        for event in rooms[name]!.applyAccepted(
          .playerJoined(name: player.name, token: player.token, at: at))
        {
          events.append(.room(name, event))
        }
      }
    case .tournament(let action):
      return applyAccepted(action)
    case .names(.claim(let name, let identity)):
      names.claim(name, for: identity)
      return []
    case .names(.release(let name)):
      names.release(name)
      return []
    case .names(.releaseForgotten(let name)):
      names.forgetRelease(name)
      return []
    case .names(.used(let name, let at)):
      names.use(name, at: at)
      return []
    case .names(.lapsed(let name)), .names(.heldElsewhere(let name)):
      names.free(name)
      return []
    case .blocked(let block):
      blocks.removeAll {
        block.at - $0.at >= ChallengeBoard.eveningMillis || ($0.by == block.by && $0.of == block.of)
      }
      blocks.append(block)
      if blocks.count > ChallengeBoard.maxDeclinedForTheEvening { blocks.removeFirst() }
      return []
    case .room(let room, let roomAction):
      name = room
      for event in rooms[name]!.applyAccepted(roomAction) {
        events.append(.room(name, event))
        if case .matchEnded(let match) = event { recordTournamentMatch(match, &events) }
      }
      switch roomAction {
      case .left(_, let at), .graceExpired(_, let at), .reconnected(_, let at),
        .tokenRenewed(_, _, let at):
        pairStrandedPlayer(in: name, at: at, &events)
      default:
        break
      }
    }
    if rooms[name]!.isEmpty {
      rooms[name] = nil
      events.append(.closed(name))
    }
    if let quick = quickMatchRoom, rooms[quick]?.loneSeat == nil {
      quickMatchRoom = nil
    }
    return events
  }

  /// A player alone and present in quick-match room `name` (the opponent left, or they
  /// came back to find the opponent gone) waits for quick match like a newcomer: paired
  /// at once with the player already waiting, who stays put while this one moves to
  /// their room (keeping name and token), or else this room becomes the one quick match
  /// fills next.
  private mutating func pairStrandedPlayer(
    in name: String, at: Int64, _ events: inout [LobbyEvent]
  ) {
    guard Self.isQuickMatchRoom(name), let room = rooms[name], room.hasPlayerWaiting,
      let lone = room.loneSeat
    else { return }
    guard let waiting = quickMatchRoom, waiting != name, rooms[waiting]?.loneSeat != nil else {
      quickMatchRoom = name
      return
    }
    let player = room.seats[lone]!
    for event in rooms[name]!.releaseLonePlayer() { events.append(.room(name, event)) }
    var seat = lone
    for event in rooms[waiting]!.applyAccepted(
      .playerJoined(name: player.name, token: player.token, at: at))
    {
      if case .seated(let taken, _) = event { seat = taken }
      events.append(.room(waiting, event))
    }
    events.append(
      .moved(
        LobbyEvent.Move(
          token: player.token, from: name, fromSeat: lone, lastState: room, to: waiting,
          seat: seat)))
  }
}
