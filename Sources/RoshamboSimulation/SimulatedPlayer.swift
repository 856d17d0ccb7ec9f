import RoshamboClient
import RoshamboGame
import RoshamboProtocol

/// One person at the party, made of the real client's parts: ``ServerIntake`` checks
/// every message against the view contract, ``ClientReducer`` keeps the replica (with
/// fair-play verification) and returns its effects, ``BotStrategy`` picks, and
/// ``LobbyClient/Requests`` words the lobby's requests. What a person decides (to
/// rematch, to challenge, to go away for a while) comes from the simulation's seed.
///
/// Invariant: a player sends only what the real client would send in its state: a pick
/// only when the reducer takes it, a resume only with a token the server gave.
struct SimulatedPlayer {
  enum Kind: Equatable {
    /// Plays quick match.
    case quickMatch
    /// Follows the lobby: challenges, answers challenges, enters the tournament.
    case lobby
    /// Looks at the lobby, then watches a match being played, and back.
    case watcher
  }

  /// Where this person is.
  enum Mode {
    case away
    /// Connected (or connecting) as a player in a room: the replica of the room.
    case playing(Replica)
    /// Connected (or connecting) to the lobby.
    case following(Lobby)
  }

  struct Replica {
    var state = ClientState()
    var welcomed = false
    var firstAfterWelcome = false
    var nextID = 10
  }

  struct Lobby {
    var requests: LobbyClient.Requests
    /// The lobby as whole views and patches made it (the client's own ``LobbyReplica``).
    var replica = LobbyReplica()
    var view: LobbyView? { replica.view }
    /// Challenges waiting for this person's answer.
    var pending: [Int] = []
  }

  /// What a message or a decision calls for.
  struct Reaction {
    var send: [ClientMessage] = []
    /// Close the connection (after sending).
    var close = false
    /// Back to the lobby at once (the screen's way out of a match).
    var backToLobby = false
    /// Something the real client would call a broken contract or a cheat.
    var violation: String?
    /// The lobby's copy fell out of step with the server's and asked for the whole view.
    var resynced = false
    /// The server refused the person's name (another holds it): the program ends, and the
    /// person tries again only after a while.
    var refusedName = false
  }

  let index: Int
  let kind: Kind
  let name: String
  let identity: String
  var mode = Mode.away
  /// The connection in use, if any.
  var connection: Int?
  /// The seat kept on disk (``SeatMemory``), if any: what a program started again resumes with.
  var token: String?
  /// When the connection of a seat in a running match dropped (the grace runs from it).
  var droppedInMatchAt: Int64?
  /// When this person's program last lost its connection, and whether they were then
  /// entered in a tournament still taking entries.
  var droppedAt: Int64?
  var enteredWhenDropped = false
  /// When the server had their `hello` after that.
  var returnedAt: Int64?
  /// The room a watcher goes to watch next.
  var watchTarget: String?
  /// Refused their name, the person does not start the program again before then.
  var awayUntil: Int64 = 0

  init(index: Int, kind: Kind) {
    self.index = index
    self.kind = kind
    self.name = "P\(index)"
    // A player identity is the SHA-256 of a client key, as 64 hex digits.
    let hex = String(index + 1, radix: 16)
    self.identity = String(repeating: "0", count: 64 - hex.count) + hex
  }

  // MARK: - Hello

  /// The `hello` for a new connection: a seat taken back, the lobby, or quick match.
  mutating func hello(fair: Bool) -> ClientMessage {
    // A program still running resumes with the token of its session (``ClientSession``
    // does, the match over or not); one started again, with the seat it kept on disk.
    if case .playing(var replica) = mode, let token = replica.state.token ?? token {
      replica.welcomed = false
      _ = ClientReducer().reduce(into: &replica.state, effectsOf: .connection(.connected))
      mode = .playing(replica)
      return .hello(
        protocol: WireProtocol.version, name: name, role: .player, room: nil, resume: token,
        fair: true, keepalive: 3, id: 1)
    }
    if kind == .watcher, let room = watchTarget {
      watchTarget = nil
      var replica = Replica()
      _ = ClientReducer().reduce(into: &replica.state, effectsOf: .connection(.connected))
      mode = .playing(replica)
      return .hello(
        protocol: WireProtocol.version, name: name, role: .spectator, room: room, resume: nil,
        fair: true, keepalive: 3, id: 1)
    }
    if kind == .lobby || kind == .watcher {
      var lobby = Lobby(
        requests: LobbyClient.Requests(
          name: name, takesChallenges: kind == .lobby, entrant: kind == .lobby))
      let hello = lobby.requests.hello(keepalive: .seconds(15))
      mode = .following(lobby)
      return hello
    }
    mode = .playing(Replica())
    token = nil
    return .hello(
      protocol: WireProtocol.version, name: name, role: .player, room: nil, resume: nil,
      fair: fair ? true : nil, keepalive: 3, id: 1)
  }

