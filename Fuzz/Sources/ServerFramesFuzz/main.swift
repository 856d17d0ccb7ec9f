// Fuzz target 1: what a stranger sends the server. The input is a connection's byte
// stream after TLS: it is cut into frames by the real `FrameDecoder`, each frame decoded
// as a `ClientMessage`, and each message that decodes becomes the lobby action the hub
// would perform, alternately for seat 1 and seat 2 of a room in play (`choose` in an
// ordinary room, `commit` and `reveal` in a fair one, checked as the hub checks them).
//
// Invariants: every frame is at most 65,536 bytes; a decoded message encodes and decodes
// to itself; a name that decodes obeys `PlayerName`; an action the rules refuse leaves
// the lobby exactly as it was; no room's history passes its limit; and no view of any
// room encodes to a frame over the limit. Challenges, accepts and declines go to a
// `ChallengeBoard` between four people (seats 1 and 2 challenge, by the name decoded):
// a refused one changes nothing, its caps hold, and an accepted one opens a match room.
// `enter` and `withdraw` drive a Swiss tournament (a `withdraw` every other time starts
// its next round instead), whose rooms the room actions above then play.
import FuzzDriver
import RoshamboGame
import RoshamboProtocol

func startingLobby() -> LobbyState {
  var lobby = LobbyState(defaults: .init(ruleset: .lizardSpock, bestOf: 5))
  _ = lobby.apply(.join(room: "den", name: "Alice", token: "a", at: 0))
  _ = lobby.apply(.join(room: "den", name: "Bob", token: "b", at: 0))
  _ = lobby.apply(.join(room: "fair", name: "Carol", token: "c", fair: true, at: 0))
  _ = lobby.apply(.join(room: "fair", name: "Dave", token: "d", at: 0))
  _ = lobby.apply(.tournament(.open(.swiss, settings: .init(bestOf: 1))))
  return lobby
}

let start = startingLobby()

let people = ["Alice", "Bob", "Carol", "Dave"].enumerated().map {
  ChallengeBoard.Person(id: $0.offset, name: $0.element)
}

