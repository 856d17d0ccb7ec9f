import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// What the invariants remember between steps.
struct InvariantWatch {
  /// Every finished match committed, by what makes it one match.
  var matches: Set<String> = []
  /// Each challenge's ends told to each person, by the hub generation that told them (a
  /// restarted hub's board is new).
  var challengeEnds: [String: Int] = [:]
  /// Whether the live lobby is to be compared with the journal once the hub settles.
  var compareDue = false
  /// The latest leaderboards the journal answered the hub with (a view is made from the
  /// newest the hub had, and may travel while a newer one is read).
  var leaderboards: [[LobbyView.Leader]] = []
  /// The best-of each person last asked for in a challenge (nil: the server's).
  var challengeAsked: [Int: Int?] = [:]
  /// Each challenge's terms as its people were told them, by the hub generation and the
  /// challenge's number, until it is accepted.
  var challengeTerms: [String: ChallengeNotice] = [:]
  /// Whoever read that a challenge of theirs was accepted and waits for its seat: the
  /// program and connection that read it, and when.
  var seatAwaited: [Int: (program: Int, connection: Int, since: Int64)] = [:]
  /// Each grace timer the hub scheduled: since when it has been scheduled to end at
  /// `endsAt` (a timer scheduled again for the same end keeps its start).
  var graces: [HubTimer: (since: Int64, endsAt: Int64)] = [:]
  /// The single-elimination tournament last seen: its rooms' prefix (`cup-N`), how many
  /// rounds it had, and whether it had finished.
  var tournamentSeen: (id: String, rounds: Int, finished: Bool)?
  /// Since when the tournament has been running (nil: none is).
  var tournamentRunningSince: Int64?
  /// The lobby view last sent to every follower: its number, fingerprint, and since when
  /// (by the hub generation that sent it).
  var lobbySent: (generation: Int, seq: Int, fingerprint: String?, since: Int64)?

  mutating func committed(
    _ commit: JournalCommit, simulation: Simulation
  ) {
    for match in commit.matches {
      let key = "\(match.room) \(match.finishedAt) \(match.players) \(match.scores)"
      if !matches.insert(key).inserted {
        simulation.fail("no match is counted twice", "match \(key) was committed again")
      }
    }
    compareDue = true
  }
}

/// The invariants, each named in the failure it causes.
extension Simulation {
  /// A frame the hub hands the network: nothing of a round before it resolves, nothing
  /// of a room before it is durable.
  func checkDelivery(_ payload: [UInt8], to ids: [Int]) {
    trace.add(payload)
    guard let message = try? ServerMessage.decode(payload) else {
      fail("server frames decode", "a frame to \(ids) does not decode")
      return
    }
    // A welcome into a seat is into one held under the person's own name: a token made up
    // or replayed, or a look-alike name, seats nobody in another's seat.
    if case .welcome(let room, let seat?, _, _) = message {
      let holder = hub?.state.lobby.rooms[room]?.seats[seat]?.name
      for id in ids {
        guard let person = connections[id]?.player, holder != players[person].name else {
          continue
        }
        fail(
          "nobody is seated in another's seat",
          "P\(person) was welcomed to \(room) seat \(seat.rawValue), held by "
            + "\(holder ?? "nobody")"
            + (players[person].presenting.map { " (presenting token \($0.prefix(6)))" } ?? ""))
      }
    }
    // A hub just started shows none until its first reading.
    if case .lobby(_, let view) = message, !view.leaders.isEmpty,
      !watch.leaderboards.contains(view.leaders)
    {
      fail(
        "the lobby's leaderboard is the history's",
        "a lobby view to \(ids) shows \(view.leaders.map(\.name)) with ratings "
          + "\(view.leaders.map { $0.rating.map(\.text) ?? "none" }), which no reading of the "
          + "journal gave")
    }
    guard case .state(let seq, let view) = message else { return }
    for player in view.players where player.seat != view.you && player.weapon != nil {
      fail(
        "no frame holds a pick before its round resolved",
        "room \(view.room) round \(view.round): seat \(player.seat.rawValue)'s weapon in a view for "
          + "\(view.you.map { "seat \($0.rawValue)" } ?? "a spectator")")
    }
    // A room's last state (a quick-match move out of a room that closes) is of a room the
    // journal closed: durable once the closing is.
    let closedDurably =
      journal.lobby.rooms[view.room] == nil && journal.highestVersion[view.room] != nil
    let durable = journal.highestVersion[view.room] ?? -1
    if seq > durable, !closedDurably {
      fail(
        "nothing is sent before it is durable",
        "room \(view.room) version \(seq) sent; the journal holds version \(durable)")
    }
  }

