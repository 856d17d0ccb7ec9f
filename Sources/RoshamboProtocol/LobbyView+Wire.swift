import RoshamboGame
import RoshamboJSON

// The `lobby` message's `view` object, both ways, in one place (as `RoomView+Wire.swift`
// is for rooms): what the server writes for its lobby's followers and what a client
// reads back. Every key is written, `null` included.

extension JSONText {
  package mutating func lobbyView(_ view: LobbyView) {
    raw("{")
    key("people"); raw("[")
    for (index, person) in view.people.enumerated() {
      if index > 0 { comma() }
      lobbyPerson(person)
    }
    raw("]"); comma()
    key("peopleCount"); int(view.peopleCount); comma()
    key("rooms"); raw("[")
    for (index, room) in view.rooms.enumerated() {
      if index > 0 { comma() }
      lobbyRoom(room)
    }
    raw("]"); comma()
    key("roomCount"); int(view.roomCount); comma()
    key("leaders"); raw("[")
    for (index, leader) in view.leaders.enumerated() {
      if index > 0 { comma() }
      lobbyLeader(leader)
    }
    raw("]"); comma()
    key("tournament")
    if let tournament = view.tournament { self.tournament(tournament) } else { null() }
    if !view.recent.isEmpty {
      comma(); key("recent"); raw("[")
      for (index, match) in view.recent.enumerated() {
        if index > 0 { comma() }
        lobbyRecent(match)
      }
      raw("]")
    }
    if let server = view.server {
      comma(); key("server"); string(server)
    }
    raw("}")
  }

  // One entry of each of the view's lists: a `lobbyPatch` sends them in this same form.

  mutating func lobbyPerson(_ person: LobbyView.Person) {
    raw("{")
    key("name"); string(person.name); comma()
    key("status"); string(person.status.rawValue); comma()
    key("room"); optionalString(person.room); comma()
    key("challenges"); bool(person.takesChallenges)
    raw("}")
  }

  mutating func lobbyRoom(_ room: LobbyView.Room) {
    raw("{")
    key("name"); string(room.name); comma()
    key("players"); raw("[")
    for (seat, player) in room.players.enumerated() {
      if seat > 0 { comma() }
      optionalString(player)
    }
    raw("]"); comma()
    key("scores"); raw("[")
    for (seat, score) in room.scores.enumerated() {
      if seat > 0 { comma() }
      int(score)
    }
    raw("]"); comma()
    key("round"); int(room.round); comma()
    key("phase"); string(room.phase.rawValue); comma()
    key("bestOf"); int(room.bestOf); comma()
    key("ruleset"); string(room.ruleset.rawValue); comma()
    key("fair"); bool(room.fair); comma()
    key("spectators"); int(room.spectators)
    raw("}")
  }

  mutating func lobbyLeader(_ leader: LobbyView.Leader) {
    raw("{")
    key("name"); string(leader.name); comma()
    key("won"); int(leader.won); comma()
    key("lost"); int(leader.lost)
    if leader.wonByForfeit > 0 { comma(); key("wonByForfeit"); int(leader.wonByForfeit) }
    if let rating = leader.rating {
      // Within what a kept rating can be (``Glicko2Rating/problem``), so that a view
      // with every list full fits a frame whatever a rating became.
      comma(); key("rating"); decimal(min(max(rating.points, -999_999.999_999), 999_999.999_999))
      comma(); key("deviation"); decimal(min(rating.deviation, 9_999.999_999))
      comma(); key("provisional"); bool(rating.isProvisional)
    }
    raw("}")
  }

  mutating func lobbyRecent(_ match: LobbyView.Recent) {
    raw("{")
    key("id"); int(match.id); comma()
    key("room"); string(match.room); comma()
    key("players"); raw("["); string(match.players[0]); comma(); string(match.players[1])
    raw("]"); comma()
    key("scores"); raw("["); int(match.scores[0]); comma(); int(match.scores[1]); raw("]")
    comma()
    key("winner"); int(match.winner.rawValue); comma()
    key("fair"); bool(match.fair)
    if match.forfeit { comma(); key("forfeit"); bool(true) }
    raw("}")
  }

