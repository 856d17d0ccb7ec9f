import RoshamboGame
import RoshamboHub
import RoshamboProtocol
import RoshamboServer

/// The simulation as the hub's driver: inputs in, each output carried out as the real
/// driver does, in virtual time.
extension Simulation {
  /// Hands `input` to the hub, then carries out what it returns; an input raised
  /// meanwhile (a commit answered inline) waits its turn, as in the real driver.
  func handle(_ input: HubInput) {
    pendingInputs.append(input)
    guard !handling else { return }
    handling = true
    defer { handling = false }
    var next = 0
    while next < pendingInputs.count, hub != nil, failure == nil {
      let input = pendingInputs[next]
      next += 1
      let outputs = hub!.handle(input, now: now)
      for output in outputs { perform(output) }
    }
    pendingInputs.removeAll(keepingCapacity: true)
  }

  private func perform(_ output: HubOutput) {
    switch output {
    case .deliver(let deliveries):
      for delivery in deliveries { deliver(delivery) }
    case .schedule(let timer, let at):
      timerSerial += 1
      let generation = timerSerial
      timerGenerations[timer] = generation
      queue.schedule(.timer(timer, generation: generation, hub: hubGeneration), at: at)
    case .cancel(let timer):
      timerGenerations[timer] = nil
    case .commit(let commit):
      trace.note("\(now - start) commit \(commit.actions.count)")
      if commit.inline, random.chance(0.7) {
        // The journal was quick: committed on the driver's thread, answered at once.
        answerCommit(commit, onJournalThread: false)
      } else {
        commitInFlight = commit
        queue.schedule(.committed(hub: hubGeneration), at: now + random.int(1...40))
      }
    case .offerNames(let offers):
      fleetNamesOffered(offers)
    case .writeSnapshot:
      queue.schedule(.answer(.snapshotWritten(.success(())), hub: hubGeneration), at: now + 5)
    case .readStandings(let leaders, let recent):
      let (board, matches) = journal.standings(leaders: leaders, recent: recent)
      checkRatings(board)
      queue.schedule(
        .answer(.standingsRead(.success((board, matches))), hub: hubGeneration), at: now + 3)
    case .readRecord(let reading, _):
      queue.schedule(
        .answer(.recordRead(reading: reading, .success(nil)), hub: hubGeneration), at: now + 3)
    case .reload:
      queue.schedule(
        .answer(
          .reloaded(.success((journal.lobby, Int64(journal.rows.count)))), hub: hubGeneration),
        at: now + random.int(1...50))
    case .probe:
      let succeeded = !journal.diskFull
      queue.schedule(.answer(.probed(succeeded: succeeded), hub: hubGeneration), at: now + 5)
    case .log(let line):
      checkLog(line)
      trace.note(
        "\(now - start) log \(line.message) "
          + line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
            separator: " "))
      if line.message == "grace expired", let room = line.metadata["room"],
        let seat = line.metadata["seat"].flatMap(Int.init).flatMap(Seat.init(rawValue:)),
        let name = hub?.state.lobby.rooms[room]?.seats[seat]?.name
      {
        checkGaveUp(on: name, room: room)
      }
      if line.message.hasPrefix("an entrant did not come back"),
        let quoted = line.metadata["name"]
      {
        checkGaveUp(on: String(quoted.dropFirst().dropLast()), room: nil)
      }
      switch line.message {
      case "round", "match over", "challenge accepted", "tournament round paired",
        "tournament finished", "resumed", "grace expired", "moved by quick match", "spectating",
        "following the lobby", "refused", "seat taken back by name":
        counts[line.message, default: 0] += 1
      default:
        if line.level == .critical { counts["journal failed", default: 0] += 1 }
      }
    case .count, .news, .drained, .idle:
      break
    }
  }

  /// The commit answered: made durable (or refused, the disk full) only now, inline or
  /// when the journal's thread is done with it, as the real journal's future succeeds.
  func answerCommit(_ commit: JournalCommit, onJournalThread: Bool) {
    let outcome = journal.commit(commit)
    if case .success = outcome { watch.committed(commit, simulation: self) }
    trace.note("\(now - start) committed \(outcome)")
    handle(.committed(outcome, onJournalThread: onJournalThread))
  }

  /// Frames on their way to each connection, through its socket or its backlog.
  private func deliver(_ delivery: Delivery) {
    if let payload = delivery.payload { checkDelivery(payload, to: delivery.to) }
    for id in delivery.to {
      transmit(delivery.payload, isState: delivery.kind == .state || delivery.spread, to: id)
    }
  }

  /// The server is killed: what was not durable is lost, every connection closes, and
  /// it starts again a few seconds later.
  func crash() {
    guard hub != nil else { return }
    trace.note("\(now - start) CRASH")
    counts["crash", default: 0] += 1
    hub = nil
    hubGeneration += 1
    commitInFlight = nil
    timerGenerations.removeAll()
    pendingInputs.removeAll()
    backlogs = ConnectionBacklogs()
    // In the order of their ids: a dictionary's order is not a seed's.
    for (id, connection) in connections.sorted(by: { $0.key < $1.key }) where connection.open {
      connections[id]?.open = false
      connections[id]?.serverClosedAt = now
      serverDropped(id)
      queue.schedule(.toClient(connection: id, bytes: nil), at: now + random.int(1...50))
    }
    queue.schedule(.restart, at: now + random.int(1_000...8_000))
  }

  /// Started again: the lobby rebuilt from the journal's rows by the real replay.
  func restart() {
    let lobby: LobbyState
    do {
      lobby = try journal.rebuilt()
    } catch {
      fail("the journal replays", "the restart could not replay the journal: \(error)")
      return
    }
    if lobby != journal.lobby {
      fail("the journal replays", "the lobby rebuilt after a crash differs from what was committed")
      return
    }
    trace.note("\(now - start) RESTART (\(journal.rows.count) rows)")
    lastRestart = now
    // A restarted server draws its tokens afresh: the same sequence again would hand a
    // newcomer the token of a seat taken before the crash.
    var settings = hubConfiguration
    // (A seed of its own, mixed: SplitMix64 from `seed + k × its increment` is the same
    // sequence k steps on, so the tokens of one run would come again in the next.)
    var mixer = SplitMix64(
      seed: configuration.seed &+ UInt64(hubGeneration) &* 0xD1B5_4A32_D192_ED03)
    settings.tokenSeed = mixer.next()
    hub = HubCore(
      lobby: lobby, journaledThrough: Int64(journal.rows.count), configuration: settings)
    handle(.start(releasing: []))
    fleetRestarted()
  }
}