  /// The leaderboard the journal answers the hub with: its kept ratings (rated as each
  /// commit landed) are those its matches give folded again from the start, and the
  /// board is remembered for the lobby views made from it.
  func checkRatings(_ board: [LobbyView.Leader]) {
    let recomputed = PlayerRatings.recomputed(from: journal.matches)
    if recomputed != journal.ratings {
      let differ = recomputed.ratings.keys.filter { journal.ratings[$0] != recomputed[$0] }
      fail(
        "the lobby's leaderboard is the history's",
        "the journal keeps ratings for \(differ.sorted().prefix(3)) that its "
          + "\(journal.matches.count) matches, folded again, do not give")
    }
    // Without Glicko: whoever played no rated match has the newcomer's rating, and the
    // board lists nobody rated against fewer than three different people.
    var ratedAgainst: [String: Set<String>] = [:]
    for match in journal.matches where match.rated {
      ratedAgainst[match.players[0], default: []].insert(match.players[1])
      ratedAgainst[match.players[1], default: []].insert(match.players[0])
    }
    // Each walk of a dictionary here is in its keys' order: which failure is named first
    // is then the seed's, not the process's hashing.
    for (name, rating) in journal.ratings.ratings.sorted(by: { $0.key < $1.key })
    where ratedAgainst[name] == nil && rating != .unrated {
      fail(
        "a rating moves only by rated matches",
        "\(name) is rated \(rating.rating) ±\(rating.deviation) without a rated match")
    }
    for leader in board where ratedAgainst[leader.name, default: []].count < 3 {
      fail(
        "the leaderboard lists only players rated against three different people",
        "\(leader.name) is listed, rated against \(ratedAgainst[leader.name, default: []].count)")
    }
    watch.leaderboards = (watch.leaderboards + [board]).suffix(8)
  }

  /// A message a person's program receives (before it acts on it).
  func checkReceived(_ message: ServerMessage, by index: Int, generation: Int) {
    checkChallengeTerms(message, by: index, generation: generation)
    // A look-alike of a name another identity holds is refused, never welcomed.
    if let name = players[index].impersonating {
      switch message {
      case .welcome, .lobby, .lobbyPatch, .state:
        if let holder = hub?.state.lobby.names.holder(of: name), holder != players[index].identity {
          fail(
            "a name someone holds is refused to everyone else",
            "P\(index) plays as \(name), which \(holder.suffix(6)) holds")
        }
      default:
        break
      }
    }
    switch message {
    case .challenge(let notice)
    where notice.status == .accepted && [notice.from, notice.to].contains("P\(index)"):
      if let program = players[index].program, let connection = program.connection {
        watch.seatAwaited[index] = (program.serial, connection, now)
      }
    case .welcome(_, _?, _, _):
      watch.seatAwaited[index] = nil
    case .error(let error, _) where error.code == .unavailable:
      watch.seatAwaited[index] = nil
    default:
      break
    }
    switch message {
    case .challenge(let notice) where notice.status != .pending:
      // A restarted hub numbers its challenges afresh; a terminal that was not reading
      // may read the dead hub's last frames after the restart.
      let key = "\(generation) \(notice.id) \(index)"
      watch.challengeEnds[key, default: 0] += 1
      if watch.challengeEnds[key]! > 1 {
        fail(
          "every challenge ends exactly once", "challenge \(notice.id) ended twice for P\(index)")
      }
    case .error(let error, _) where error.code == .badToken:
      let player = players[index]
      // The grace runs from when the server saw the drop, or, when it crashed first, from
      // its restart: either way it has not ended within `grace` of the drop itself.
      if player.presenting == nil, let dropped = player.droppedInMatchAt,
        now - dropped < grace - 2_000
      {
        fail(
          "back within the grace, the seat is theirs",
          "P\(index) came back \(now - dropped) ms after dropping out of a running match and "
            + "was refused (grace \(grace) ms)")
      }
    default:
      break
    }
  }

