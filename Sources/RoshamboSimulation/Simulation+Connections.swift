import RoshamboClient
import RoshamboConnections
import RoshamboHub
import RoshamboProtocol

/// Each connection's own limits, with the real server's ``ConnectionStateMachine`` on
/// the virtual clock (the hello deadline, the idle limit, the silence limit a client's
/// promised pings set, the rate), the real ``ConnectionBacklogs`` for a peer that does
/// not read (a socket buffer of ``socketBuffer`` bytes, then the backlog, then the stall
/// limit); the client's end is its program's (``SimulatedProgram``).
extension Simulation {
  /// What a connection's timers are for.
  enum ConnectionTimer: Equatable {
    /// The server's: `hello` due.
    case hello
    /// The server's idle limit (no frame for it).
    case idle
    /// The server's check of a client that promised pings.
    case silence
    /// The server's stall limit for a peer that does not read.
    case stall
    /// The client's program reads again (its terminal was paused).
    case resumeReading
  }

  /// Bytes a connection's socket holds on their way to a program that does not read;
  /// small, so that a paused follower fills it and the backlog is reached within a party
  /// of sixteen.
  static let socketBuffer = 16 * 1_024
  /// The socket takes frames again once this little is waiting.
  static let socketLowWater = 4 * 1_024

  /// A new connection from person `index`'s program: TLS done at once, the server's
  /// timers started. Returns its id.
  func connect(_ index: Int) -> Int {
    let id = nextConnection
    nextConnection += 1
    var connection = Connection(
      id: id, player: index, generation: hubGeneration,
      server: ConnectionStateMachine(limits: limits, admission: .admitted))
    connection.lastRead = now
    connection.openedAt = now
    _ = connection.server.handshakeCompleted(identity: players[index].identity)
    connections[id] = connection
    schedule(.hello, id, at: now + limits.helloTimeoutSeconds * 1_000)
    schedule(.idle, id, at: now + limits.idleTimeoutSeconds * 1_000)
    return id
  }

  func schedule(_ timer: ConnectionTimer, _ id: Int, at: Int64) {
    queue.schedule(.connectionTimer(timer, connection: id), at: at)
  }

  // MARK: - The server's end

  /// A frame arrives at the server: the connection's state machine judges it.
  func arrived(_ bytes: [UInt8], on id: Int) {
    guard var connection = connections[id], connection.generation == hubGeneration, runner != nil,
      connection.server.state != .closing
    else { return }
    let decoded = ClientMessage.decode(bytes)
    if case .failure(let error) = decoded {
      fail("client frames decode", "connection \(id): \(error.message)")
      return
    }
    connection.lastRead = now
    let action = connection.server.frameArrived(at: now) {
      (decoded, try? decoded.get().id)
    }
    connections[id] = connection
    trace.note("\(now - start) c\(id)→ \(bytes.count) bytes")
    trace.add(bytes)
    serverPerforms(action, on: id)
  }

  /// What the connection's state machine decided, carried out at the server's end of the
  /// virtual connection (on NIO, the server's `ConnectionHandler` carries it out).
  func serverPerforms(_ action: ConnectionStateMachine.Action, on id: Int) {
    guard let connection = connections[id] else { return }
    switch action {
    case .forward(let message):
      if case .hello = message, let silence = connection.server.promisedSilenceDeadline {
        schedule(.silence, id, at: silence)
      }
      connections[id]?.forwarded = true
      handle(.received(message, from: peer(connection)))
      if case .hello = message { noteReturn(connection.player) }
    case .pong(let pingID):
      transmit(ServerMessage.pong(id: pingID).encoded(), isState: false, to: id)
    case .refuse(let error, let re):
      if error.code == .timeout, connection.server.state == .closing || error.fatal {
        checkDroppedForSilence(id, error)
      }
      transmit(ServerMessage.error(error, re: re).encoded(), isState: false, to: id)
      if error.fatal { serverCloses(id) }
    case .refuseAfterAnswers(let error, let re):
      if error.code == .timeout { checkDroppedForSilence(id, error) }
      handle(.refused(peer(connection), error, re: re))
    case .none:
      break
    }
  }

  /// The server closes connection `id` (after what was written to it): the hub is told
  /// `closed`, if it heard from the connection.
  func serverCloses(_ id: Int) {
    guard var connection = connections[id] else { return }
    connection.server.closed()
    let wasOpen = connection.open
    connection.open = false
    connection.serverClosedAt = connection.serverClosedAt ?? now
    connections[id] = connection
    serverDropped(id)
    backlogs.forget(id)
    if wasOpen {
      let at = max(now + random.int(1...15), connection.toClientAt)
      connections[id]?.toClientAt = at
      queue.schedule(.toClient(connection: id, bytes: nil), at: at)
    }
    if connection.forwarded { handle(.closed(peer(connection))) }
  }