  // MARK: - From the server

  mutating func receive(_ message: ServerMessage, random: inout SimulationRandom) -> Reaction {
    switch mode {
    case .away:
      return Reaction()
    case .playing(var replica):
      let reaction = receive(message, replica: &replica, random: &random)
      if case .playing = mode { mode = .playing(replica) }
      return reaction
    case .following(var lobby):
      switch message {
      case .lobby, .lobbyPatch:
        if lobby.replica.receive(message) == .resync {
          var reaction = Reaction(resynced: true)
          reaction.send.append(lobby.requests.resync())
          mode = .following(lobby)
          return reaction
        }
      case .challenge(let notice):
        if notice.status == .pending, notice.to == name {
          lobby.pending.append(notice.id)
        } else {
          lobby.pending.removeAll { $0 == notice.id }
        }
      case .welcome(let room, let seat, let token, _):
        // Seated from the lobby (a challenge accepted, a tournament round): the same
        // connection now carries the room.
        var replica = Replica()
        replica.welcomed = true
        replica.firstAfterWelcome = true
        var reaction = Reaction()
        let effects = reduce(&replica, .welcome(room: room, seat: seat, token: token))
        perform(effects, on: &replica, into: &reaction, random: &random)
        mode = .playing(replica)
        return reaction
      case .error(let error, _) where error.fatal || lobby.replica.view == nil:
        // Refused before the first view (the server could not save the hello, say): the
        // real `LobbyClient` closes and says so; the person is not back yet.
        returnedAt = nil
        mode = .away
        return Reaction(close: true, refusedName: error.code == .nameTaken)
      default:
        break
      }
      mode = .following(lobby)
      return Reaction()
    }
  }

  private mutating func receive(
    _ message: ServerMessage, replica: inout Replica, random: inout SimulationRandom
  ) -> Reaction {
    var reaction = Reaction()
    let outcome = ServerIntake.outcome(
      of: message, state: replica.state, welcomed: replica.welcomed,
      firstAfterWelcome: replica.firstAfterWelcome)
    switch outcome {
    case .violation(let why):
      reaction.violation = "the client's contract check: \(why)"
      return reaction
    case .pong:
      return reaction
    case .action(let action):
      switch message {
      case .welcome:
        replica.welcomed = true
        replica.firstAfterWelcome = true
      case .state:
        replica.firstAfterWelcome = false
      case .error(let error, _):
        if error.code == .badToken {
          token = nil
          mode = .away
          reaction.close = true
          return reaction
        }
        if error.fatal {
          mode = .away
          reaction.close = true
          reaction.refusedName = error.code == .nameTaken
          return reaction
        }
      default:
        break
      }
      let effects = reduce(&replica, action)
      perform(effects, on: &replica, into: &reaction, random: &random)
    }
    return reaction
  }

  // MARK: - Decisions