  /// Liveness of challenges: one nobody answers ends when its time is up (the hub's timer
  /// fires at its `expiresAt`; a second's room), and whoever read that a challenge of
  /// theirs was accepted is seated (or told the server cannot save) within 10 s of
  /// reading it, while the program and connection that read it last and the host is
  /// neither cut off nor paused.
  func checkChallengesEnd(_ board: ChallengeBoard) {
    // Walked in the challenges' order only when one is late (every step otherwise).
    let late = board.pending.values.contains { now > $0.expiresAt + 1_000 }
    for challenge in late ? board.pending.values.sorted(by: { $0.id < $1.id }) : []
    where now > challenge.expiresAt + 1_000 {
      fail(
        "a challenge is answered or expires in its time",
        "challenge \(challenge.id) from \(challenge.from.name) to \(challenge.to.name) still "
          + "waits \(now - challenge.expiresAt) ms after it expired")
      return
    }
    for (index, awaited) in watch.seatAwaited.sorted(by: { $0.key < $1.key }) {
      guard let program = players[index].program, program.serial == awaited.program,
        program.connection == awaited.connection, let connection = connections[awaited.connection],
        connection.open, connection.generation == hubGeneration
      else {
        watch.seatAwaited[index] = nil
        continue
      }
      let from = max(awaited.since, connection.cutUntil, connection.readsFrom)
      if now - from > 10_000 {
        fail(
          "an accepted challenge starts its match",
          "P\(index) read that their challenge was accepted \(now - awaited.since) ms ago and "
            + "has no seat")
        return
      }
    }
  }

  /// A challenge is made on the terms its challenger asked (the server's where they asked
  /// none); its terms, as its people are told them, are kept for ``checkChallengeRoom``.
  func checkChallengeTerms(_ message: ServerMessage, by index: Int, generation: Int) {
    switch message {
    case .challenge(let notice) where notice.status == .pending && notice.from == "P\(index)":
      guard let asked = watch.challengeAsked.removeValue(forKey: index) else { return }
      let wanted = asked ?? journal.defaults.bestOf
      if notice.bestOf != wanted {
        fail(
          "a challenge's match is played on its terms",
          "P\(index) challenged to a best of \(wanted); challenge \(notice.id) says \(notice.bestOf)"
        )
      }
    default:
      break
    }
    if case .challenge(let notice) = message, notice.status == .pending {
      watch.challengeTerms["\(generation) \(notice.id)"] = notice
    }
  }

  /// The hub accepted challenge `id` and opened `room` for it: the room has the terms its
  /// people were told.
  func checkChallengeRoom(id: Int, room: String) {
    guard let notice = watch.challengeTerms.removeValue(forKey: "\(hubGeneration) \(id)"),
      let settings = hub?.state.lobby.rooms[room]?.settings
    else { return }
    if settings.bestOf != notice.bestOf || settings.ruleset != notice.ruleset
      || settings.fair != notice.fair
    {
      fail(
        "a challenge's match is played on its terms",
        "challenge \(id) was to a best of \(notice.bestOf) (\(notice.ruleset), fair "
          + "\(notice.fair)); its room \(room) is a best of \(settings.bestOf) "
          + "(\(settings.ruleset), fair \(settings.fair))")
    }
  }

