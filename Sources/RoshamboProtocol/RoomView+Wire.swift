import RoshamboGame
import RoshamboJSON

// The contract's `view` object, both ways, in one place: what the server writes into
// each `state` and what a client reads back. `RoomView` itself (in RoshamboGame) is the
// value; this file is its only wire form. Every key is written, `null` included, so
// that clients in any language find each one.

extension JSONText {
  /// A resolved round as the contract writes it: `winner` is 0 for a draw. (The journal's
  /// format 2 stores rounds this way too.)
  package mutating func roundResult(_ round: RoundResult) {
    raw("{")
    key("round"); int(round.round); comma()
    key("weapons"); weapons(round.weapons); comma()
    key("winner"); int(round.winner?.rawValue ?? 0); comma()
    key("reason"); optionalString(round.reason)
    if let at = round.at { comma(); key("at"); int(at) }
    // Only in fair rounds (each written whenever present, so whatever a reader took in
    // is written back).
    if !round.commitments.isEmpty {
      comma(); key("commitments"); optionalStrings(round.commitments)
    }
    if !round.nonces.isEmpty { comma(); key("nonces"); optionalStrings(round.nonces) }
    raw("}")
  }

  private mutating func optionalStrings(_ values: [String?]) {
    raw("[")
    for (index, value) in values.enumerated() {
      if index > 0 { comma() }
      optionalString(value)
    }
    raw("]")
  }

  /// A tournament room's `tournament` (extension field).
  private mutating func tournamentStage(_ stage: RoomView.TournamentStage) {
    raw("{")
    key("kind"); string(stage.kind.rawValue); comma()
    key("phase"); string(stage.phase.rawValue); comma()
    key("round"); int(stage.round); comma()
    key("rounds"); int(stage.rounds); comma()
    if let startsAt = stage.startsAt { key("startsAt"); int(Int(startsAt)); comma() }
    key("byes"); raw("[")
    for (index, name) in stage.byes.enumerated() {
      if index > 0 { comma() }
      string(name)
    }
    raw("]"); comma()
    key("champion"); optionalString(stage.champion)
    raw("}")
  }

  /// The contract's `view` object, every key present.
  package mutating func view(_ view: RoomView) {
    raw("{")
    key("room"); string(view.room); comma()
    key("ruleset"); string(view.ruleset.rawValue); comma()
    key("bestOf"); int(view.bestOf); comma()
    key("phase"); string(view.phase.rawValue); comma()
    key("round"); int(view.round); comma()
    key("you"); optionalInt(view.you?.rawValue); comma()
    key("players"); raw("[")
    for (index, player) in view.players.enumerated() {
      if index > 0 { comma() }
      raw("{")
      key("seat"); int(player.seat.rawValue); comma()
      key("name"); string(player.name); comma()
      key("connected"); bool(player.connected); comma()
      key("chosen"); bool(player.chosen); comma()
      key("weapon"); optionalString(player.weapon?.rawValue); comma()
      key("score"); int(player.score); comma()
      key("left"); bool(player.left)
      if let leftBy = player.leftBy { comma(); key("leftBy"); string(leftBy.rawValue) }
      if view.fair || player.commitment != nil || player.revealed {
        comma(); key("commitment"); optionalString(player.commitment)
        comma(); key("revealed"); bool(player.revealed)
      }
      raw("}")
    }
    raw("]"); comma()
    key("history"); raw("[")
    for (index, round) in view.history.enumerated() {
      if index > 0 { comma() }
      roundResult(round)
    }
    raw("]"); comma()
    key("winner"); optionalInt(view.winner?.rawValue); comma()
    key("deadline"); optionalInt(view.deadline); comma()
    key("spectators"); int(view.spectators); comma()
    if view.fair { key("fair"); bool(true); comma() }
    if let stage = view.tournament { key("tournament"); tournamentStage(stage); comma() }
    key("rematch"); raw("[")
    for (index, seat) in view.rematch.enumerated() {
      if index > 0 { comma() }
      int(seat.rawValue)
    }
    raw("]}")
  }
}

extension JSONReader {
  package mutating func seat() throws -> Seat {
    let number = try int()
    guard let seat = Seat(rawValue: number) else {
      throw failure("a seat must be 1 or 2, not \(number)")
    }
    return seat
  }

  package mutating func optionalSeat() throws -> Seat? {
    try null() ? nil : seat()
  }

  package mutating func raw<T: RawRepresentable<String>>(_: T.Type, _ what: String) throws -> T {
    let text = try string()
    guard let value = T(rawValue: text) else {
      throw failure("\"\(text.prefix(32))\" is not a \(what)")
    }
    return value
  }

  /// The contract's `view` object; unknown keys are skipped, the extension fields may be
  /// missing.
  package mutating func view() throws -> RoomView {
    var room: String?
    var ruleset: Ruleset.ID?
    var bestOf: Int?
    var phase: RoomState.Phase?
    var round: Int?
    var you: Seat?
    var players: [PlayerView]?
    var history: [RoundResult]?
    var winner: Seat?
    var deadline: Int?
    var spectators = 0
    var rematch: [Seat] = []
    var fair = false
    var tournament: RoomView.TournamentStage?
    try object { reader, key in
      switch key {
      case "tournament": tournament = try reader.null() ? nil : reader.tournamentStage()
      case "room": room = try reader.string()
      case "ruleset": ruleset = try reader.raw(Ruleset.ID.self, "ruleset")
      case "bestOf": bestOf = try reader.int()
      case "phase": phase = try reader.raw(RoomState.Phase.self, "phase")
      case "round": round = try reader.int()
      case "you": you = try reader.optionalSeat()
      case "players": players = try reader.array(of: { try $0.player() })
      case "history": history = try reader.array(of: { try $0.roundResult() })
      case "winner": winner = try reader.optionalSeat()
      case "deadline": deadline = try reader.optionalInt()
      case "spectators": spectators = try reader.null() ? 0 : reader.int()
      case "rematch": rematch = try reader.null() ? [] : reader.array(of: { try $0.seat() })
      case "fair": fair = try reader.null() ? false : reader.bool()
      default: try reader.skipValue()
      }
    }
    guard let room, let ruleset, let bestOf, let phase, let round, let players, let history
    else {
      throw failure("a view without one of room, ruleset, bestOf, phase, round, players, history")
    }
    var view = RoomView(
      room: room, ruleset: ruleset, bestOf: bestOf, phase: phase, round: round, you: you,
      players: players, history: history, winner: winner, deadline: deadline.map(Int64.init),
      spectators: spectators, rematch: rematch, fair: fair)
    view.tournament = tournament
    return view
  }