  func connectionTimerFired(_ timer: ConnectionTimer, _ id: Int) {
    // The client's timers run on whatever the server did; the server's die with it.
    if timer == .resumeReading { return clientReadsAgain(id) }
    guard let connection = connections[id], connection.generation == hubGeneration else {
      return
    }
    switch timer {
    case .hello:
      guard runner != nil, connection.open else { return }
      if let action = connections[id]?.server.helloTimedOut() { serverPerforms(action, on: id) }
    case .idle:
      guard runner != nil, connection.open, connection.server.state != .closing else { return }
      let quietUntil = connection.lastRead + limits.idleTimeoutSeconds * 1_000
      guard now >= quietUntil else { return schedule(.idle, id, at: quietUntil) }
      if let action = connections[id]?.server.idle() { serverPerforms(action, on: id) }
    case .silence:
      guard runner != nil, connection.open else { return }
      guard let action = connections[id]?.server.silenceChecked(at: now) else { return }
      if action == .none {
        if let next = connections[id]?.server.promisedSilenceDeadline {
          schedule(.silence, id, at: next)
        }
      } else {
        serverPerforms(action, on: id)
      }
    case .stall:
      guard runner != nil, connection.open else { return }
      if connections[id]?.server.stallTimedOut() == true {
        counts["closed for not reading", default: 0] += 1
        serverCloses(id)
      }
    case .resumeReading:
      break
    }
  }

  /// A frame (nil: the close) from the server to connection `id`: into the socket when it
  /// can take more, else into the connection's backlog (``ConnectionBacklogs`` decides).
  func transmit(_ payload: [UInt8]?, isState: Bool, to id: Int) {
    guard var connection = connections[id], connection.open else { return }
    guard let payload else {
      connection.open = false
      connection.server.closed()
      connection.serverClosedAt = connection.serverClosedAt ?? now
      connections[id] = connection
      serverDropped(id)
      backlogs.forget(id)
      queueToClient(nil, on: id)
      return
    }
    switch backlogs.deliver(
      payload, bytes: payload.count, to: id, isState: isState, writable: connection.writable)
    {
    case .write:
      queueToClient(payload, on: id)
    case .held:
      break
    case .replaced:
      counts["state skipped for a slow reader", default: 0] += 1
      connections[id]?.statesSkipped += 1
    case .close:
      counts["closed for not reading", default: 0] += 1
      serverCloses(id)
    }
    checkHeld(id)
  }

  /// Into the socket: the frame reaches the program after the last one, or waits in the
  /// socket while the program does not read; a full socket makes the connection
  /// unwritable and starts the stall limit.
  private func queueToClient(_ payload: [UInt8]?, on id: Int) {
    guard var connection = connections[id] else { return }
    let at = max(now + random.int(1...15), connection.toClientAt, connection.cutUntil)
    connection.toClientAt = at
    if let payload {
      connection.inSocket += payload.count
      if connection.writable, connection.inSocket > Self.socketBuffer {
        connection.writable = false
        if connection.server.writabilityChanged(isWritable: false) == .startStallTimer {
          schedule(.stall, id, at: now + limits.stallTimeoutSeconds * 1_000)
        }
      }
    }
    connections[id] = connection
    queue.schedule(.toClient(connection: id, bytes: payload), at: at)
  }

  /// The program took `count` bytes out of the socket: below its low water the
  /// connection is writable again and what waited goes out.
  func socketRead(_ count: Int, on id: Int) {
    guard var connection = connections[id] else { return }
    connection.inSocket -= count
    let wakes = !connection.writable && connection.inSocket <= Self.socketLowWater
    if wakes {
      connection.writable = true
      _ = connection.server.writabilityChanged(isWritable: true)
    }
    connections[id] = connection
    guard wakes, connection.open, connection.generation == hubGeneration else { return }
    for frame in backlogs.drain(id) { queueToClient(frame, on: id) }
  }

  // MARK: - The client's end

  /// The person's terminal was paused: the frames that waited in the socket are read now,
  /// in order.
  private func clientReadsAgain(_ id: Int) {
    guard var connection = connections[id] else { return }
    let waiting = connection.unreadByProgram
    connection.unreadByProgram = []
    connections[id] = connection
    trace.note("\(now - start) P\(connection.player) reads c\(id) again (\(waiting.count) frames)")
    for bytes in waiting { toClient(id, bytes) }
  }