  /// A follower's lobby copy asked for the whole view: only where the server skipped a
  /// lobby message for that slow reader. The network here loses nothing on a connection
  /// that stays open, so any other resync is a patch that does not make the server's view
  /// (which the repair would otherwise hide).
  func checkResync(on id: Int, by index: Int) {
    counts["lobby resyncs", default: 0] += 1
    guard let connection = connections[id], connection.statesSkipped == 0 else { return }
    fail(
      "a lobby copy falls out of step only where a lobby message was skipped",
      "P\(index)'s lobby on connection \(id) asked for the whole view; nothing was skipped")
  }

  /// How long after the lobby view sent to all last changed every follower who could hear
  /// it holds it: the time between views (``LobbyFeed``'s 250 ms), a resync's spacing
  /// (2 s) and a whole view's round trip, with room to spare.
  static let lobbyCopyBound: Int64 = 5_000

  /// Every lobby follower whose program reads, on a connection open, writable, never
  /// skipped and never cut off since the view sent to all last changed, holds that view
  /// within ``lobbyCopyBound``: a patch that leaves something out, or a follower the hub
  /// forgets to send to, shows here, not only when the follower resyncs.
  func checkLobbyCopies(_ sent: (seq: Int, view: LobbyView?)) {
    let changed = watch.lobbySent.map { $0.generation != hubGeneration || $0.seq != sent.seq }
    if changed ?? true { watch.lobbySent = (hubGeneration, sent.seq, sent.view?.fingerprint, now) }
    guard let last = watch.lobbySent, let fingerprint = last.fingerprint,
      now - last.since > Self.lobbyCopyBound
    else { return }
    for (index, player) in players.enumerated() {
      guard let lobby = player.program?.state.lobby, let id = player.connection,
        let connection = connections[id], connection.open, connection.generation == hubGeneration,
        connection.openedAt <= last.since, connection.readsFrom <= last.since,
        connection.cutUntil <= last.since, connection.writable, connection.statesSkipped == 0,
        connection.unreadByProgram.isEmpty, lobby.replica.view != nil
      else { continue }
      if lobby.replica.seq != last.seq || lobby.replica.view?.fingerprint != fingerprint {
        fail(
          "a lobby follower's copy is the server's within \(Self.lobbyCopyBound) ms",
          "P\(index) holds lobby view \(lobby.replica.seq.map(String.init) ?? "none") "
            + "\(lobby.replica.awaitingWholeView ? "(awaiting the whole view) " : "")"
            + "\(now - last.since) ms after view \(last.seq) went to all")
        return
      }
    }
  }

  /// A log line: no weapon but in the line of a resolved round.
  func checkLog(_ line: HubLog) {
    if line.event != .roundResolved,
      line.metadata.keys.contains(where: { $0.hasPrefix("weapon") })
    {
      fail("no log holds a pick before its round resolved", "\(line.message): \(line.metadata)")
    }
  }

  /// What the journal found as each commit landed: the invariant, and the list of what broke
  /// it, in the order they are reported.
  static let journalInvariants: [(String, any KeyPath<SimulatedJournal, [String]> & Sendable)] = [
    ("the journal replays", \.replayFailures),
    (
      "a rated match moves its winner up and its loser down, within the bounds",
      \.ratingMoveFailures
    ),
    ("a rated match rates its players as Glickman's Glicko-2 does", \.ratingValueFailures),
    ("a reveal counts only when it matches its commitment", \.revealFailures),
    (
      "a match's record follows the rules, and every match a room ends is kept",
      \.matchFailures
    ),
  ]