  /// A tournament's pairing: the lobby view's and the journal's (one form for both).
  package mutating func tournamentPairing(_ pairing: Tournament.Pairing) {
    raw("{")
    key("players"); raw("[")
    for (index, name) in pairing.players.enumerated() {
      if index > 0 { comma() }
      string(name)
    }
    raw("]"); comma()
    key("room"); optionalString(pairing.room); comma()
    key("winner"); optionalString(pairing.winner); comma()
    key("scores"); raw("[")
    for (index, score) in pairing.scores.enumerated() {
      if index > 0 { comma() }
      int(score)
    }
    raw("]")
    if pairing.graceRanOut { comma(); key("graceRanOut"); bool(true) }
    raw("}")
  }

  /// A round's pairings as a JSON array.
  private mutating func tournamentPairings(_ pairings: [Tournament.Pairing]) {
    raw("[")
    for (index, pairing) in pairings.enumerated() {
      if index > 0 { comma() }
      tournamentPairing(pairing)
    }
    raw("]")
  }

  mutating func tournament(_ view: LobbyView.TournamentView) {
    raw("{")
    key("kind"); string(view.kind.rawValue); comma()
    key("phase"); string(view.phase.rawValue); comma()
    key("round"); int(view.round); comma()
    key("rounds"); int(view.rounds); comma()
    key("standings"); raw("[")
    for (index, line) in view.standings.enumerated() {
      if index > 0 { comma() }
      raw("{")
      key("name"); string(line.name); comma()
      key("wins"); int(line.wins); comma()
      key("losses"); int(line.losses); comma()
      key("roundDifference"); int(line.roundDifference); comma()
      key("alive"); bool(line.alive)
      if line.withdrawn { comma(); key("withdrawn"); bool(true) }
      if line.lostAway > 0 { comma(); key("lostAway"); int(line.lostAway) }
      raw("}")
    }
    raw("]"); comma()
    key("pairings"); tournamentPairings(view.pairings); comma()
    key("champion"); optionalString(view.champion)
    if let startsAt = view.startsAt { comma(); key("startsAt"); int(Int(startsAt)) }
    if let startsWith = view.startsWith { comma(); key("startsWith"); int(startsWith) }
    if !view.earlier.isEmpty {
      comma(); key("earlier"); raw("[")
      for (index, round) in view.earlier.enumerated() {
        if index > 0 { comma() }
        tournamentPairings(round)
      }
      raw("]")
    }
    raw("}")
  }
}

extension JSONReader {
  package mutating func lobbyView() throws -> LobbyView {
    var people: [LobbyView.Person]?
    var peopleCount: Int?
    var rooms: [LobbyView.Room]?
    var roomCount: Int?
    var leaders: [LobbyView.Leader]?
    var tournament: LobbyView.TournamentView?
    var recent: [LobbyView.Recent] = []
    var server: String?
    try object { reader, key in
      switch key {
      case "server": server = try reader.optionalString()
      case "recent":
        if try !reader.null() {
          recent = try reader.array(of: { try $0.lobbyRecent() })
        }
      case "people": people = try reader.array(of: { try $0.lobbyPerson() })
      case "peopleCount": peopleCount = try reader.int()
      case "rooms": rooms = try reader.array(of: { try $0.lobbyRoom() })
      case "roomCount": roomCount = try reader.int()
      case "leaders": leaders = try reader.array(of: { try $0.lobbyLeader() })
      case "tournament":
        tournament = try reader.null() ? nil : try reader.lobbyTournament()
      default: try reader.skipValue()
      }
    }
    guard let people, let peopleCount, let rooms, let roomCount, let leaders else {
      throw failure("a lobby view without one of people, peopleCount, rooms, roomCount, leaders")
    }
    guard people.count <= LobbyView.maxPeopleAccepted, rooms.count <= LobbyView.maxRooms,
      leaders.count <= LobbyView.maxLeaders, recent.count <= LobbyView.maxRecent
    else {
      throw failure(
        "a lobby view lists at most \(LobbyView.maxPeopleAccepted) people, \(LobbyView.maxRooms) "
          + "rooms, \(LobbyView.maxLeaders) leaders and \(LobbyView.maxRecent) recent matches")
    }
    if let server, !PlayerName.isValid(server) {
      throw failure("a lobby view whose server name breaks the name rule")
    }
    var view = LobbyView(
      people: people, peopleCount: peopleCount, rooms: rooms, roomCount: roomCount,
      leaders: leaders, tournament: tournament, recent: recent)
    view.server = server
    return view
  }

