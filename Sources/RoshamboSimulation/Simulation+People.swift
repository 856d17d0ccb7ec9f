import RoshamboClient
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// People and the network between them and the server: connecting, frames each way in
/// order per connection, decisions, and the faults the network and people bring.
extension Simulation {
  func wakeUp(_ index: Int) {
    var player = players[index]
    if player.connection == nil {
      guard now >= player.awayUntil else { return }
      guard runner != nil else {
        // The server is down: the program tries again shortly.
        wake(index, after: random.int(1_000...4_000))
        return
      }
      // Someone away for a while comes back (a seat held, or the lobby, or quick match).
      let hello = player.hello(fair: random.chance(0.3))
      players[index] = player
      let id = connect(index, hello: hello)
      players[index].connection = id
      trace.note("\(now - start) P\(index) connects c\(id)")
      send([hello], on: id)
      wake(index, after: random.int(500...3_000))
      return
    }
    if let id = player.connection, let connection = connections[id], connection.readsFrom > now {
      // The terminal is paused: the person waits for it.
      wake(index, after: connection.readsFrom - now + random.int(100...2_000))
      return
    }
    let reaction = player.decide(random: &random, fair: true)
    players[index] = player
    react(reaction, player: index)
    if case .following = players[index].mode, random.chance(0.01) {
      pauseReading(index, for: random.int(5_000...90_000))
    }
    if players[index].connection != nil {
      // Mostly at the screen; now and then away from it for minutes, the program running.
      wake(
        index, after: random.chance(0.05) ? random.int(20_000...600_000) : random.int(300...4_000))
    }
  }

  func toClient(_ id: Int, _ bytes: [UInt8]?) {
    guard var connection = connections[id] else { return }
    let index = connection.player
    guard players[index].connection == id else { return }
    if connection.readsFrom > now {
      connections[id]?.unreadByProgram.append(bytes)
      return
    }
    if let bytes {
      socketRead(bytes.count, on: id)
      connection = connections[id] ?? connection
      var pong: Int?? = nil
      if bytes.count < 64, case .pong(let pingID)? = try? ServerMessage.decode(bytes) {
        pong = .some(pingID)
      }
      connections[id]?.keepalive.heard(at: now, pong: pong)
    }
    guard let bytes else {
      // The server closed it (or died): the program notices and comes back.
      trace.note("\(now - start) P\(index) sees c\(id) close")
      lostConnection(index, serverClosedAt: connections[id]?.serverClosedAt)
      connections[id]?.open = false
      wake(index, after: random.int(500...5_000))
      return
    }
    let message: ServerMessage
    do {
      message = try ServerMessage.decode(bytes)
    } catch {
      fail("server frames decode", "connection \(id): \(error)")
      return
    }
    trace.note("\(now - start) P\(index) ←c\(id) \(message.traceName)")
    checkReceived(message, by: index, generation: connection.generation)
    var player = players[index]
    let wasFollowing = if case .following = player.mode { true } else { false }
    let reaction = player.receive(message, random: &random)
    players[index] = player
    if wasFollowing, case .playing = player.mode {
      // Seated from the lobby: the match's session pings every 3 s from now on.
      connections[id]?.keepalive = Keepalive(
        intervalMillis: 3_000, silenceLimitMillis: 6_000, now: now)
    }
    if reaction.resynced { checkResync(on: id, by: index) }
    react(reaction, player: index)
  }

  func react(_ reaction: SimulatedPlayer.Reaction, player index: Int) {
    if let violation = reaction.violation {
      fail("the real client finds nothing wrong", "P\(index): \(violation)")
      return
    }
    guard let id = players[index].connection else { return }
    send(reaction.send, on: id)
    if reaction.refusedName {
      // The program said the name is another's and ended; the person tries again later.
      counts["refused their name", default: 0] += 1
      players[index].awayUntil = now + random.int(60_000...300_000)
      wake(index, after: players[index].awayUntil - now)
    }
    if reaction.close {
      let soon = players[index].watchTarget != nil || reaction.backToLobby
      close(
        id, player: index,
        comeBackAfter: soon ? random.int(300...3_000) : random.int(5_000...300_000))
      if reaction.backToLobby { players[index].mode = .away }
    }
  }

  /// Person `index`'s program lost its connection (noting whether they were entered in a
  /// tournament still taking entries).
  func lostConnection(_ index: Int, serverClosedAt: Int64? = nil) {
    let tournament = hub?.state.lobby.tournament
    players[index].lostConnection(at: now, seatWaitingSince: serverClosedAt ?? now)
    players[index].enteredWhenDropped =
      tournament?.phase == .entry && tournament?.entrants.contains(players[index].name) == true
  }

  /// Frames from a person to the server, each after the last one on the connection.
  func send(_ messages: [ClientMessage], on id: Int, isPing: Bool = false) {
    for message in messages {
      guard var connection = connections[id], connection.open else { return }
      if !isPing { connection.keepalive.sent(at: now) }
      let at = max(now + random.int(1...15), connection.toServerAt, connection.cutUntil)
      connection.toServerAt = at
      connections[id] = connection
      queue.schedule(.toServer(connection: id, bytes: message.encoded()), at: at)
    }
  }

  /// The person's side closes the connection; they come back after a while.
  func close(_ id: Int, player index: Int, comeBackAfter delay: Int64) {
    guard var connection = connections[id] else { return }
    connection.open = false
    connections[id] = connection
    let at = max(now + random.int(1...15), connection.toServerAt, connection.cutUntil)
    queue.schedule(.serverSeesClose(connection: id), at: at)
    lostConnection(index)
    wake(index, after: delay)
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
    if players[index].connection == id {
      lostConnection(index)
      let back = random.chance(0.8) ? random.int(500...20_000) : random.int(20_000...120_000)
      wake(index, after: back)
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
