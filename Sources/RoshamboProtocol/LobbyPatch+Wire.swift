import RoshamboGame
import RoshamboJSON

// The `lobbyPatch` message's `patch` object, both ways: each changed list as an array of
// pieces (`[from, to]`, the old list's entries from `from` up to, not including, `to`;
// or an entry, in the form the `lobby` view writes it), each changed field whole, every
// unchanged key absent.

extension JSONText {
  package mutating func lobbyPatch(_ patch: LobbyPatch) {
    var first = true
    func next(_ name: StaticString) {
      if !first { comma() }
      first = false
      key(name)
    }
    raw("{")
    if let people = patch.people {
      next("people"); pieces(people) { $0.lobbyPerson($1) }
    }
    if let count = patch.peopleCount { next("peopleCount"); int(count) }
    if let rooms = patch.rooms {
      next("rooms"); pieces(rooms) { $0.lobbyRoom($1) }
    }
    if let count = patch.roomCount { next("roomCount"); int(count) }
    if let leaders = patch.leaders {
      next("leaders"); pieces(leaders) { $0.lobbyLeader($1) }
    }
    if let recent = patch.recent {
      next("recent"); pieces(recent) { $0.lobbyRecent($1) }
    }
    if let tournament = patch.tournament {
      next("tournament")
      if let tournament { self.tournament(tournament) } else { null() }
    }
    if let server = patch.server {
      next("server"); optionalString(server)
    }
    raw("}")
  }

  private mutating func pieces<Entry>(
    _ list: LobbyPatch.ListPatch<Entry>, entry write: (inout JSONText, Entry) -> Void
  ) {
    raw("[")
    for (index, piece) in list.pieces.enumerated() {
      if index > 0 { comma() }
      switch piece {
      case .kept(let range):
        raw("["); int(range.lowerBound); comma(); int(range.upperBound); raw("]")
      case .new(let entry):
        write(&self, entry)
      }
    }
    raw("]")
  }
}

extension JSONReader {
  package mutating func lobbyPatch() throws -> LobbyPatch {
    var patch = LobbyPatch()
    try object { reader, key in
      switch key {
      case "people": patch.people = try reader.pieces { try $0.lobbyPerson() }
      case "peopleCount": patch.peopleCount = try reader.int()
      case "rooms": patch.rooms = try reader.pieces { try $0.lobbyRoom() }
      case "roomCount": patch.roomCount = try reader.int()
      case "leaders": patch.leaders = try reader.pieces { try $0.lobbyLeader() }
      case "recent": patch.recent = try reader.pieces { try $0.lobbyRecent() }
      case "tournament":
        patch.tournament = .some(try reader.null() ? nil : try reader.lobbyTournament())
      case "server":
        let server = try reader.optionalString()
        if let server, !PlayerName.isValid(server) {
          throw reader.failure("a lobby patch whose server name breaks the name rule")
        }
        patch.server = .some(server)
      default: try reader.skipValue()
      }
    }
    return patch
  }

  private mutating func pieces<Entry>(
    entry read: (inout JSONReader) throws -> Entry
  ) throws -> LobbyPatch.ListPatch<Entry> {
    var pieces: [LobbyPatch.ListPatch<Entry>.Piece] = []
    try array { reader in
      // No list is longer than a few hundred entries: a patch of more pieces than that
      // is refused before it costs more.
      guard pieces.count < 1_024 else { throw reader.failure("a lobby patch's list is too long") }
      if try reader.kind() == .array {
        let bounds = try reader.array(of: { try $0.int() })
        guard bounds.count == 2, bounds[0] >= 0, bounds[0] < bounds[1] else {
          throw reader.failure("a kept run is [from, to] with 0 <= from < to")
        }
        pieces.append(.kept(bounds[0]..<bounds[1]))
      } else {
        pieces.append(.new(try read(&reader)))
      }
    }
    return LobbyPatch.ListPatch(pieces: pieces)
  }
}