  /// Pauses the reading of person `index`'s connection (a terminal stopped with Ctrl-S,
  /// a program stuck writing to it): pings still go out, nothing comes in.
  func pauseReading(_ index: Int, for millis: Int64) {
    guard let id = players[index].connection, var connection = connections[id],
      connection.readsFrom <= now
    else { return }
    connection.readsFrom = now + millis
    connections[id] = connection
    counts["paused reading", default: 0] += 1
    trace.note("\(now - start) P\(index) stops reading c\(id) for \(millis) ms")
    schedule(.resumeReading, id, at: now + millis)
  }

  // MARK: - Invariants

  /// A connection closed for silence: allowed only when its program could not be heard
  /// (its host cut off, or the program taking the server for lost itself).
  private func checkDroppedForSilence(_ id: Int, _ error: ProtocolError) {
    guard let connection = connections[id] else { return }
    counts["closed for silence", default: 0] += 1
    let heardUntil = connection.lastRead
    let cut = connection.cutUntil > heardUntil
    let programGone = players[connection.player].connection != id
    if !cut, !programGone {
      fail(
        "a running program is never dropped for idleness",
        "P\(connection.player)'s connection \(id) was closed (\(error.message)) "
          + "\(now - heardUntil) ms after its last frame, its program running and its host "
          + "reachable")
    }
  }

  /// The server has the `hello` of someone who lost their connection: when they came
  /// back counts from now.
  func noteReturn(_ index: Int) {
    if players[index].droppedAt != nil, players[index].returnedAt == nil {
      players[index].returnedAt = now
    }
  }

  /// The server closed connection `id`: for the grace, its person is away from now on,
  /// though their program may notice only later (a paused terminal reads the close last).
  func serverDropped(_ id: Int) {
    guard let index = connections[id]?.player, players[index].connection == id else { return }
    players[index].droppedAt = now
    players[index].returnedAt = nil
  }

  /// The hub gave up on someone: a seat held for them (`room`, `seat`) or, with nil, their
  /// tournament entry. Wrong when they were back within the grace of losing their
  /// connection and are not playing elsewhere: a seat is theirs again by its token, or by
  /// who they are when the token never reached them, and so is an entry.
  func checkGaveUp(on name: String, room: String?) {
    guard let index = players.firstIndex(where: { $0.name == name }) else { return }
    let player = players[index]
    guard let dropped = player.droppedAt, let back = player.returnedAt else { return }
    // Back while this seat waited (its grace began `grace` ago: when the server saw the
    // drop, restarted, or paired a round without them), with 2 s of margin for a close the
    // server saw late.
    guard back - dropped < grace - 2_000, back >= now - grace - 2_000 else { return }
    // A seat in a match already over is nothing to come back to (the journal has the
    // room as it was before this grace ended).
    if let room, journal.lobby.rooms[room]?.phase == .over { return }
    if let elsewhere = player.program?.state.match.view,
      elsewhere.room != room, elsewhere.phase == .choosing
    {
      return
    }
    // Seated in another running match on the server, though their program has not read
    // that far (a paused terminal that accepted a challenge just before it paused).
    if let hub,
      hub.state.lobby.rooms.contains(where: { other, held in
        other != room && held.phase == .choosing
          && held.seats.values.contains { $0.name == name && $0.connected }
      })
    {
      return
    }
    if let room {
      fail(
        "back within the grace, the seat is theirs",
        "\(name) was back \(back - dropped) ms after losing their connection, yet their seat in "
          + "\(room) was given up (grace \(grace) ms)")
    } else if player.enteredWhenDropped {
      fail(
        "back within the grace, the tournament entry is theirs",
        "\(name) was back \(back - dropped) ms after losing their connection, yet their entry "
          + "was withdrawn (grace \(grace) ms)")
    }
  }

  /// What the server holds for one connection stays bounded: at most the backlog's
  /// limit of frames and one state, each no longer than a frame may be, and the socket.
  private func checkHeld(_ id: Int) {
    let frames = backlogs.heldFrames(for: id)
    let held = backlogs.heldBytes(for: id)
    let bound = (ConnectionBacklog.limit + 1) * WireProtocol.maxFrameLength
    if frames > ConnectionBacklog.limit + 1 || held > bound {
      fail(
        "memory per connection stays bounded while followers do not read",
        "connection \(id) holds \(frames) frames, \(held) bytes, waiting (at most "
          + "\(ConnectionBacklog.limit + 1) frames, \(bound) bytes)")
    }
    if let connection = connections[id],
      connection.inSocket > Self.socketBuffer + WireProtocol.maxFrameLength
    {
      fail(
        "memory per connection stays bounded while followers do not read",
        "connection \(id) has \(connection.inSocket) bytes in its socket")
    }
  }
}