  /// After every step.
  func checkInvariants() {
    for (invariant, failures) in Self.journalInvariants {
      if let wrong = journal[keyPath: failures].first {
        fail(invariant, wrong)
        return
      }
    }
    guard let hub else { return }
    let lobby = hub.state.lobby
    let waiting = lobby.rooms.values.count {
      LobbyState.isQuickMatchRoom($0.name) && $0.hasPlayerWaiting
    }
    if waiting > 1 { fail("at most one quick-match player waits", "\(waiting) wait") }
    checkFleetNames()
    checkLobbyCopies(hub.state.lobbyViewSent)
    checkTournamentEnds(lobby.tournament)
    // Whoever plays has no challenge waiting: taking one ends the others of both sides
    // (walked in the challenges' order only when one fails: every step otherwise).
    let pending = hub.state.challenges.pending.values
    let seatedWaits = pending.contains { challenge in
      [challenge.from, challenge.to].contains { hub.state.room(seating: $0.id) != nil }
    }
    for challenge in seatedWaits ? pending.sorted(by: { $0.id < $1.id }) : [] {
      for person in [challenge.from, challenge.to] {
        guard let room = hub.state.room(seating: person.id) else { continue }
        fail(
          "nobody seated in a match has a challenge waiting",
          "challenge \(challenge.id) from \(challenge.from.name) to \(challenge.to.name) waits; "
            + "\(person.name) is seated in \(room)")
        return
      }
    }
    checkChallengesEnd(hub.state.challenges)
    checkTournamentRounds(lobby.tournament)
    // A scan of every session and room: every fourth step (an index out of step stays so
    // until something mends it, which nothing does).
    if steps % 4 == 0, let mismatch = hub.state.indexMismatch {
      fail("the hub's indexes are what a scan finds", mismatch)
    }
    if steps % 16 == 0 {
      for (name, room) in lobby.rooms.sorted(by: { $0.key < $1.key }) {
        for (seat, held) in room.seats.sorted(by: { $0.key < $1.key }) {
          let won = room.history.count { $0.winner == seat }
          if held.score != won {
            fail(
              "no round is scored twice",
              "room \(name) seat \(seat.rawValue) has score \(held.score) for \(won) rounds won")
          }
        }
      }
    }
    // In the hub's order while all holds; a failure is named from the people in order.
    let named = hub.state.namedPeople
    if Self.nameHeldTwice(named) != nil,
      let twice = Self.nameHeldTwice(
        named.sorted { ($0.name, $0.identity ?? "") < ($1.name, $1.identity ?? "") })
    {
      fail("a name is never held by two identities", twice)
    }
    if watch.compareDue, hub.state.isSettled, commitInFlight == nil {
      watch.compareDue = false
      if lobby != journal.lobby {
        fail(
          "the journal replays to the live hub",
          "the live lobby differs from the journal's replay (rooms \(lobby.rooms.keys.sorted()) "
            + "against \(journal.lobby.rooms.keys.sorted()))")
      }
    }
  }

  /// The first of `named` whose name (folded) another identity before it holds, if any.
  static func nameHeldTwice(_ named: [(name: String, identity: String?)]) -> String? {
    var holders: [String: String] = [:]
    for (name, identity) in named {
      guard let identity else { continue }
      let folded = NameBook.folded(name)
      if let other = holders[folded], other != identity {
        return "\(name) by \(other) and \(identity)"
      }
      holders[folded] = identity
    }
    return nil
  }

  /// How long a running tournament of `rounds` may take to name its champion: each round
  /// (best-of-1 matches) given at most 10 minutes with every fault (rounds replayed after
  /// draws and deadlines, a seat's grace of 30 s, restarts), and the pauses between rounds.
  static func tournamentBound(rounds: Int) -> Int64 {
    Int64(rounds) * 10 * 60_000 + Int64(max(0, rounds - 1)) * 5_000
  }

  /// A running tournament names its champion within ``tournamentBound(rounds:)``: the
  /// invariant at the end of the evening holds for a tournament that never finishes.
  func checkTournamentEnds(_ tournament: Tournament?) {
    guard tournament?.phase == .running else {
      watch.tournamentRunningSince = nil
      return
    }
    let since = watch.tournamentRunningSince ?? now
    watch.tournamentRunningSince = since
    counts["longest tournament so far, s"] = max(
      counts["longest tournament so far, s"] ?? 0, Int((now - since) / 1_000))
    let rounds = tournament?.roundCount ?? 0
    if now - since > Self.tournamentBound(rounds: rounds) {
      fail(
        "a running tournament names its champion within 10 minutes a round",
        "running for \((now - since) / 1_000) s, round \(tournament?.rounds.count ?? 0) of \(rounds)"
      )
    }
  }

