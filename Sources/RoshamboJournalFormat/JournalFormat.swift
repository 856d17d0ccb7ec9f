import RoshamboGame
import RoshamboJSON
import RoshamboProtocol

/// The journal's on-disk format, both ways in one place: rows (one lobby action each)
/// and the snapshot (the whole lobby), as written by `JSONText.journalRow` and
/// `JSONText.journalSnapshot` and read back here. The fuzz targets and the tests
/// exercise exactly what `Journal` runs.
///
/// This is format 2 (since the database migration "v6"): every name is the format's
/// own, so renaming a Swift case never breaks a journal. Format 1 (the shape of the
/// types' synthesized `Codable`) is read only to migrate it (``Version1``).
///
/// Invariant: whatever ``action(from:)`` reads, ``bytes(of:)`` writes back as the same
/// action (and likewise for the lobby); anything else is refused with what is wrong.
public enum JournalFormat {
  /// The format this code writes and reads.
  public static let version = 2

  /// A row's bytes for `action`.
  public static func bytes(of action: LobbyAction) -> [UInt8] {
    var json = JSONText(capacity: 128)
    json.journalRow(action)
    return json.bytes
  }

  /// A snapshot's bytes for `lobby`.
  public static func bytes(of lobby: LobbyState) -> [UInt8] {
    var json = JSONText(capacity: 64 + 512 * lobby.rooms.count)
    json.journalSnapshot(lobby)
    return json.bytes
  }

  /// The action a row holds; throws what is wrong with it.
  public static func action(from bytes: some Collection<UInt8>) throws -> LobbyAction {
    try JSONReader.withBuffer(bytes) { buffer in
      try JSONReader.read(buffer) { try $0.journalRow() }
    }
  }

  /// A row the live rules refuse when it is replayed.
  public struct RefusedRow: Error, CustomStringConvertible {
    public var description: String
  }

  /// Replays one row onto `lobby` as loading the journal does: the row decoded, then
  /// reduced by the live server's own rules (a replay is the game again). Throws what is
  /// wrong with the row, or ``RefusedRow`` when the rules refuse it.
  public static func replay(_ row: some Collection<UInt8>, onto lobby: inout LobbyState) throws {
    let action = try action(from: row)
    if case .failure(let refusal) = lobby.reduce(action) {
      throw RefusedRow(description: "the rules refuse it: \(refusal.message)")
    }
  }

  /// The lobby a snapshot holds; throws what is wrong with it.
  public static func lobby(from bytes: some Collection<UInt8>) throws -> LobbyState {
    try JSONReader.withBuffer(bytes) { buffer in
      try JSONReader.read(buffer) { try $0.journalSnapshot() }
    }
  }
}