  /// What this person does when they next look at their screen.
  mutating func decide(random: inout SimulationRandom, fair: Bool) -> Reaction {
    var reaction = Reaction()
    switch mode {
    case .away:
      break
    case .playing(var replica):
      if kind == .watcher {
        // A match watched to its end (or a while): back to the lobby.
        if replica.state.view?.phase != .choosing || random.chance(0.05) {
          mode = .away
          reaction.close = true
        }
        return reaction
      }
      guard replica.welcomed, let view = replica.state.view, let seat = replica.state.seat else {
        break
      }
      if replica.state.isMyMove {
        let weapon = BotStrategy.random.pick(
          history: view.history, seat: seat, ruleset: Ruleset.named(view.ruleset),
          random: &random)
        let effects = reduce(&replica, .choose(weapon))
        perform(effects, on: &replica, into: &reaction, random: &random)
      } else if view.phase == .over {
        if random.chance(0.5), view.player(seat.opponent)?.left != true {
          let effects = reduce(&replica, .rematch)
          perform(effects, on: &replica, into: &reaction, random: &random)
        } else {
          let effects = reduce(&replica, .quit)
          perform(effects, on: &replica, into: &reaction, random: &random)
          reaction.close = true
          token = nil
          mode = .away
          return reaction
        }
      }
      mode = .playing(replica)
    case .following(var lobby):
      if kind == .watcher {
        let playing = lobby.view?.rooms.filter { $0.phase == .choosing } ?? []
        if let room = playing.randomElement(using: &random) {
          watchTarget = room.name
          mode = .away
          reaction.close = true
          return reaction
        }
        mode = .following(lobby)
        return reaction
      }
      if let challenge = lobby.pending.first {
        lobby.pending.removeFirst()
        reaction.send.append(
          random.chance(0.7)
            ? lobby.requests.accept(challenge)
            : lobby.requests.decline(challenge, forTheEvening: false))
      } else if let view = lobby.view, random.chance(0.3) {
        let others = view.people.filter {
          $0.status == .idle && $0.takesChallenges && $0.name != name
        }
        if let other = others.randomElement(using: &random) {
          reaction.send.append(
            lobby.requests.challenge(other.name, fair: fair && random.chance(0.3)))
        }
      } else if let tournament = lobby.view?.tournament, tournament.phase == .entry,
        random.chance(0.2)
      {
        reaction.send.append(lobby.requests.enterTournament())
      }
      mode = .following(lobby)
    }
    return reaction
  }

  /// The connection dropped (or the server closed it, at `seatWaitingSince`): a seat in a
  /// running match starts its grace on the server.
  mutating func lostConnection(at now: Int64, seatWaitingSince: Int64) {
    connection = nil
    droppedAt = seatWaitingSince
    returnedAt = nil
    guard case .playing(var replica) = mode else {
      if case .following = mode { mode = .away }
      return
    }
    if token != nil, replica.state.view?.phase == .choosing {
      droppedInMatchAt = droppedInMatchAt ?? seatWaitingSince
    }
    _ = ClientReducer().reduce(
      into: &replica.state, effectsOf: .connection(.reconnecting(attempt: 1)))
    replica.welcomed = false
    mode = token == nil && replica.state.token == nil ? .away : .playing(replica)
  }

  // MARK: - The reducer and its effects

  private func reduce(_ replica: inout Replica, _ action: ClientAction) -> [ClientEffect] {
    ClientReducer().reduce(into: &replica.state, effectsOf: action)
  }

  private mutating func perform(
    _ effects: [ClientEffect], on replica: inout Replica, into reaction: inout Reaction,
    random: inout SimulationRandom
  ) {
    for effect in effects {
      switch effect {
      case .send(let message):
        replica.nextID += 1
        let id = replica.nextID
        switch message {
        case .choose(let round, let weapon):
          reaction.send.append(.choose(round: round, weapon: weapon, id: id))
        case .commit(let round, let digest):
          reaction.send.append(.commit(round: round, digest: digest, id: id))
        case .reveal(let round, let weapon, let nonce):
          reaction.send.append(.reveal(round: round, weapon: weapon, nonce: nonce, id: id))
        case .rematch:
          reaction.send.append(.rematch(id: nil))
        }
      case .makeCommitment(let weapon):
        let more = ClientReducer().reduce(
          into: &replica.state, effectsOf: .commit(weapon, nonce: random.hex32()))
        perform(more, on: &replica, into: &reaction, random: &random)
      case .keepSeat(_, let token):
        self.token = token
        droppedInMatchAt = nil
      case .forgetSeat:
        token = nil
      case .matchReady:
        // The screen goes back to the lobby (a spectator, or a match that is over), which
        // seats them in their tournament match.
        if kind != .quickMatch,
          replica.state.seat == nil || replica.state.view?.phase == .over
        {
          // The screen quits as on `q`: the seat is given up with `leave`.
          let more = ClientReducer().reduce(into: &replica.state, effectsOf: .quit)
          perform(more, on: &replica, into: &reaction, random: &random)
          token = nil
          reaction.close = true
          reaction.backToLobby = true
        }
      case .saveRecord:
        break
      case .keepEvidence:
        reaction.violation = "fair play flagged an honest round (the client kept evidence)"
      case .leave:
        reaction.send.append(.leave(id: nil))
      }
    }
  }
}