fuzz { bytes in
  var lobby = start
  var board = ChallengeBoard()
  var changed = false
  let (frames, _) = frames(in: bytes)
  for (index, frame) in frames.enumerated() {
    let seat: Seat = index % 2 == 0 ? .one : .two
    let at = Int64(index) * 1_000
    let decoded = frame.withUnsafeReadableBytes { ClientMessage.decodeReadingID($0) }
    guard case .success(let message) = decoded.result else { continue }
    require(decoded.id == message.id, "the id read differs from the message's")
    let again = ClientMessage.decode(message.encoded())
    require(again == .success(message), "\(message) re-decodes as \(again)")
    let action: LobbyAction?
    switch message {
    case .hello(_, let name, let role, let room, _, let fair, _, _, _, _):
      require(PlayerName.isValid(name), "a decoded name breaks the rule: \(name.debugDescription)")
      action =
        role == .player
        ? .join(room: room, name: name, token: "t\(index)", fair: fair == true, at: at)
        : .spectate(room: room ?? "den")
    case .choose(let round, let weapon, _):
      action = .room("den", .chose(seat: seat, round: round, weapon: weapon, at: at))
    case .commit(let round, let digest, _):
      action = .room("fair", .committed(seat: seat, round: round, digest: digest, at: at))
    case .reveal(let round, let weapon, let nonce, _):
      let matches =
        lobby.rooms["fair"]?.seats[seat]?.commitment.map {
          Commitment.verify(
            $0, room: "fair", round: round, seat: seat, weapon: weapon, nonce: nonce)
        } ?? false
      action = .room(
        "fair",
        .revealed(
          seat: seat, round: round, weapon: weapon, nonce: nonce, matches: matches, at: at))
    case .rematch:
      action = .room("den", .rematchRequested(seat: seat, at: at))
    case .leave:
      action = .room("den", .left(seat: seat, at: at))
    case .ping, .lobbyResync:
      action = nil
    case .match(let id, _):
      // The record of each room's match as it stands, as a `record` would carry it: it
      // fits a frame, reads back the same, and holds only resolved rounds.
      for room in lobby.rooms.values {
        let match = FinishedMatch(
          id: Int64(id), room: room.name, finishedAt: at, ruleset: room.settings.ruleset.rawValue,
          bestOf: room.settings.bestOf, players: ["a", "b"],
          scores: Seat.allCases.map { room.seats[$0]?.score ?? 0 }, winner: "a", forfeit: false,
          fair: room.settings.fair, rounds: room.history)
        let bytes = ServerMessage.record(match, re: id).encoded()
        require(bytes.count <= WireProtocol.maxFrameLength, "a record of \(bytes.count) bytes")
        require(
          (try? ServerMessage.decode(bytes)) == .record(match, re: id),
          "a record does not read back")
      }
      action = nil
    case .challenge(let name, let bestOf, let ruleset, let fair, _):
      let to = people.first { $0.name == name } ?? people[3]
      let terms = ChallengeBoard.Terms(
        bestOf: bestOf ?? 3, ruleset: ruleset ?? .classic, fair: fair)
      action = challenge(.offer(from: people[index % 2], to: to, terms: terms, at: at))
    case .accept(let id, _):
      action = challenge(.accept(id: id, by: people[index % 4].id))
    case .decline(let id, let block, _):
      let by = people[index % 4].id
      action = challenge(block ? .block(id: id, by: by, at: 0) : .decline(id: id, by: by))
    case .enter:
      action = .tournament(.enter(name: people[index % 4].name))
    case .withdraw:
      // Withdrawing, or (every other time) starting the next round with everyone's token.
      let entrants = lobby.tournament?.entrants ?? []
      action =
        index % 2 == 0
        ? .tournament(.withdraw(name: people[index % 4].name))
        : .tournament(
          .startRound(
            tokens: Dictionary(uniqueKeysWithValues: entrants.map { ($0, "t-\($0)-\(index)") }),
            at: at))
    }
    func challenge(_ move: ChallengeBoard.Action) -> LobbyAction? {
      let before = board
      switch board.reduce(move) {
      case .failure(let refusal):
        require(board == before, "refused (\(refusal)) but the board changed")
      case .success(let events):
        for event in events {
          guard case .accepted(let taken) = event else { continue }
          let terms = taken.terms
          return .openMatch(
            players: [taken.from, taken.to].map { .init(name: $0.name, token: "c\($0.id)") },
            settings: .init(ruleset: terms.ruleset, bestOf: terms.bestOf, fair: terms.fair),
            at: at)
        }
      }
      for person in people {
        let pending = board.pending.values
        require(
          pending.count(where: { $0.from.id == person.id }) <= ChallengeBoard.maxOutgoing,
          "too many challenges out")
        require(
          pending.count(where: { $0.to.id == person.id }) <= ChallengeBoard.maxIncoming,
          "too many challenges in")
      }
      return nil
    }
    guard let action else { continue }
    let before = lobby
    if let refusal = lobby.apply(action) {
      require(lobby == before, "refused (\(refusal)) but the lobby changed")
    } else {
      changed = true
    }
  }
  guard changed else { return }
  for room in lobby.rooms.values {
    require(room.history.count <= RoomView.historyLimit, "history of \(room.history.count)")
    if room.settings.fair, room.seats.values.contains(where: { $0.pick != nil }) {
      require(room.isRevealing, "a fair room holds a weapon before both commitments")
    }
    for viewer in [Seat.one, .two, nil] {
      let size = ServerMessage.state(seq: room.version, view: room.view(for: viewer)).encoded()
        .count
      require(size <= WireProtocol.maxFrameLength, "a view of \(size) bytes")
    }
  }
}
