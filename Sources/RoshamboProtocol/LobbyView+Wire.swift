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
      raw("{")
      key("name"); string(person.name); comma()
      key("status"); string(person.status.rawValue); comma()
      key("room"); optionalString(person.room); comma()
      key("challenges"); bool(person.takesChallenges)
      raw("}")
    }
    raw("]"); comma()
    key("peopleCount"); int(view.peopleCount); comma()
    key("rooms"); raw("[")
    for (index, room) in view.rooms.enumerated() {
      if index > 0 { comma() }
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
    raw("]"); comma()
    key("roomCount"); int(view.roomCount); comma()
    key("leaders"); raw("[")
    for (index, leader) in view.leaders.enumerated() {
      if index > 0 { comma() }
      raw("{")
      key("name"); string(leader.name); comma()
      key("won"); int(leader.won); comma()
      key("lost"); int(leader.lost)
      raw("}")
    }
    raw("]}")
  }
}

extension JSONReader {
  package mutating func lobbyView() throws -> LobbyView {
    var people: [LobbyView.Person]?
    var peopleCount: Int?
    var rooms: [LobbyView.Room]?
    var roomCount: Int?
    var leaders: [LobbyView.Leader]?
    try object { reader, key in
      switch key {
      case "people": people = try reader.array(of: { try $0.lobbyPerson() })
      case "peopleCount": peopleCount = try reader.int()
      case "rooms": rooms = try reader.array(of: { try $0.lobbyRoom() })
      case "roomCount": roomCount = try reader.int()
      case "leaders": leaders = try reader.array(of: { try $0.lobbyLeader() })
      default: try reader.skipValue()
      }
    }
    guard let people, let peopleCount, let rooms, let roomCount, let leaders else {
      throw failure("a lobby view without one of people, peopleCount, rooms, roomCount, leaders")
    }
    guard people.count <= LobbyView.maxPeople, rooms.count <= LobbyView.maxRooms,
      leaders.count <= LobbyView.maxLeaders
    else {
      throw failure(
        "a lobby view lists at most \(LobbyView.maxPeople) people, \(LobbyView.maxRooms) "
          + "rooms and \(LobbyView.maxLeaders) leaders")
    }
    return LobbyView(
      people: people, peopleCount: peopleCount, rooms: rooms, roomCount: roomCount,
      leaders: leaders)
  }

  private mutating func lobbyPerson() throws -> LobbyView.Person {
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

  private mutating func lobbyRoom() throws -> LobbyView.Room {
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

  private mutating func lobbyLeader() throws -> LobbyView.Leader {
    var name: String?
    var won: Int?
    var lost: Int?
    try object { reader, key in
      switch key {
      case "name": name = try reader.string()
      case "won": won = try reader.int()
      case "lost": lost = try reader.int()
      default: try reader.skipValue()
      }
    }
    guard let name, let won, let lost else { throw failure("a leader without name, won or lost") }
    return LobbyView.Leader(name: name, won: won, lost: lost)
  }
}
