import RoshamboClient
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// People and the network between them and the server: connecting, frames each way in
/// order per connection, decisions, and the faults the network and people bring.
extension Simulation {
  func wakeUp(_ index: Int) {
    guard let program = players[index].program else {
      guard now >= players[index].awayUntil else { return }
      // Someone away for a while starts the program again (a seat kept on disk, the
      // lobby, a room to watch, or quick match).
      startProgram(index)
      wake(index, after: random.int(500...3_000))
      return
    }
    if let id = program.connection, let connection = connections[id], connection.readsFrom > now {
      // The terminal is paused: the person waits for it.
      wake(index, after: connection.readsFrom - now + random.int(100...2_000))
      return
    }
    if let command = players[index].decide(program.state, random: &random) {
      trace.note("\(now - start) P\(index) \(command.traceName)")
      if case .challenge(_, let bestOf, _, _) = command { watch.challengeAsked[index] = bestOf }
      program.handle(.command(command))
    }
    if program.state.lobby != nil, random.chance(0.01) {
      pauseReading(index, for: random.int(5_000...90_000))
    }
    if players[index].program === program {
      // Mostly at the screen; now and then away from it for minutes, the program running,
      // but not while their tournament runs (its bound is for entrants who are present).
      let playing = players[index].inTournament(program.state)
      let away = !playing && random.chance(0.02)
      // In a tournament's match, someone now and then thinks for long before picking, so
      // one match of a round may end well after the other.
      let thinking = playing && random.chance(0.1)
      wake(
        index,
        after: away
          ? random.int(20_000...600_000)
          : thinking ? random.int(6_000...20_000) : random.int(300...4_000))
    }
  }

  /// Person `index` starts their program.
  func startProgram(_ index: Int) {
    programSerial += 1
    var configuration = players[index].nextProgram(fair: random.chance(0.3))
    if configuration.role == .spectator { players[index].watchTarget = nil }
    players[index].impersonating = nil
    // Now and then a dishonest player starts under the name another person holds, in
    // other capitals (the name folds to the same): the server must refuse it.
    if players[index].cheats, configuration.resume == nil, random.chance(0.2), let hub {
      let mine = players[index].identity
      if let victim = players.first(where: {
        $0.index != index && hub.state.lobby.names.holder(of: $0.name).map { $0 != mine } == true
      }) {
        configuration.name = victim.name.lowercased()
        players[index].impersonating = configuration.name
        counts["look-alike names tried", default: 0] += 1
      }
    }
    presentForeignToken(index, &configuration)
    players[index].comesBackSoon = false
    players[index].pending = []
    players[index].challenging = false
    let program = SimulatedProgram(
      simulation: self, person: index, serial: programSerial, configuration: configuration)
    players[index].program = program
    trace.note("\(now - start) P\(index) starts program \(programSerial) (\(configuration.role))")
    program.handle(.start)
  }

  /// Now and then a dishonest player with no seat kept starts a program that presents a
  /// token as if it held a seat: one made up in the tokens' shape, or one of its own seats
  /// given up long ago (replayed). It must seat nobody in another's seat.
  private func presentForeignToken(_ index: Int, _ configuration: inout PlayerConfiguration) {
    players[index].presenting = nil
    guard players[index].cheats, configuration.resume == nil, players[index].impersonating == nil,
      random.chance(0.15)
    else { return }
    let former = players[index].formerTokens
    let token =
      !former.isEmpty && random.chance(0.5)
      ? former[Int(random.int(0...Int64(former.count - 1)))] : String(random.hex32().prefix(32))
    configuration = PlayerConfiguration(name: configuration.name, fair: true, resume: token)
    players[index].presenting = token
    counts["foreign or replayed tokens presented", default: 0] += 1
  }

