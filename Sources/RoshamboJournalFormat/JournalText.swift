import RoshamboGame
import RoshamboJSON
import RoshamboProtocol

// The journal's format 2, written: one flat object per row, one object per snapshot.
// Every name here is the format's own, spelled out, so renaming a Swift type or case
// never changes what is on disk. `JournalFormat` reads exactly this back.

extension JSONText {
  /// A lobby action as a journal row: `{"type":…,"room":…, …the action's fields}`.
  package mutating func journalRow(_ action: LobbyAction) {
    switch action {
    case .join(let room, let name, let token, let fair, let at):
      raw("{\"type\":\"join\",")
      key("room"); optionalString(room); comma()
      key("name"); string(name); comma()
      key("token"); string(token); comma()
      if fair { key("fair"); bool(true); comma() }
      key("at"); int(at)
    case .spectate(let room):
      raw("{\"type\":\"spectate\",")
      key("room"); string(room)
    case .room(let room, let action):
      roomAction(action, in: room)
    case .openMatch(let players, let settings, let at):
      raw("{\"type\":\"openMatch\",")
      key("players"); entrants(players); comma()
      key("settings"); self.settings(settings); comma()
      key("at"); int(at)
    case .tournament(let action):
      tournamentRow(action)
    case .names(.claim(let name, let identity)):
      raw("{\"type\":\"nameClaimed\",")
      key("name"); string(name); comma()
      key("identity"); string(identity)
    case .names(.release(let name)):
      raw("{\"type\":\"nameReleased\",")
      key("name"); string(name)
    case .names(.releaseForgotten(let name)):
      raw("{\"type\":\"nameReleaseForgotten\",")
      key("name"); string(name)
    case .names(.used(let name, let at)):
      raw("{\"type\":\"nameUsed\",")
      key("name"); string(name); comma()
      key("at"); int(at)
    case .names(.lapsed(let name)):
      raw("{\"type\":\"nameLapsed\",")
      key("name"); string(name)
    case .names(.heldElsewhere(let name)):
      raw("{\"type\":\"nameHeldElsewhere\",")
      key("name"); string(name)
    case .blocked(let block):
      raw("{\"type\":\"blocked\",")
      self.block(block)
    }
    raw("}")
  }

  private mutating func tournamentRow(_ action: TournamentAction) {
    switch action {
    case .open(let kind, let settings):
      raw("{\"type\":\"tournamentOpen\",")
      key("kind"); string(kind.rawValue); comma()
      key("settings"); self.settings(settings)
    case .enter(let name):
      raw("{\"type\":\"tournamentEnter\",")
      key("name"); string(name)
    case .withdraw(let name):
      raw("{\"type\":\"tournamentWithdraw\",")
      key("name"); string(name)
    case .startRound(let tokens, let at):
      raw("{\"type\":\"tournamentRound\",")
      // In name order, so the same round is always the same row.
      key("players")
      entrants(tokens.sorted { $0.key < $1.key }.map { .init(name: $0.key, token: $0.value) })
      comma()
      key("at"); int(at)
    }
  }

  /// A decline for the evening's fields, inside an object.
  fileprivate mutating func block(_ block: ChallengeBoard.Block) {
    key("by"); string(block.by); comma()
    key("of"); string(block.of); comma()
    key("at"); int(block.at)
  }

  private mutating func entrants(_ players: [LobbyAction.Entrant]) {
    raw("[")
    for (index, player) in players.enumerated() {
      if index > 0 { comma() }
      raw("{")
      key("name"); string(player.name); comma()
      key("token"); string(player.token)
      raw("}")
    }
    raw("]")
  }

