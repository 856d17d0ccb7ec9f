import RoshamboGame
import RoshamboProtocol

/// Save, then send: what is pending is sealed into a batch, committed (one batch in
/// flight at a time; meanwhile the next gathers, so a slow disk makes batches bigger,
/// not the game slower), and what it sends is delivered once the commit succeeded. The
/// ``CommitStateMachine`` decides; a failed commit sends nothing of its own, puts the
/// sessions back as they were when its batch began, reads the lobby back from the
/// journal, and pauses play until a probe write succeeds.
extension HubCore {
  /// Sends what is pending, committing it first if it holds accepted actions.
  mutating func flush() {
    state.flushScheduled = false
    // A held reveal goes out with this flush.
    cancel(.heldReveal)
    if state.drain.isDraining { matchesChangedWhileDraining() }
    let hasActions = configuration.hasJournal && !state.batch.isEmpty
    switch state.commits.flushRequested(hasActions: hasActions) {
    case .wait:
      return
    case .deliverNow(let wakeWaiters):
      let deliveries = prepareDeliveries()
      state.batch.clear()
      _ = state.sessions.takeChanges()
      if !deliveries.isEmpty { emit(.deliver(deliveries)) }
      if wakeWaiters { emit(.idle) }
    case .commitInline:
      commit(seal(), inline: true)
    }
  }

  /// Seals the batch and what it sends into a flight, now in flight.
  private mutating func seal() -> HubState.Flight {
    let deliveries = prepareDeliveries()
    let sealed = state.batch.seal()
    state.journaledThrough += Int64(sealed.actions.count)
    let snapshot =
      state.snapshots.due(after: sealed.actions.count, rooms: state.lobby.rooms.count)
      ? state.lobby : nil
    let flight = HubState.Flight(
      batch: sealed, deliveries: deliveries, snapshot: snapshot,
      through: state.journaledThrough, sessionsChanged: state.sessions.takeChanges())
    state.commits.sealed(flight)
    return flight
  }

  /// Asks for `flight`'s commit: on the driver's thread when `inline` and the journal is
  /// quick now (cheaper than two hops between threads), else on the journal's thread. A
  /// snapshot will include this batch: the journal sends later rows to its other table.
  private mutating func commit(_ flight: HubState.Flight, inline: Bool) {
    emit(
      .commit(
        JournalCommit(
          actions: flight.batch.actions, matches: flight.batch.matches,
          snapshotAfter: flight.snapshot != nil, inline: inline)))
  }

  /// The flight in flight is durable (or not): send what it sends, and commit the next.
  /// After a commit on the journal's thread the next batch is handed to it first, so the
  /// disk works on it while the driver sends.
  mutating func committed(_ result: Result<Void, JournalFailure>, onJournalThread: Bool) {
    if case .failure(let error) = result {
      if let flight = state.commits.commitFailed() { journalFailed(error, flight) }
      return
    }
    let flight: HubState.Flight
    switch state.commits.commitSucceeded(
      onJournalThread: onJournalThread, hasActions: !state.batch.isEmpty)
    {
    case .none:
      return
    case .deliver(let done):
      flight = done
    case .pipeline(let done):
      flight = done
      // (Only a batch with actions: what needs no commit goes out after this one's.)
      commit(seal(), inline: false)
    }
    // What waits for this commit goes out first; the rest hands work to other threads.
    if !flight.deliveries.isEmpty { emit(.deliver(flight.deliveries)) }
    if let lobby = flight.snapshot { emit(.writeSnapshot(lobby, through: flight.through)) }
    if !flight.batch.matches.isEmpty {
      state.leaders.stale = true
      readLeaders()
    }
    flush()
  }