  /// What person `index`'s program asks for, carried out in the virtual world (the
  /// terminal program's `PlayerDriver` carries out the same outputs on real sockets).
  func program(_ program: SimulatedProgram, performs output: PlayerOutput, state: PlayerState) {
    let index = program.person
    guard players[index].program === program, failure == nil else { return }
    switch output {
    case .connect:
      guard runner != nil else {
        program.handle(.connectFailed("the server does not answer"))
        return
      }
      let id = connect(index)
      program.connection = id
      trace.note("\(now - start) P\(index) connects c\(id)")
      program.handle(.connected)
    case .send(let message):
      guard let id = program.connection else { return }
      if case .lobbyResync = message { checkResync(on: id, by: index) }
      send(players[index].cheats ? dishonestWire(message, of: index) : [message], on: id)
    case .close:
      guard let id = program.connection else { return }
      program.connection = nil
      if case .reconnecting = state.phase {
        trace.note("\(now - start) P\(index) takes c\(id) for lost")
        counts["server taken for lost", default: 0] += 1
      }
      close(id, player: index)
    case .schedule(let timer, let at):
      timerSerial += 1
      program.timerGenerations[timer] = timerSerial
      queue.schedule(
        .programTimer(
          player: index, program: program.serial, timer: timer, generation: timerSerial),
        at: max(now, at))
    case .cancel(let timer):
      program.timerGenerations[timer] = nil
    case .makeNonce(let weapon):
      program.handle(.nonce(random.hex32(), for: weapon))
    case .drawNonce:
      program.handle(.nonceDrawn(random.hex32()))
    case .keepSeat(_, let token):
      players[index].token = token
      if !players[index].formerTokens.contains(token) {
        players[index].formerTokens = (players[index].formerTokens + [token]).suffix(8)
      }
      players[index].droppedInMatchAt = nil
    case .forgetSeat:
      players[index].token = nil
    case .keepEvidence where players[index].cheats:
      // A cheater's own client finds its cheat ruled against: nothing of the server's.
      counts["cheats caught", default: 0] += 1
    case .keepEvidence:
      fail(
        "the real client finds nothing wrong",
        "P\(index): fair play flagged an honest round (the client kept evidence)")
    case .say(let line):
      fail("the real client keeps to the server's rate", "P\(index)'s program said: \(line)")
    case .matchReady:
      // The screen goes back to the lobby (from watching, or from a match that is over),
      // which seats them in their tournament match: it quits as on `q`.
      if players[index].kind != .quickMatch,
        state.match.seat == nil || state.match.view?.phase == .over
      {
        players[index].comesBackSoon = true
        program.handle(.command(.leave))
      }
    case .lobby(let news):
      switch news {
      case .challenge(let notice):
        if notice.status == .pending, notice.to == players[index].name {
          players[index].pending.append(notice.id)
        } else {
          players[index].pending.removeAll { $0 == notice.id }
        }
        if notice.status != .pending {
          players[index].challenging = false
        }
      case .refused:
        players[index].challenging = false
      case .seated:
        players[index].pending = []
        players[index].challenging = false
      default:
        break
      }
    case .saveRecord, .show:
      break
    case .ended(let end):
      programEnded(program, end)
    }
  }

  /// Person `index`'s program ended: what is open is closed, and the person starts it
  /// again after a while (soon when it ended on the way somewhere).
  private func programEnded(_ program: SimulatedProgram, _ end: PlayerEnd) {
    let index = program.person
    if let id = program.connection {
      program.connection = nil
      close(id, player: index)
    }
    players[index].program = nil
    players[index].pending = []
    trace.note("\(now - start) P\(index) program ends: \(end.reason)")
    var back = players[index].comesBackSoon ? random.int(300...3_000) : random.int(5_000...120_000)
    switch end {
    case .left:
      break
    case .refused(let error) where error.code == .nameTaken:
      // The program said the name is another's and ended; the person tries again later.
      counts["refused their name", default: 0] += 1
      players[index].awayUntil = now + random.int(60_000...300_000)
      back = players[index].awayUntil - now
    case .refused(let error) where error.code == .badToken:
      players[index].token = nil
      back = random.int(300...3_000)
    case .refused, .closed, .gaveUp, .couldNotConnect:
      counts["program ended: \(end.kindName)", default: 0] += 1
      back = random.int(1_000...30_000)
    case .brokeProtocol where players[index].cheats, .cheated where players[index].cheats:
      counts["program ended: a cheat ruled against", default: 0] += 1
      back = random.int(1_000...30_000)
    case .brokeProtocol(let why), .cheated(let why):
      fail("the real client finds nothing wrong", "P\(index): \(why)")
    }
    wake(index, after: back)
  }