  /// The hub scheduled `timer` to fire at `at`: a grace's start is kept, from the first
  /// schedule of this end.
  func noteGraceScheduled(_ timer: HubTimer, at: Int64) {
    switch timer {
    case .grace, .entryGrace:
      if watch.graces[timer]?.endsAt != at { watch.graces[timer] = (now, at) }
    default:
      break
    }
  }

  /// A grace (a seat's, a tournament entry's) that runs out has lasted the configured
  /// time (``grace``) since the hub began it, not what the rules under test computed.
  func checkGraceLength(_ timer: HubTimer) {
    // Kept after it fires: a failed write's reload schedules the same end again.
    guard let began = watch.graces[timer], now - began.since < grace else {
      return
    }
    let what: String
    switch timer {
    case .grace(let room, let seat): what = "seat \(seat.rawValue)'s grace in \(room)"
    case .entryGrace(let name): what = "\(name)'s tournament entry's grace"
    default: return
    }
    fail(
      "a grace lasts the \(grace / 1_000) s configured",
      "\(what) ran out \(now - began.since) ms after it began")
  }

  /// Single elimination against a reference of its own: each round after the first pairs
  /// exactly the winners of the round before, as the journal kept its matches (a bye's
  /// player advances), and is paired only once every match of that round is kept; the
  /// champion is the winner of the final kept.
  func checkTournamentRounds(_ tournament: Tournament?) {
    guard let tournament, tournament.kind == .singleElimination,
      let first = tournament.rounds.first?.first(where: { $0.room != nil })?.room
    else { return }
    let id = first.split(separator: "-").prefix(2).joined(separator: "-")
    let seen =
      watch.tournamentSeen.flatMap { $0.id == id ? $0 : nil } ?? (
        id: id, rounds: 0, finished: false
      )
    // The end is judged once what the hub did is durable (the final's match is committed
    // with the tournament's end).
    let judgesEnd =
      tournament.phase == .finished && !seen.finished && hub?.state.isSettled == true
      && commitInFlight == nil
    watch.tournamentSeen = (id, tournament.rounds.count, seen.finished || judgesEnd)
    /// Who round `index` (0-based) advances, by the kept matches; nil: one is not kept.
    func advancing(from index: Int) -> (Set<String>, missing: String?) {
      var names: Set<String> = []
      for pairing in tournament.rounds[index] {
        if pairing.isBye {
          names.formUnion(pairing.players)
          continue
        }
        guard let room = pairing.room, let kept = journal.matches.last(where: { $0.room == room })
        else { return (names, pairing.room ?? "a match") }
        names.insert(kept.winner)
      }
      return (names, nil)
    }
    var round = max(seen.rounds, 1)
    while round < tournament.rounds.count {
      let (winners, missing) = advancing(from: round - 1)
      if let missing {
        fail(
          "a tournament's round is paired once every match of the one before is over",
          "round \(round + 1) of \(id) was paired; \(missing) of round \(round) has no kept result")
        return
      }
      let paired = Set(tournament.rounds[round].flatMap(\.players))
      if paired != winners {
        fail(
          "single elimination pairs the winners of each round",
          "round \(round + 1) of \(id) pairs \(paired.sorted()); round \(round)'s kept results "
            + "advance \(winners.sorted())")
        return
      }
      round += 1
    }
    guard judgesEnd, let last = tournament.rounds.indices.last else { return }
    let (winners, missing) = advancing(from: last)
    if let missing {
      fail(
        "a tournament finishes once every match of its last round is over",
        "\(id) finished, champion \(tournament.champion ?? "nobody"); \(missing) of its round "
          + "\(last + 1) has no kept result")
    } else if winners.count == 1, tournament.champion != winners.first {
      fail(
        "a tournament's champion won its final",
        "\(id) names \(tournament.champion ?? "nobody"); its final was won by \(winners.first!)")
    }
  }

  /// At the end of the evening.
  func checkAtEnd() {
    guard let tournament = hub?.state.lobby.tournament, tournament.phase == .finished else {
      return
    }
    if tournament.champion == nil {
      fail("a tournament that started ends with one champion", "finished with none")
    }
  }
}