  /// The commit failed: nothing of it is sent but errors and closes, its senders and
  /// those of everything gathered since are answered `unavailable`, the sessions go back
  /// to what they were when the failed batch began, and the lobby to exactly what the
  /// journal holds (read back; nothing is sent meanwhile); client actions are then
  /// refused until a probe write succeeds.
  private mutating func journalFailed(_ error: JournalFailure, _ flight: HubState.Flight) {
    log(
      .critical,
      "journal write failed: nothing of it was sent and play is paused; it resumes by itself "
        + "once the journal can be written (check free space on the data directory's disk)",
      ["error": error.description], event: .journalWriteFailed)
    let surviving = flight.deliveries.filter(\.survivesFailedCommit)
    if !surviving.isEmpty { emit(.deliver(surviving)) }
    if flight.deliveries.contains(where: \.spread) { state.feed.viewLost() }
    // Every state and welcome in the outbox came from what was not saved.
    state.outbox.keepOnlyErrorsAndCloses()
    let unsaved = state.batch.seal()
    var answered: Set<Int> = []
    for origin in flight.batch.origins + unsaved.origins {
      answered.insert(origin.link.id)
      state.outbox.append(.message(origin.link, .error(.unavailable(), re: origin.re)))
    }
    // The only flight in flight: undoing it and what came after it gives the sessions
    // as its batch began.
    restoreSessions(
      state.sessions.reverted(by: [flight.sessionsChanged]), answered: &answered)
    emit(.reload(defaults: state.lobby.defaults))
  }

  /// The sessions as they were when the failed batch began, but for connections gone
  /// since (not brought back) and followers who arrived since (kept): whoever that seats
  /// no longer is told `unavailable`, and a follower those actions seated follows again.
  private mutating func restoreSessions(_ before: Sessions, answered: inout Set<Int>) {
    let now = state.sessions
    var restored = before
    for id in Array(restored.members.keys) where now[id] == nil && now.followers[id] == nil {
      restored.remove(id)
    }
    for id in Array(restored.followers.keys) where now[id] == nil && now.followers[id] == nil {
      restored.unfollow(id)
    }
    for (id, follower) in now.followers where restored.followers[id] == nil {
      restored.follow(follower)
    }
    for (id, member) in now.members.sorted(by: { $0.key < $1.key }) where restored[id] == nil {
      if answered.insert(id).inserted {
        state.outbox.append(.message(member.link, .error(.unavailable(), re: nil)))
      }
    }
    for (id, follower) in restored.followers.sorted(by: { $0.key < $1.key })
    where now.followers[id] == nil {
      state.feed.followed(by: follower.link, takesPatches: follower.takesPatches)
      state.feed.lobbyChanged()
      if answered.insert(id).inserted {
        state.outbox.append(.message(follower.link, .error(.unavailable(), re: nil)))
      }
    }
    state.sessions = restored
    _ = state.sessions.takeChanges()
  }

  /// The lobby read back after a failed commit (or not: the lobby in memory stays, and
  /// so does the pause); anyone it no longer seats is out of their room.
  mutating func reloaded(_ result: Result<(LobbyState, Int64), JournalFailure>) {
    switch result {
    case .success(let (lobby, last)):
      state.lobby = lobby
      state.seatTokens = SeatTokens(lobby)
      state.journaledThrough = last
    case .failure(let error):
      log(
        .critical, "cannot reload the journal after a failed write",
        ["error": error.description], event: .journalReloadFailed)
    }
    dropMembersTheLobbyDoesNotHold()
    if state.commits.reloaded() == .scheduleProbe {
      schedule(.probe, at: now + max(1, configuration.retryMillis))
    }
    flush()
  }

  /// Anyone whose seat the saved lobby does not give them is no longer in a room.
  private mutating func dropMembersTheLobbyDoesNotHold() {
    for (id, member) in state.sessions.members.sorted(by: { $0.key < $1.key }) {
      let room = state.lobby.rooms[member.room]
      let holds =
        if let seat = member.seat {
          room?.seats[seat].map { !$0.hasLeft && $0.token == member.token } ?? false
        } else {
          room != nil
        }
      if !holds {
        state.sessions.remove(id)
        state.outbox.append(.message(member.link, .error(.unavailable(), re: nil)))
      }
    }
    _ = state.sessions.takeChanges()
  }

  /// Tries one small write; when it succeeds play resumes.
  mutating func probeJournal() {
    guard configuration.hasJournal, state.commits.probeDue() else { return }
    emit(.probe(at: now))
  }

  /// The probe write finished: the lobby is reconciled with the connections (seats whose
  /// connection went meanwhile start their grace) and the timers are scheduled again.
  mutating func probed(succeeded: Bool) {
    switch state.commits.probeFinished(succeeded: succeeded) {
    case .none:
      break
    case .scheduleProbe:
      schedule(.probe, at: now + max(1, configuration.retryMillis))
    case .resume:
      log(.notice, "journal writes succeed again; play resumes")
      reconcile()
      // A tournament round whose start was not saved is started again.
      resumeTournament()
      yieldToFleet(state.fleetNames.values.sorted { $0.folded < $1.folded })
    }
  }
}