  /// A program's timer came due: handed to its core if it is still that program's latest.
  func programTimerFired(
    player index: Int, program serial: Int, _ timer: PlayerTimer, _ generation: Int
  ) {
    guard let program = players[index].program, program.serial == serial,
      program.timerGenerations[timer] == generation
    else { return }
    program.timerGenerations[timer] = nil
    program.handle(.timerFired(timer))
  }

  func toClient(_ id: Int, _ bytes: [UInt8]?) {
    guard let connection = connections[id] else { return }
    let index = connection.player
    guard let program = players[index].program, program.connection == id else { return }
    if connection.readsFrom > now {
      connections[id]?.unreadByProgram.append(bytes)
      return
    }
    guard let bytes else {
      // The server closed it (or died): the program notices and comes back.
      trace.note("\(now - start) P\(index) sees c\(id) close")
      lostConnection(index, serverClosedAt: connection.serverClosedAt)
      connections[id]?.open = false
      program.connection = nil
      program.handle(.closed(nil))
      return
    }
    socketRead(bytes.count, on: id)
    let message: ServerMessage
    do {
      message = try ServerMessage.decode(bytes)
    } catch {
      fail("server frames decode", "connection \(id): \(error)")
      return
    }
    trace.note("\(now - start) P\(index) ←c\(id) \(message.traceName)")
    checkReceived(message, by: index, generation: connection.generation)
    if case .error(let error, _) = message {
      counts["told \(error.code.rawValue)", default: 0] += 1
    }
    program.handle(.message(message))
  }

  /// Person `index`'s program lost its connection (noting whether they were entered in a
  /// tournament still taking entries, and whether a seat in a running match starts its
  /// grace).
  func lostConnection(_ index: Int, serverClosedAt: Int64? = nil) {
    let since = serverClosedAt ?? now
    players[index].droppedAt = since
    players[index].returnedAt = nil
    let match = players[index].program?.state.match
    if players[index].token ?? match?.token != nil, match?.view?.phase == .choosing {
      players[index].droppedInMatchAt = players[index].droppedInMatchAt ?? since
    }
    let tournament = hub?.state.lobby.tournament
    players[index].enteredWhenDropped =
      tournament?.phase == .entry && tournament?.entrants.contains(players[index].name) == true
  }

  /// What a dishonest person's client puts on the wire for `message`: in a fair room, half
  /// their reveals name another weapon than the one committed to; after a pick, now and
  /// then frames out of turn (a second pick for the round, one for a round not open) or a
  /// flood of pings within the server's burst.
  private func dishonestWire(_ message: ClientMessage, of index: Int) -> [ClientMessage] {
    switch message {
    case .reveal(let round, let weapon, let nonce, let re) where random.chance(0.5):
      let other = [Weapon.rock, .paper, .scissors].filter { $0 != weapon }
      trace.note("\(now - start) P\(index) reveals another weapon than it committed to")
      counts["dishonest reveals", default: 0] += 1
      return [.reveal(round: round, weapon: other[Int(random.int(0...1))], nonce: nonce, id: re)]
    case .choose(let round, let weapon, _):
      var extra: [ClientMessage] = []
      if random.chance(0.2) {
        extra.append(.choose(round: round, weapon: weapon == .rock ? .paper : .rock, id: nil))
      }
      if random.chance(0.1) { extra.append(.choose(round: round + 5, weapon: weapon, id: nil)) }
      if random.chance(0.1) { extra += Array(repeating: .ping(id: nil), count: 12) }
      if !extra.isEmpty { counts["frames out of turn or in a flood", default: 0] += extra.count }
      return [message] + extra
    default:
      return [message]
    }
  }

  /// Frames from a person to the server, each after the last one on the connection.
  func send(_ messages: [ClientMessage], on id: Int) {
    for message in messages {
      guard var connection = connections[id], connection.open else { return }
      let at = max(now + random.int(1...15), connection.toServerAt, connection.cutUntil)
      connection.toServerAt = at
      connections[id] = connection
      queue.schedule(.toServer(connection: id, bytes: message.encoded()), at: at)
    }
  }

  /// The person's program closes the connection: the server sees it after the frames
  /// sent before it.
  func close(_ id: Int, player index: Int) {
    guard var connection = connections[id] else { return }
    connection.open = false
    connections[id] = connection
    let at = max(now + random.int(1...15), connection.toServerAt, connection.cutUntil)
    queue.schedule(.serverSeesClose(connection: id), at: at)
    lostConnection(index)
  }