  /// A tournament room's `tournament`, as ``JSONText/tournamentStage(_:)`` writes it.
  private mutating func tournamentStage() throws -> RoomView.TournamentStage {
    var kind: Tournament.Kind?
    var phase: Tournament.Phase?
    var round: Int?
    var rounds: Int?
    var startsAt: Int?
    var byes: [String] = []
    var champion: String?
    try object { reader, key in
      switch key {
      case "kind": kind = try reader.raw(Tournament.Kind.self, "kind")
      case "phase": phase = try reader.raw(Tournament.Phase.self, "phase")
      case "round": round = try reader.int()
      case "rounds": rounds = try reader.int()
      case "startsAt": startsAt = try reader.optionalInt()
      case "byes": byes = try reader.null() ? [] : reader.array(of: { try $0.string() })
      case "champion": champion = try reader.optionalString()
      default: try reader.skipValue()
      }
    }
    guard let kind, let phase, let round, let rounds else {
      throw failure("a tournament stage without one of kind, phase, round, rounds")
    }
    guard byes.count <= RoomView.TournamentStage.maxByes else {
      throw failure("a tournament stage lists at most \(RoomView.TournamentStage.maxByes) byes")
    }
    return RoomView.TournamentStage(
      kind: kind, phase: phase, round: round, rounds: rounds, startsAt: startsAt.map(Int64.init),
      byes: byes, champion: champion)
  }

  /// 64 lower-case hex digits, or null.
  package mutating func optionalHex256() throws -> String? {
    guard let text = try optionalString() else { return nil }
    guard Commitment.isHex256(text) else {
      throw failure("\"\(text.prefix(16))…\" is not 64 lower-case hex digits")
    }
    return text
  }

  package mutating func player() throws -> PlayerView {
    var seat: Seat?
    var name: String?
    var connected: Bool?
    var chosen: Bool?
    var weapon: Weapon?
    var score: Int?
    var left = false
    var leftBy: RoomState.Leaving?
    var commitment: String?
    var revealed = false
    try object { reader, key in
      switch key {
      case "seat": seat = try reader.seat()
      case "name": name = try reader.string()
      case "connected": connected = try reader.bool()
      case "chosen": chosen = try reader.bool()
      case "weapon": weapon = try reader.null() ? nil : reader.raw(Weapon.self, "weapon")
      case "score": score = try reader.int()
      case "left": left = try reader.null() ? false : reader.bool()
      // An unknown way (a newer server's) is read as not known.
      case "leftBy": leftBy = try reader.null() ? nil : RoomState.Leaving(rawValue: reader.string())
      case "commitment": commitment = try reader.optionalHex256()
      case "revealed": revealed = try reader.null() ? false : reader.bool()
      default: try reader.skipValue()
      }
    }
    guard let seat, let name, let connected, let chosen, let score else {
      throw failure("a player without one of seat, name, connected, chosen, score")
    }
    return PlayerView(
      seat: seat, name: name, connected: connected, chosen: chosen, weapon: weapon, score: score,
      left: left, leftBy: leftBy, commitment: commitment, revealed: revealed)
  }

  /// A resolved round. `drawAsNull` also takes a draw's `winner` as null or absent (how
  /// the journal's format 1 stored rounds); the contract's rounds say 0.
  package mutating func roundResult(drawAsNull: Bool = false) throws -> RoundResult {
    var round: Int?
    var weapons: [Weapon?]?
    var winner: Int? = drawAsNull ? 0 : nil
    var reason: String?
    var commitments: [String?] = []
    var nonces: [String?] = []
    var at: Int64?
    try object { reader, key in
      switch key {
      case "commitments": commitments = try reader.array(of: { try $0.optionalHex256() })
      case "nonces": nonces = try reader.array(of: { try $0.optionalHex256() })
      case "round": round = try reader.int()
      case "weapons":
        weapons = try reader.array(of: { try $0.null() ? nil : $0.raw(Weapon.self, "weapon") })
      case "winner": winner = try drawAsNull && reader.null() ? 0 : reader.int()
      case "reason": reason = try reader.optionalString()
      case "at": at = try reader.optionalInt().map(Int64.init)
      default: try reader.skipValue()
      }
    }
    guard let round, let weapons, let winner else {
      throw failure("a round without one of round, weapons, winner")
    }
    guard winner == 0 || Seat(rawValue: winner) != nil else {
      throw failure("a round's winner must be 0, 1 or 2, not \(winner)")
    }
    guard commitments.count <= 2, nonces.count <= 2 else {
      throw failure("a round has at most two commitments and two nonces")
    }
    return RoundResult(
      round: round, weapons: weapons, winner: Seat(rawValue: winner), reason: reason,
      commitments: commitments, nonces: nonces, at: at)
  }
}