  private mutating func roomAction(_ action: RoomAction, in room: String) {
    func start(_ type: StaticString) {
      raw("{\"type\":\"")
      raw(type)
      raw("\",")
      key("room"); string(room)
    }
    switch action {
    case .playerJoined(let name, let token, let at):
      start("playerJoined"); comma()
      key("name"); string(name); comma()
      key("token"); string(token); comma()
      key("at"); int(at)
    case .spectatorJoined:
      start("spectatorJoined")
    case .spectatorLeft:
      start("spectatorLeft")
    case .chose(let seat, let round, let weapon, let at):
      start("chose"); comma()
      key("seat"); int(seat.rawValue); comma()
      key("round"); int(round); comma()
      key("weapon"); string(weapon.rawValue); comma()
      key("at"); int(at)
    case .committed(let seat, let round, let digest, let at):
      start("committed"); comma()
      key("seat"); int(seat.rawValue); comma()
      key("round"); int(round); comma()
      key("digest"); string(digest); comma()
      key("at"); int(at)
    case .revealed(let seat, let round, let weapon, let nonce, let matches, let at):
      start("revealed"); comma()
      key("seat"); int(seat.rawValue); comma()
      key("round"); int(round); comma()
      key("weapon"); string(weapon.rawValue); comma()
      key("nonce"); string(nonce); comma()
      key("matches"); bool(matches); comma()
      key("at"); int(at)
    case .disconnected(let seat, let at):
      start("disconnected"); seatAt(seat, at)
    case .reconnected(let seat, let at):
      start("reconnected"); seatAt(seat, at)
    case .tokenRenewed(let seat, let token, let at):
      start("tokenRenewed"); comma()
      key("token"); string(token); seatAt(seat, at)
    case .left(let seat, let at):
      start("left"); seatAt(seat, at)
    case .deadlinePassed(let round, let at):
      start("deadlinePassed"); comma()
      key("round"); int(round); comma()
      key("at"); int(at)
    case .graceExpired(let seat, let at):
      start("graceExpired"); seatAt(seat, at)
    case .rematchRequested(let seat, let at):
      start("rematchRequested"); seatAt(seat, at)
    }
  }

  private mutating func seatAt(_ seat: Seat, _ at: Int64) {
    comma()
    key("seat"); int(seat.rawValue); comma()
    key("at"); int(at)
  }
}

extension JSONText {
  /// The lobby as the journal's snapshot: `{"format":2, …, "rooms":[…]}`.
  package mutating func journalSnapshot(_ lobby: LobbyState) {
    raw("{")
    key("format"); int(JournalFormat.version); comma()
    key("quickMatchRoom"); optionalString(lobby.quickMatchRoom); comma()
    key("nextQuickMatchNumber"); int(lobby.nextQuickMatchNumber); comma()
    key("nextMatchNumber"); int(lobby.nextMatchNumber); comma()
    if let tournament = lobby.tournament {
      key("tournament"); self.tournament(tournament); comma()
    }
    if !lobby.names.holders.isEmpty {
      key("names"); raw("{")
      for (index, (name, identity)) in lobby.names.holders.sorted(by: { $0.key < $1.key })
        .enumerated()
      {
        if index > 0 { comma() }
        string(name); raw(":"); string(identity)
      }
      raw("}"); comma()
    }
    if !lobby.names.lastUsed.isEmpty {
      key("namesUsed"); raw("{")
      for (index, (name, at)) in lobby.names.lastUsed.sorted(by: { $0.key < $1.key })
        .enumerated()
      {
        if index > 0 { comma() }
        string(name); raw(":"); int(at)
      }
      raw("}"); comma()
    }
    if !lobby.blocks.isEmpty {
      key("blocks"); raw("[")
      for (index, block) in lobby.blocks.enumerated() {
        if index > 0 { comma() }
        raw("{"); self.block(block); raw("}")
      }
      raw("]"); comma()
    }
    if !lobby.names.released.isEmpty {
      key("releasedNames"); raw("[")
      for (index, name) in lobby.names.released.sorted().enumerated() {
        if index > 0 { comma() }
        string(name)
      }
      raw("]"); comma()
    }
    key("defaults"); settings(lobby.defaults); comma()
    key("rooms"); raw("[")
    for (index, room) in lobby.rooms.values.enumerated() {
      if index > 0 { comma() }
      self.room(room)
    }
    raw("]}")
  }

