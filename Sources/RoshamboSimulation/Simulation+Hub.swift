import RoshamboConnections
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// The simulation as the hub's world (``HubWorld``): the real ``HubRunner`` hands the
/// hub its inputs and the simulation carries out each output, in virtual time.
extension Simulation: HubWorld {
  /// Hands `input` to the hub through the runner; an input raised meanwhile (a commit
  /// answered inline) waits its turn.
  func handle(_ input: HubInput) {
    runner?.handle(input, in: self)
  }

  /// A failed run stops where it failed.
  package var halted: Bool { failure != nil }

  package func deliver(_ deliveries: [Delivery]) {
    for delivery in deliveries { deliver(delivery) }
  }

  package func schedule(_ timer: HubTimer, at: Int64) {
    noteGraceScheduled(timer, at: at)
    timerSerial += 1
    let generation = timerSerial
    timerGenerations[timer] = generation
    queue.schedule(.timer(timer, generation: generation, hub: hubGeneration), at: at)
  }

  package func cancel(_ timer: HubTimer) {
    timerGenerations[timer] = nil
  }

  package func commit(_ commit: JournalCommit) {
    trace.note("\(now - start) commit \(commit.actions.count)")
    if commit.inline, random.chance(0.7) {
      // The journal was quick: committed on the driver's thread, answered at once.
      answerCommit(commit, onJournalThread: false)
    } else {
      commitInFlight = commit
      queue.schedule(.committed(hub: hubGeneration), at: now + random.int(1...40))
    }
  }

  package func offerNames(_ offers: [NameOffer]) {
    fleetNamesOffered(offers)
  }

  package func writeSnapshot(_ lobby: LobbyState, through: Int64) {
    queue.schedule(.answer(.snapshotWritten(.success(())), hub: hubGeneration), at: now + 5)
  }

  package func readStandings(leaders: Int, recent: Int) {
    let (board, matches) = journal.standings(leaders: leaders, recent: recent)
    checkRatings(board)
    queue.schedule(
      .answer(.standingsRead(.success((board, matches))), hub: hubGeneration), at: now + 3)
  }

  package func readRecord(reading: Int, match: Int64) {
    queue.schedule(
      .answer(.recordRead(reading: reading, .success(nil)), hub: hubGeneration), at: now + 3)
  }

  package func reload(defaults: RoomState.Settings) {
    queue.schedule(
      .answer(
        .reloaded(.success((journal.lobby, Int64(journal.rows.count)))), hub: hubGeneration),
      at: now + random.int(1...50))
  }

  package func probe(at: Int64) {
    let succeeded = !journal.diskFull
    queue.schedule(.answer(.probed(succeeded: succeeded), hub: hubGeneration), at: now + 5)
  }

  package func log(_ line: HubLog) {
    checkLog(line)
    trace.note(
      "\(now - start) log \(line.message) "
        + line.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
          separator: " "))
    guard let event = line.event else { return }
    switch event {
    case .graceExpired(let room, let seat):
      if let name = hub?.state.lobby.rooms[room]?.seats[seat]?.name {
        checkGaveUp(on: name, room: room)
      }
    case .entryWithdrawn(let name):
      checkGaveUp(on: name, room: nil)
    case .challengeAccepted(let id, let room):
      checkChallengeRoom(id: id, room: room)
    case .frameOverLimit:
      fail("every frame fits the protocol's limit", "\(line.message): \(line.metadata)")
    default:
      break
    }
    if let counted = Self.counted(event) { counts[counted, default: 0] += 1 }
  }

  /// The name an event is counted under in ``counts`` (nil: not counted).
  static func counted(_ event: HubLog.Event) -> String? {
    switch event {
    case .roundResolved: "round"
    case .matchOver: "match over"
    case .challengeAccepted: "challenge accepted"
    case .tournamentRoundPaired: "tournament round paired"
    case .tournamentFinished: "tournament finished"
    case .resumed: "resumed"
    case .graceExpired: "grace expired"
    case .movedByQuickMatch: "moved by quick match"
    case .spectating: "spectating"
    case .followingTheLobby: "following the lobby"
    case .refused: "refused"
    case .seatTakenBackByName: "seat taken back by name"
    case .journalWriteFailed, .journalReloadFailed: "journal failed"
    case .entryWithdrawn, .frameOverLimit: nil
    }
  }

  package func count(_ counted: HubCount) {}
  package func news(_ sentence: String) {}
  package func drained() {}
  package func idle() {}

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
    guard runner != nil else { return }
    trace.note("\(now - start) CRASH")
    counts["crash", default: 0] += 1
    runner = nil
    hubGeneration += 1
    commitInFlight = nil
    timerGenerations.removeAll()
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
    runner = HubRunner(
      HubCore(lobby: lobby, journaledThrough: Int64(journal.rows.count), configuration: settings))
    handle(.start(releasing: []))
    if hubConfiguration.sharesNames { fleetRestarted() }
  }
}