extension JSONReader {
  fileprivate mutating func journalRow() throws -> LobbyAction {
    var type: String?
    var room: String?
    var name: String?
    var token: String?
    var at: Int?
    var seat: Seat?
    var round: Int?
    var weapon: Weapon?
    var fair = false
    var digest: String?
    var nonce: String?
    var matches: Bool?
    var players: [LobbyAction.Entrant]?
    var settings: RoomState.Settings?
    var kindOfTournament: Tournament.Kind?
    var identity: String?
    var by: String?
    var of: String?
    try object { reader, key in
      switch key {
      case "type": type = try reader.string()
      case "by": by = try reader.string()
      case "of": of = try reader.string()
      case "kind": kindOfTournament = try reader.raw(Tournament.Kind.self, "kind")
      case "players": players = try reader.array(of: { try $0.journalEntrant() })
      case "settings": settings = try reader.journalSettings()
      case "fair": fair = try reader.bool()
      case "digest": digest = try reader.optionalHex256()
      case "nonce": nonce = try reader.optionalHex256()
      case "matches": matches = try reader.bool()
      case "room": room = try reader.optionalString()
      case "name": name = try reader.string()
      case "token": token = try reader.string()
      case "at": at = try reader.int()
      case "seat": seat = try reader.seat()
      case "round": round = try reader.int()
      case "weapon": weapon = try reader.raw(Weapon.self, "weapon")
      case "identity": identity = try reader.string()
      default: throw reader.failure("a journal row has no field \"\(key.prefix(32))\"")
      }
    }
    func required<T>(_ value: T?, _ field: String) throws -> T {
      guard let value else { throw failure("a \(type ?? "journal") row without \"\(field)\"") }
      return value
    }
    let kind = try required(type, "type")
    if kind == "join" {
      return .join(
        room: room, name: try required(name, "name"), token: try required(token, "token"),
        fair: fair, at: Int64(try required(at, "at")))
    }
    switch kind {
    case "tournamentOpen":
      return .tournament(
        .open(try required(kindOfTournament, "kind"), settings: try required(settings, "settings")))
    case "tournamentEnter": return .tournament(.enter(name: try required(name, "name")))
    case "nameClaimed":
      let identity = try required(identity, "identity")
      guard NameAction.isIdentity(identity) else {
        throw failure("a nameClaimed row whose identity is not 64 hex digits")
      }
      return .names(.claim(name: try required(name, "name"), identity: identity))
    case "nameReleased": return .names(.release(name: try required(name, "name")))
    case "nameReleaseForgotten":
      return .names(.releaseForgotten(name: try required(name, "name")))
    case "nameUsed":
      return .names(.used(name: try required(name, "name"), at: Int64(try required(at, "at"))))
    case "nameLapsed": return .names(.lapsed(name: try required(name, "name")))
    case "nameHeldElsewhere": return .names(.heldElsewhere(name: try required(name, "name")))
    case "blocked":
      return .blocked(
        ChallengeBoard.Block(
          by: try required(by, "by"), of: try required(of, "of"), at: Int64(try required(at, "at")))
      )
    case "tournamentWithdraw": return .tournament(.withdraw(name: try required(name, "name")))
    case "tournamentRound":
      var tokens: [String: String] = [:]
      for player in try required(players, "players") {
        guard tokens.updateValue(player.token, forKey: player.name) == nil else {
          throw failure("a tournament round with \(player.name.prefix(32)) twice")
        }
      }
      return .tournament(.startRound(tokens: tokens, at: Int64(try required(at, "at"))))
    default:
      break
    }
    if kind == "openMatch" {
      return .openMatch(
        players: try required(players, "players"), settings: try required(settings, "settings"),
        at: Int64(try required(at, "at")))
    }
    let roomName = try required(room, "room")
    if kind == "spectate" { return .spectate(room: roomName) }
    let action: RoomAction
    switch kind {
    case "playerJoined":
      action = .playerJoined(
        name: try required(name, "name"), token: try required(token, "token"),
        at: Int64(try required(at, "at")))
    case "spectatorJoined": action = .spectatorJoined
    case "spectatorLeft": action = .spectatorLeft
    case "chose":
      action = .chose(
        seat: try required(seat, "seat"), round: try required(round, "round"),
        weapon: try required(weapon, "weapon"), at: Int64(try required(at, "at")))
    case "committed":
      action = .committed(
        seat: try required(seat, "seat"), round: try required(round, "round"),
        digest: try required(digest, "digest"), at: Int64(try required(at, "at")))
    case "revealed":
      action = .revealed(
        seat: try required(seat, "seat"), round: try required(round, "round"),
        weapon: try required(weapon, "weapon"), nonce: try required(nonce, "nonce"),
        matches: try required(matches, "matches"), at: Int64(try required(at, "at")))
    case "disconnected":
      action = .disconnected(seat: try required(seat, "seat"), at: Int64(try required(at, "at")))
    case "reconnected":
      action = .reconnected(seat: try required(seat, "seat"), at: Int64(try required(at, "at")))
    case "tokenRenewed":
      action = .tokenRenewed(
        seat: try required(seat, "seat"), token: try required(token, "token"),
        at: Int64(try required(at, "at")))
    case "left":
      action = .left(seat: try required(seat, "seat"), at: Int64(try required(at, "at")))
    case "deadlinePassed":
      action = .deadlinePassed(
        round: try required(round, "round"), at: Int64(try required(at, "at")))
    case "graceExpired":
      action = .graceExpired(seat: try required(seat, "seat"), at: Int64(try required(at, "at")))
    case "rematchRequested":
      action = .rematchRequested(
        seat: try required(seat, "seat"), at: Int64(try required(at, "at")))
    default:
      throw failure("a journal row of unknown type \"\(kind.prefix(32))\"")
    }
    return .room(roomName, action)
  }