  mutating func lobbyRecent() throws -> LobbyView.Recent {
    var id: Int?
    var room: String?
    var players: [String]?
    var scores: [Int]?
    var winner: Seat?
    var fair = false
    var forfeit = false
    try object { reader, key in
      switch key {
      case "forfeit": forfeit = try reader.null() ? false : reader.bool()
      case "id": id = try reader.int()
      case "room": room = try reader.string()
      case "players": players = try reader.array(of: { try $0.string() })
      case "scores": scores = try reader.array(of: { try $0.int() })
      case "winner": winner = try reader.seat()
      case "fair": fair = try reader.null() ? false : reader.bool()
      default: try reader.skipValue()
      }
    }
    guard let id, id > 0, let room, let players, players.count == 2, let scores,
      scores.count == 2, let winner
    else {
      throw failure(
        "a recent match needs a positive id, a room, two players, two scores and a winner")
    }
    var recent = LobbyView.Recent(
      id: Int64(id), room: room, players: players, scores: scores, winner: winner, fair: fair)
    recent.forfeit = forfeit
    return recent
  }

  mutating func lobbyTournament() throws -> LobbyView.TournamentView {
    var kind: Tournament.Kind?
    var phase: Tournament.Phase?
    var round: Int?
    var rounds: Int?
    var standings: [Tournament.Standing]?
    var pairings: [Tournament.Pairing]?
    var champion: String?
    var startsAt: Int?
    var startsWith: Int?
    var earlier: [[Tournament.Pairing]] = []
    try object { reader, key in
      switch key {
      case "earlier":
        earlier = try reader.array(of: { try $0.array(of: { try $0.tournamentPairing() }) })
      case "startsAt": startsAt = try reader.optionalInt()
      case "startsWith": startsWith = try reader.optionalInt()
      case "kind": kind = try reader.raw(Tournament.Kind.self, "kind")
      case "phase": phase = try reader.raw(Tournament.Phase.self, "phase")
      case "round": round = try reader.int()
      case "rounds": rounds = try reader.int()
      case "standings": standings = try reader.array(of: { try $0.tournamentStanding() })
      case "pairings": pairings = try reader.array(of: { try $0.tournamentPairing() })
      case "champion": champion = try reader.optionalString()
      default: try reader.skipValue()
      }
    }
    guard let kind, let phase, let round, let rounds, let standings, let pairings else {
      throw failure(
        "a tournament without one of kind, phase, round, rounds, standings, pairings")
    }
    guard standings.count <= LobbyView.TournamentView.maxStandings,
      pairings.count <= LobbyView.TournamentView.maxPairings,
      earlier.allSatisfy({ $0.count <= LobbyView.TournamentView.maxPairings }),
      earlier.joined().count <= LobbyView.TournamentView.maxEarlierPairings
    else {
      throw failure(
        "a tournament lists at most \(LobbyView.TournamentView.maxStandings) standings, "
          + "\(LobbyView.TournamentView.maxPairings) pairings a round and "
          + "\(LobbyView.TournamentView.maxEarlierPairings) of earlier rounds")
    }
    var view = LobbyView.TournamentView(
      kind: kind, phase: phase, round: round, rounds: rounds, standings: standings,
      pairings: pairings, champion: champion)
    view.startsAt = startsAt.map(Int64.init)
    view.startsWith = startsWith
    view.earlier = earlier
    return view
  }