  // MARK: - Faults

  func scheduleFaults(until end: Int64) {
    let faults = configuration.faults
    var at = start
    while at < end {
      at += random.int(20_000...240_000)
      let pick = random.next() % 10
      if faults.contains(.crash), pick == 0 {
        queue.schedule(.crash, at: at)
      } else if faults.contains(.disk), pick == 1 {
        queue.schedule(.disk(full: true), at: at)
        queue.schedule(.disk(full: false), at: at + random.int(500...20_000))
      } else if faults.contains(.network), pick < 6 {
        queue.schedule(random.chance(0.5) ? .dropConnection : .cutHost, at: at)
      } else if faults.contains(.people) {
        queue.schedule(.dropConnection, at: at)
      }
    }
  }

  /// A connection is lost: both ends see it close (the person's program comes back,
  /// mostly within the grace).
  func dropRandomConnection() {
    let open = connections.values.filter(\.open).map(\.id).sorted()
    guard let id = open.randomElement(using: &random), let connection = connections[id] else {
      return
    }
    trace.note("\(now - start) DROP c\(id)")
    counts["dropped connection", default: 0] += 1
    connections[id]?.open = false
    queue.schedule(.serverSeesClose(connection: id), at: now + random.int(1...2_000))
    let index = connection.player
    guard let program = players[index].program, program.connection == id else { return }
    lostConnection(index)
    program.connection = nil
    if random.chance(0.8) {
      // The program notices and reaches the server again, under its reconnect policy.
      program.handle(.closed("the connection was reset"))
    } else {
      // The program went with it (a laptop's lid closed, a terminal closed): the person
      // starts it again after a while, with the seat it kept on disk.
      trace.note("\(now - start) P\(index) program \(program.serial) gone")
      players[index].program = nil
      wake(index, after: random.int(20_000...120_000))
    }
  }

  /// A host is cut off from the server for a while: its frames wait (TCP holds them) and
  /// arrive, in order, once it is back.
  func cutRandomHost() {
    let open = connections.values.filter(\.open).map(\.id).sorted()
    guard let id = open.randomElement(using: &random) else { return }
    let until = now + random.int(1_000...20_000)
    trace.note("\(now - start) CUT c\(id) for \(until - now) ms")
    counts["host cut off", default: 0] += 1
    connections[id]?.cutUntil = until
  }
}

extension ServerMessage {
  /// The message's type, for the trace.
  var traceName: String {
    switch self {
    case .welcome(let room, let seat, let token, _):
      "welcome \(room) seat \(seat.map { "\($0.rawValue)" } ?? "none") \(token.map { String($0.prefix(6)) } ?? "")"
    case .state(let seq, let view): "state \(view.room) v\(seq) \(view.phase)"
    case .lobby: "lobby"
    case .error(let error, _): "error \(error.code)"
    case .challenge(let notice): "challenge \(notice.id) \(notice.status)"
    case .pong: "pong"
    default: "\(self)".prefix(while: { $0 != "(" }).description
    }
  }
}

extension PlayerCommand {
  /// The command, for the trace.
  var traceName: String {
    switch self {
    case .pick: "picks"
    case .rematch: "asks for a rematch"
    case .leave: "leaves"
    case .hangUp: "hangs up"
    case .challenge(let name, let bestOf, _, let fair):
      "challenges \(name)\(bestOf.map { " to a best of \($0)" } ?? "")\(fair ? " (fair)" : "")"
    case .accept(let id): "accepts \(id)"
    case .decline(let id, _): "declines \(id)"
    case .askRecord(let match): "asks for record \(match)"
    case .enterTournament: "enters the tournament"
    case .withdrawFromTournament: "withdraws"
    }
  }
}

extension PlayerEnd {
  /// The kind of end, for the counts.
  var kindName: String {
    switch self {
    case .left: "left"
    case .refused: "refused"
    case .brokeProtocol: "broke the protocol"
    case .cheated: "cheated"
    case .gaveUp: "gave up"
    case .closed: "closed"
    case .couldNotConnect: "could not connect"
    }
  }
}
