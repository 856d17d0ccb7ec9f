extension LobbyState {
  /// Why the tournament refuses `action`, or nil.
  func refusal(for action: TournamentAction) -> Refusal? {
    switch action {
    case .open(_, let settings):
      if let tournament, tournament.phase != .finished {
        return .tournamentClosed("A tournament is already under way.")
      }
      return settings.isValid ? nil : .tournamentClosed("Those settings make no match.")
    case .enter(let name):
      guard let tournament, tournament.phase == .entry else {
        return .tournamentClosed("No tournament is taking entries now.")
      }
      if tournament.entrants.contains(name) {
        return .nameTaken("Someone named \(name) has entered already; enter under another name.")
      }
      if tournament.entrants.count >= Tournament.maxEntrants {
        return .tournamentClosed("The tournament is full (\(Tournament.maxEntrants) players).")
      }
      return nil
    case .withdraw(let name):
      guard let tournament, tournament.phase != .finished, tournament.entrants.contains(name),
        !tournament.withdrawn.contains(name)
      else {
        return .tournamentClosed("\(name) has no entry to withdraw (or the tournament is over).")
      }
      return nil
    case .startRound(let tokens, _):
      guard case .failure(let refusal) = roundToStart(tokens: tokens) else { return nil }
      return refusal
    }
  }

  /// The pairings `.startRound` with `tokens` seats, or why no round may start now.
  private func roundToStart(tokens: [String: String]) -> Result<[Tournament.Pairing], Refusal> {
    guard let tournament, tournament.phase != .finished, tournament.roundIsOver else {
      return .failure(.stale("no tournament round to start"))
    }
    guard tournament.entrants.count >= 2 else {
      return .failure(.tournamentClosed("A tournament needs at least two players."))
    }
    let next = tournament.nextRound()
    guard !next.isEmpty else { return .failure(.stale("every round is played")) }
    for pairing in next where !pairing.isBye {
      guard let room = pairing.room, rooms[room] == nil,
        pairing.players.allSatisfy({ tokens[$0] != nil })
      else { return .failure(.stale("a round's rooms or tokens do not fit")) }
    }
    return .success(next)
  }

  /// Applies tournament `action` if the rules allow it and returns what it did, or
  /// returns why not and changes nothing. A round is paired once: the pairings the check
  /// made are the ones seated.
  mutating func reduce(_ action: TournamentAction) -> Result<[LobbyEvent], Refusal> {
    if case .startRound(let tokens, let at) = action {
      return roundToStart(tokens: tokens).map { startRound($0, tokens: tokens, at: at) }
    }
    if let refusal = refusal(for: action) { return .failure(refusal) }
    return .success(applyAccepted(action))
  }

  /// Changes the lobby for a tournament action the rules accept.
  mutating func applyAccepted(_ action: TournamentAction) -> [LobbyEvent] {
    switch action {
    case .open(let kind, let settings):
      tournament = Tournament(
        kind: kind, settings: settings, number: (tournament?.number ?? 0) + 1)
      return [.tournament(.opened)]
    case .enter(let name):
      tournament!.entrants.append(name)
      return [.tournament(.entered(name))]
    case .withdraw(let name) where tournament!.phase == .entry:
      tournament!.entrants.removeAll { $0 == name }
      return [.tournament(.withdrew(name))]
    case .withdraw(let name):
      // Running: the entry stays in the pairings (so the rounds are the ones paired
      // without it), each match of theirs paired from now on a walkover.
      tournament!.withdrawn.append(name)
      return [.tournament(.withdrew(name))]
    case .startRound(let tokens, let at):
      return startRound(tournament!.nextRound(), tokens: tokens, at: at)
    }
  }

  /// Starts the round of `pairings` (the tournament's next round): each match's room
  /// opened with its players seated under their `tokens`.
  private mutating func startRound(
    _ pairings: [Tournament.Pairing], tokens: [String: String], at: Int64
  ) -> [LobbyEvent] {
    var events: [LobbyEvent] = []
    tournament!.phase = .running
    tournament!.rounds.append(pairings)
    let round = tournament!.rounds.count
    for pairing in pairings where !pairing.isBye {
      let name = pairing.room!
      rooms[name] = RoomState(name: name, settings: tournament!.settings)
      events.append(.opened(name))
      for player in pairing.players {
        for event in rooms[name]!.applyAccepted(
          .playerJoined(name: player, token: tokens[player]!, at: at))
        {
          events.append(.room(name, event))
        }
      }
    }
    events.append(.tournament(.roundPaired(round)))
    // A round of byes alone (no match) is over at once; a round whose last match is a
    // walkover ends with it.
    if tournament!.roundIsOver { events.append(contentsOf: endOfRound(after: nil)) }
    for pairing in pairings where !pairing.isBye {
      walkOver(pairing, at: at, &events)
    }
    return events
  }

  /// The match of `pairing`, just paired at `at`, is given up by each of its players who
  /// withdrew (the first to go forfeits it to the other), as if they had left the seat:
  /// at once, with no grace.
  private mutating func walkOver(
    _ pairing: Tournament.Pairing, at: Int64, _ events: inout [LobbyEvent]
  ) {
    guard let name = pairing.room else { return }
    for (index, player) in pairing.players.enumerated()
    where tournament!.withdrawn.contains(player) {
      let seat = Seat.allCases[index]
      guard let room = rooms[name], let held = room.seats[seat], !held.hasLeft,
        room.phase == .choosing
      else { continue }
      for event in rooms[name]!.walkOver(seat, at: at) {
        events.append(.room(name, event))
        if case .matchEnded(let match) = event { recordTournamentMatch(match, &events) }
      }
    }
  }

  /// A match ended: if it is one of the tournament's current round, its result counts
  /// (only the first result: a room's match is played once).
  mutating func recordTournamentMatch(_ match: FinishedMatch, _ events: inout [LobbyEvent]) {
    guard Tournament.isTournamentRoom(match.room), var tournament,
      tournament.phase == .running, var round = tournament.rounds.last,
      let index = round.firstIndex(where: { $0.room == match.room && $0.winner == nil })
    else { return }
    round[index].winner = match.winner
    round[index].scores = match.scores
    round[index].graceRanOut =
      rooms[match.room]?.seats.values.contains {
        $0.name != match.winner && $0.leftBy == .timedOut
      } == true
    tournament.rounds[tournament.rounds.count - 1] = round
    self.tournament = tournament
    if tournament.roundIsOver { events.append(contentsOf: endOfRound(after: match.room)) }
  }

  /// The round just completed (its last match in room `last`, or a round of byes alone):
  /// the tournament finishes (its champion the first of the standings), or another round
  /// is due. Either way every other room of the tournament still open moves on with it,
  /// so that those in them hear of it, not only the last match's players.
  private mutating func endOfRound(after last: String?) -> [LobbyEvent] {
    let round = tournament!.rounds.count
    var events: [LobbyEvent]
    if round >= tournament!.roundCount {
      let champion = tournament!.standings.first!.name
      tournament!.phase = .finished
      tournament!.champion = champion
      events = [.tournament(.finished(champion: champion))]
    } else {
      events = [.tournament(.roundOver(round))]
    }
    for room in tournament!.rounds.joined().compactMap(\.room) where room != last {
      guard rooms[room] != nil else { continue }
      events += rooms[room]!.tournamentMovedOn().map { .room(room, $0) }
    }
    return events
  }
}