  private mutating func tournamentStanding() throws -> Tournament.Standing {
    var name: String?
    var wins: Int?
    var losses: Int?
    var difference = 0
    var alive = true
    var withdrawn = false
    var lostAway = 0
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "wins": wins = try reader.int()
      case "losses": losses = try reader.int()
      case "roundDifference": difference = try reader.int()
      case "alive": alive = try reader.bool()
      case "withdrawn": withdrawn = try reader.null() ? false : reader.bool()
      case "lostAway": lostAway = try reader.null() ? 0 : reader.int()
      default: try reader.skipValue()
      }
    }
    guard let name, let wins, let losses else {
      throw failure("a standing without name, wins or losses")
    }
    return Tournament.Standing(
      name: name, wins: wins, losses: losses, roundDifference: difference, alive: alive,
      withdrawn: withdrawn, lostAway: max(0, lostAway))
  }

  /// A tournament's pairing, as ``JSONText/tournamentPairing(_:)`` writes it.
  package mutating func tournamentPairing() throws -> Tournament.Pairing {
    var players: [String]?
    var room: String?
    var winner: String?
    var scores: [Int] = []
    var graceRanOut = false
    try object { reader, key in
      switch key {
      case "graceRanOut": graceRanOut = try reader.null() ? false : reader.bool()
      case "players": players = try reader.array(of: { try $0.string() })
      case "room": room = try reader.optionalString()
      case "winner": winner = try reader.optionalString()
      case "scores": scores = try reader.array(of: { try $0.int() })
      default: try reader.skipValue()
      }
    }
    guard let players, (1...2).contains(players.count), scores.count <= 2 else {
      throw failure("a pairing without one or two players")
    }
    var pairing = Tournament.Pairing(players: players, room: room, winner: winner, scores: scores)
    pairing.graceRanOut = graceRanOut
    return pairing
  }

  mutating func lobbyPerson() throws -> LobbyView.Person {
    var name: String?
    var status: LobbyView.Status?
    var room: String?
    var challenges = false
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "status": status = try reader.raw(LobbyView.Status.self, "status")
      case "room": room = try reader.optionalString()
      case "challenges": challenges = try reader.bool()
      default: try reader.skipValue()
      }
    }
    guard let name, let status else { throw failure("a person without name or status") }
    return LobbyView.Person(name: name, status: status, room: room, takesChallenges: challenges)
  }

  mutating func lobbyRoom() throws -> LobbyView.Room {
    var name: String?
    var players: [String?]?
    var scores: [Int]?
    var round: Int?
    var phase: RoomState.Phase?
    var bestOf: Int?
    var ruleset: Ruleset.ID?
    var fair = false
    var spectators = 0
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "players": players = try reader.array(of: { try $0.optionalString() })
      case "scores": scores = try reader.array(of: { try $0.int() })
      case "round": round = try reader.int()
      case "phase": phase = try reader.raw(RoomState.Phase.self, "phase")
      case "bestOf": bestOf = try reader.int()
      case "ruleset": ruleset = try reader.raw(Ruleset.ID.self, "ruleset")
      case "fair": fair = try reader.bool()
      case "spectators": spectators = try reader.int()
      default: try reader.skipValue()
      }
    }
    guard let name, let players, let scores, let round, let phase, let bestOf, let ruleset,
      players.count == 2, scores.count == 2
    else {
      throw failure(
        "a room without name, two players, two scores, round, phase, bestOf or ruleset")
    }
    return LobbyView.Room(
      name: name, players: players, scores: scores, round: round, phase: phase, bestOf: bestOf,
      ruleset: ruleset, fair: fair, spectators: spectators)
  }

  mutating func lobbyLeader() throws -> LobbyView.Leader {
    var name: String?
    var won: Int?
    var lost: Int?
    var byForfeit = 0
    var points: Double?
    var deviation: Double?
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "won": won = try reader.int()
      case "lost": lost = try reader.int()
      case "wonByForfeit": byForfeit = try reader.optionalInt() ?? 0
      // `provisional` follows from the deviation (above 110), so it is not read.
      case "rating": points = try reader.null() ? nil : reader.double()
      case "deviation": deviation = try reader.null() ? nil : reader.double()
      default: try reader.skipValue()
      }
    }
    guard let name, let won, let lost else { throw failure("a leader without name, won or lost") }
    guard (0...max(0, won)).contains(byForfeit) else {
      throw failure("a leader who won more matches by forfeit than in all")
    }
    guard (points == nil) == (deviation == nil), (deviation ?? 1) > 0 else {
      throw failure("a leader's rating needs a deviation above 0, and a deviation a rating")
    }
    let rating = points.map { LobbyView.Rating(points: $0, deviation: deviation!) }
    return LobbyView.Leader(
      name: name, won: won, lost: lost, wonByForfeit: byForfeit, rating: rating)
  }
}