  private mutating func room(_ room: RoomState) {
    raw("{")
    key("name"); string(room.name); comma()
    key("settings"); settings(room.settings); comma()
    key("seats"); raw("[")
    for (index, seat) in Seat.allCases.filter({ room.seats[$0] != nil }).enumerated() {
      if index > 0 { comma() }
      self.seat(seat, room.seats[seat]!)
    }
    raw("],")
    key("spectators"); int(room.spectators); comma()
    key("round"); int(room.round); comma()
    key("history"); raw("[")
    for (index, result) in room.history.enumerated() {
      if index > 0 { comma() }
      roundResult(result)
    }
    raw("],")
    key("phase"); string(room.phase.rawValue); comma()
    key("winner"); optionalInt(room.winner?.rawValue); comma()
    key("deadline"); optionalInt(room.deadline); comma()
    key("version"); int(room.version)
    raw("}")
  }

  private mutating func seat(_ seat: Seat, _ held: RoomState.SeatState) {
    raw("{")
    key("seat"); int(seat.rawValue); comma()
    key("name"); string(held.name); comma()
    key("token"); string(held.token); comma()
    key("connected"); bool(held.connected); comma()
    key("score"); int(held.score); comma()
    key("pick"); optionalString(held.pick?.rawValue); comma()
    key("graceEndsAt"); optionalInt(held.graceEndsAt); comma()
    key("wantsRematch"); bool(held.wantsRematch); comma()
    key("hasLeft"); bool(held.hasLeft)
    if let leftBy = held.leftBy { comma(); key("leftBy"); string(leftBy.rawValue) }
    if let commitment = held.commitment { comma(); key("commitment"); string(commitment) }
    if let nonce = held.nonce { comma(); key("nonce"); string(nonce) }
    if held.revealFailed { comma(); key("revealFailed"); bool(true) }
    raw("}")
  }

  fileprivate mutating func settings(_ settings: RoomState.Settings) {
    raw("{")
    key("ruleset"); string(settings.ruleset.rawValue); comma()
    key("bestOf"); int(settings.bestOf); comma()
    key("roundMillis"); int(settings.roundMillis); comma()
    key("graceMillis"); int(settings.graceMillis)
    if settings.fair { comma(); key("fair"); bool(true) }
    // Only fair rooms use it, but what a row holds is written back exactly.
    if settings.fair || settings.revealMillis != RoomState.Settings().revealMillis {
      comma(); key("revealMillis"); int(settings.revealMillis)
    }
    raw("}")
  }

  private mutating func tournament(_ tournament: Tournament) {
    raw("{")
    key("kind"); string(tournament.kind.rawValue); comma()
    key("settings"); settings(tournament.settings); comma()
    key("phase"); string(tournament.phase.rawValue); comma()
    key("number"); int(tournament.number); comma()
    key("entrants"); raw("[")
    for (index, name) in tournament.entrants.enumerated() {
      if index > 0 { comma() }
      string(name)
    }
    raw("]"); comma()
    key("rounds"); raw("[")
    for (index, round) in tournament.rounds.enumerated() {
      if index > 0 { comma() }
      raw("[")
      for (index, pairing) in round.enumerated() {
        if index > 0 { comma() }
        tournamentPairing(pairing)
      }
      raw("]")
    }
    raw("]"); comma()
    // Written only when someone withdrew while it ran, so older snapshots read the same.
    if !tournament.withdrawn.isEmpty {
      key("withdrawn"); raw("[")
      for (index, name) in tournament.withdrawn.enumerated() {
        if index > 0 { comma() }
        string(name)
      }
      raw("]"); comma()
    }
    key("champion"); optionalString(tournament.champion)
    raw("}")
  }
}