  fileprivate mutating func journalBlock() throws -> ChallengeBoard.Block {
    var by: String?
    var of: String?
    var at: Int?
    try object { reader, key in
      switch key {
      case "by": by = try reader.string()
      case "of": of = try reader.string()
      case "at": at = try reader.int()
      default: throw reader.failure("a block of a snapshot has no field \"\(key.prefix(32))\"")
      }
    }
    guard let by, let of, let at else { throw failure("a block without one of by, of, at") }
    return ChallengeBoard.Block(by: by, of: of, at: Int64(at))
  }

  fileprivate mutating func journalEntrant() throws -> LobbyAction.Entrant {
    var name: String?
    var token: String?
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "token": token = try reader.string()
      default: throw reader.failure("a player of a journal row has no field \"\(key.prefix(32))\"")
      }
    }
    guard let name, let token else { throw failure("a player without one of name, token") }
    return LobbyAction.Entrant(name: name, token: token)
  }

  fileprivate mutating func journalTournament() throws -> Tournament {
    var kind: Tournament.Kind?
    var settings: RoomState.Settings?
    var phase: Tournament.Phase?
    var number: Int?
    var entrants: [String]?
    var rounds: [[Tournament.Pairing]]?
    var champion: String?
    var withdrawn: [String] = []
    try object { reader, key in
      switch key {
      case "kind": kind = try reader.raw(Tournament.Kind.self, "kind")
      case "settings": settings = try reader.journalSettings()
      case "phase": phase = try reader.raw(Tournament.Phase.self, "phase")
      case "number": number = try reader.int()
      case "entrants": entrants = try reader.array(of: { try $0.string() })
      case "rounds":
        rounds = try reader.array(of: { try $0.array(of: { try $0.tournamentPairing() }) })
      case "champion": champion = try reader.optionalString()
      case "withdrawn": withdrawn = try reader.array(of: { try $0.string() })
      default: throw reader.failure("a tournament has no field \"\(key.prefix(32))\"")
      }
    }
    guard let kind, let settings, let phase, let number, let entrants, let rounds else {
      throw failure(
        "a tournament without one of kind, settings, phase, number, entrants, rounds")
    }
    guard Set(entrants).count == entrants.count, entrants.count <= Tournament.maxEntrants else {
      throw failure("a tournament whose entrants repeat a name or are too many")
    }
    guard Set(withdrawn).count == withdrawn.count, withdrawn.allSatisfy(entrants.contains) else {
      throw failure("a tournament whose withdrawn repeat a name or did not enter")
    }
    var tournament = Tournament(kind: kind, settings: settings, number: number)
    tournament.phase = phase
    tournament.entrants = entrants
    tournament.rounds = rounds
    tournament.champion = champion
    tournament.withdrawn = withdrawn
    return tournament
  }

  fileprivate mutating func journalSnapshot() throws -> LobbyState {
    var format: Int?
    var quickMatchRoom: String?
    var next: Int?
    // Absent from snapshots written before challenges existed: no `duel-N` room yet.
    var nextMatch = 1
    var tournament: Tournament?
    var defaults: RoomState.Settings?
    var rooms: [RoomState]?
    // Absent from snapshots written before identities: nobody holds a name.
    var names: [String: String] = [:]
    // Absent from snapshots written before a release acted once: none remembered.
    var released: Set<String> = []
    // Absent from snapshots written before holds lapsed: no use known yet.
    var used: [String: Int64] = [:]
    // Absent from snapshots written before blocks were kept: none.
    var blocks: [ChallengeBoard.Block] = []
    try object { reader, key in
      switch key {
      case "format": format = try reader.int()
      case "quickMatchRoom": quickMatchRoom = try reader.optionalString()
      case "nextQuickMatchNumber": next = try reader.int()
      case "nextMatchNumber": nextMatch = try reader.int()
      case "tournament": tournament = try reader.journalTournament()
      case "names":
        try reader.object { reader, name in
          let identity = try reader.string()
          guard NameAction.isIdentity(identity) else {
            throw reader.failure("a snapshot's name held by something not an identity")
          }
          names[name] = identity
        }
      case "releasedNames": released = Set(try reader.array(of: { try $0.string() }))
      case "blocks": blocks = try reader.array(of: { try $0.journalBlock() })
      case "namesUsed":
        try reader.object { reader, name in used[name] = Int64(try reader.int()) }
      case "defaults": defaults = try reader.journalSettings()
      case "rooms": rooms = try reader.array(of: { try $0.journalRoom() })
      default: throw reader.failure("a snapshot has no field \"\(key.prefix(32))\"")
      }
    }
    guard format == JournalFormat.version else {
      throw failure("a snapshot in format \(format.map(String.init) ?? "none"), not 2")
    }
    guard let next, let defaults, let rooms else {
      throw failure("a snapshot without one of nextQuickMatchNumber, defaults, rooms")
    }
    var lobby = LobbyState(defaults: defaults)
    lobby.quickMatchRoom = quickMatchRoom
    lobby.nextQuickMatchNumber = next
    lobby.nextMatchNumber = nextMatch
    lobby.tournament = tournament
    lobby.names = NameBook(holders: names, released: released, lastUsed: used)
    for block in blocks { lobby.apply(.blocked(block)) }
    for room in rooms {
      guard lobby.rooms.updateValue(room, forKey: room.name) == nil else {
        throw failure("a snapshot with two rooms named \(room.name.prefix(32))")
      }
    }
    return lobby
  }

  mutating func journalSettings() throws -> RoomState.Settings {
    var ruleset: Ruleset.ID?
    var bestOf: Int?
    var roundMillis: Int?
    var graceMillis: Int?
    var fair = false
    var revealMillis: Int?
    try object { reader, key in
      switch key {
      case "fair": fair = try reader.bool()
      case "revealMillis": revealMillis = try reader.int()
      case "ruleset": ruleset = try reader.raw(Ruleset.ID.self, "ruleset")
      case "bestOf": bestOf = try reader.int()
      case "roundMillis": roundMillis = try reader.int()
      case "graceMillis": graceMillis = try reader.int()
      default: try reader.skipValue()
      }
    }
    guard let ruleset, let bestOf, let roundMillis, let graceMillis else {
      throw failure("settings without one of ruleset, bestOf, roundMillis, graceMillis")
    }
    var settings = RoomState.Settings(
      ruleset: ruleset, bestOf: bestOf, roundMillis: Int64(roundMillis),
      graceMillis: Int64(graceMillis), fair: fair)
    if let revealMillis { settings.revealMillis = Int64(revealMillis) }
    return settings
  }

  /// A room, in either format. They differ in how seats are listed (format 2: one object
  /// each with its `seat`; format 1: `[seat, object, seat, object]`) and in rounds (format
  /// 2: the contract's round object, `winner` 0 for a draw; format 1: `winner` null or
  /// absent).
  mutating func journalRoom(format: Int = JournalFormat.version) throws -> RoomState {
    var name: String?
    var settings: RoomState.Settings?
    var seats: [Seat: RoomState.SeatState]?
    var spectators: Int?
    var round: Int?
    var history: [RoundResult]?
    var phase: RoomState.Phase?
    var winner: Seat?
    var deadline: Int?
    var version: Int?
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "settings": settings = try reader.journalSettings()
      case "seats":
        seats = try format == 1 ? reader.journalSeatPairs() : reader.journalSeats()
      case "spectators": spectators = try reader.int()
      case "round": round = try reader.int()
      case "history":
        history = try reader.array(of: {
          try $0.roundResult(drawAsNull: format == 1)
        })
      case "phase": phase = try reader.raw(RoomState.Phase.self, "phase")
      case "winner": winner = try reader.optionalSeat()
      case "deadline": deadline = try reader.optionalInt()
      case "version": version = try reader.int()
      default: throw reader.failure("a room has no field \"\(key.prefix(32))\"")
      }
    }
    guard let name, let settings, let seats, let spectators, let round, let history, let phase,
      let version
    else {
      throw failure(
        "a room without one of name, settings, seats, spectators, round, history, phase, version")
    }
    var room = RoomState(name: name, settings: settings)
    room.seats = seats
    room.spectators = spectators
    room.round = round
    room.history = history
    room.phase = phase
    room.winner = winner
    room.deadline = deadline.map(Int64.init)
    room.version = version
    return room
  }

  private mutating func journalSeats() throws -> [Seat: RoomState.SeatState] {
    var seats: [Seat: RoomState.SeatState] = [:]
    try array { reader in
      var seat: Seat?
      let held = try reader.journalSeat { reader in seat = try reader.seat() }
      guard let seat else { throw reader.failure("a seat without \"seat\"") }
      guard seats.updateValue(held, forKey: seat) == nil else {
        throw reader.failure("seat \(seat.rawValue) held twice")
      }
    }
    return seats
  }

  private mutating func journalSeatPairs() throws -> [Seat: RoomState.SeatState] {
    var seats: [Seat: RoomState.SeatState] = [:]
    var pending: Seat?
    try array { reader in
      if let seat = pending {
        guard seats.updateValue(try reader.journalSeat(), forKey: seat) == nil else {
          throw reader.failure("seat \(seat.rawValue) held twice")
        }
        pending = nil
      } else {
        pending = try reader.seat()
      }
    }
    guard pending == nil else { throw failure("a seat number without its seat") }
    return seats
  }

  /// A held seat's fields; `other` reads any key this does not know (the seat's
  /// number, in format 2), and an unknown key is an error.
  private mutating func journalSeat(
    other: (inout JSONReader) throws -> Void = { throw $0.failure("a seat has an unknown field") }
  ) throws -> RoomState.SeatState {
    var name: String?
    var token: String?
    var connected: Bool?
    var score: Int?
    var pick: Weapon?
    var graceEndsAt: Int?
    var wantsRematch: Bool?
    var hasLeft: Bool?
    var commitment: String?
    var nonce: String?
    var revealFailed = false
    var leftBy: RoomState.Leaving?
    try object { reader, key in
      switch key {
      case "leftBy": leftBy = try reader.raw(RoomState.Leaving.self, "leftBy")
      case "commitment": commitment = try reader.optionalHex256()
      case "nonce": nonce = try reader.optionalHex256()
      case "revealFailed": revealFailed = try reader.bool()
      case "name": name = try reader.string()
      case "token": token = try reader.string()
      case "connected": connected = try reader.bool()
      case "score": score = try reader.int()
      case "pick": pick = try reader.null() ? nil : reader.raw(Weapon.self, "weapon")
      case "graceEndsAt": graceEndsAt = try reader.optionalInt()
      case "wantsRematch": wantsRematch = try reader.bool()
      case "hasLeft": hasLeft = try reader.bool()
      case "seat": try other(&reader)
      default: throw reader.failure("a seat has no field \"\(key.prefix(32))\"")
      }
    }
    guard let name, let token, let connected, let score, let wantsRematch, let hasLeft else {
      throw failure("a seat without one of name, token, connected, score, wantsRematch, hasLeft")
    }
    var held = RoomState.SeatState(name: name, token: token, connected: connected, score: score)
    held.pick = pick
    held.graceEndsAt = graceEndsAt.map(Int64.init)
    held.wantsRematch = wantsRematch
    held.hasLeft = hasLeft
    held.leftBy = leftBy
    held.commitment = commitment
    held.nonce = nonce
    held.revealFailed = revealFailed
    return held
  }
}
