import RoshamboGame
import RoshamboProtocol

/// The lobby's tournament on the server: the rules (``Tournament`` in the lobby) decide
/// pairings and results; the hub opens it, starts it when entries close, seats each
/// round's players on their connections (``HubCore/seatTournamentRound()``), and pairs
/// the next round after a pause.
extension HubCore {
  /// At start: the planned tournament is opened if the journal holds none; one under way
  /// goes on (a round that ended before a restart is followed by the next).
  mutating func resumeTournament() {
    let plan = state.tournament.plan
    if state.lobby.tournament == nil, let kind = plan.kind {
      perform(.tournament(.open(kind, settings: plan.settings)))
    }
    guard let tournament = state.lobby.tournament else { return }
    switch tournament.phase {
    case .entry where tournament.entrants.count >= 2: armTournamentTimer(after: plan.startMillis)
    case .running where tournament.roundIsOver: armTournamentTimer(after: plan.pauseMillis)
    case .finished: scheduleNextTournament()
    default: break
    }
  }

  /// When the tournament timer closes entries or pairs the next round: the lobby and the
  /// tournament's rooms show it.
  mutating func setTournamentStartsAt(_ at: Int64?) {
    guard state.tournament.startsAt != at else { return }
    state.tournament.startsAt = at
    state.feed.lobbyChanged()
    scheduleFlush()
  }

  /// Entries close, or the next round is paired, `millis` from now.
  private mutating func armTournamentTimer(after millis: Int64) {
    setTournamentStartsAt(now + millis)
    state.tournament.timerPurpose = .startRound
    schedule(.tournament, at: now + millis)
  }

  mutating func cancelTournamentTimer() {
    state.tournament.timerPurpose = nil
    cancel(.tournament)
  }

  /// The next tournament of the plan's kind opens for entries `nextMillis` after one ends,
  /// on the same journal: its rooms are numbered on (`cup-2-…`), the leaderboard goes on.
  private mutating func scheduleNextTournament() {
    guard state.tournament.plan.kind != nil, let after = state.tournament.plan.nextMillis
    else { return }
    setTournamentStartsAt(nil)
    state.tournament.timerPurpose = .openNext
    schedule(.tournament, at: now + after)
  }

  mutating func tournamentTimerFired() {
    let purpose = state.tournament.timerPurpose
    state.tournament.timerPurpose = nil
    switch purpose {
    case .startRound:
      setTournamentStartsAt(nil)
      startTournamentRound()
    case .openNext:
      // A draining server opens nothing: the next start does.
      guard let kind = state.tournament.plan.kind, !state.drain.isDraining,
        state.lobby.tournament?.phase == .finished
      else { return }
      perform(.tournament(.open(kind, settings: state.tournament.plan.settings)))
    case nil:
      break
    }
  }

  /// The rules changed the tournament (within an action): what must go with that action
  /// now; the rest follows it (``followUp``).
  mutating func tournamentChanged(_ event: LobbyEvent.TournamentEvent) {
    let plan = state.tournament.plan
    if configuration.tellsNews,
      let sentence = HostNews.tournament(
        event, state.lobby.tournament, players: plan.players,
        pauseSeconds: Int((plan.pauseMillis + 999) / 1_000))
    {
      emit(.news(sentence))
    }
    switch event {
    case .roundOver:
      // The next round's time is known at once, so the state that ends the round's last
      // match says it (the timer itself is set after the action).
      setTournamentStartsAt(now + plan.pauseMillis)
    case .withdrew:
      // One entrant cannot start a tournament: its start waits for a second entry again,
      // and the state that withdraws the other says so.
      if let tournament = state.lobby.tournament, tournament.phase == .entry,
        tournament.entrants.count < 2
      {
        cancelTournamentTimer()
        setTournamentStartsAt(nil)
      }
    default:
      break
    }
    queue(.tournament(event))
  }

  /// After the action that changed the tournament: a round's seats are taken (each
  /// player's `welcome` goes out before the room's first state, in the same flush), the
  /// start armed, the next round or tournament scheduled.
  mutating func tournamentFollowUp(_ event: LobbyEvent.TournamentEvent) {
    switch event {
    case .opened:
      state.tournament.lapsed.removeAll()
      log(.info, "tournament open for entries")
    case .entered:
      guard let tournament = state.lobby.tournament, tournament.phase == .entry else { return }
      let plan = state.tournament.plan
      if plan.players > 0, tournament.entrants.count >= plan.players {
        startTournamentRound()
      } else if tournament.entrants.count == 2 {
        armTournamentTimer(after: plan.startMillis)
      }
    case .withdrew:
      break
    case .roundPaired(let round):
      seatTournamentRound()
      log(.info, "tournament round paired", ["round": "\(round)"], event: .tournamentRoundPaired)
    case .roundOver:
      armTournamentTimer(after: state.tournament.plan.pauseMillis)
    case .finished(let champion):
      state.tournament.tokens.removeAll()
      state.tournament.formerTokens.removeAll()
      log(
        .info, "tournament finished", ["champion": LogText.quoted(champion)],
        event: .tournamentFinished)
      scheduleNextTournament()
    }
  }

  /// Pairs and seats the next round: a fresh token for every entrant (what the journal
  /// keeps is its hash; the token itself goes to the player in the `welcome`).
  mutating func startTournamentRound() {
    // A draining server starts no round: the next is paired after the restart.
    guard !state.drain.isDraining, let tournament = state.lobby.tournament,
      tournament.phase != .finished, tournament.roundIsOver
    else { return }
    setTournamentStartsAt(nil)
    var stored: [String: String] = [:]
    state.tournament.formerTokens = Dictionary(
      state.tournament.tokens.map { (ResumeToken.stored($0.value), $0.key) },
      uniquingKeysWith: { first, _ in first })
    state.tournament.tokens.removeAll()
    for name in tournament.entrants {
      let token = state.tokens.next()
      state.tournament.tokens[name] = token
      stored[name] = ResumeToken.stored(token)
    }
    perform(.tournament(.startRound(tokens: stored, at: now)))
  }
}
