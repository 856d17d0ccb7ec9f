import NIOCore
import RoshamboGame
import RoshamboProtocol

/// How the server runs its tournament: which kind it opens, how its matches are played,
/// when entries close, the pause between rounds.
struct TournamentPlan {
  var kind: Tournament.Kind?
  var settings: RoomState.Settings
  /// Start once this many have entered (0: by the timer only).
  var players: Int
  /// …or this long after the second entry, ms.
  var startMillis: Int64
  var pauseMillis: Int64
  /// After a tournament ends, the next opens for entries this much later (nil: none).
  var nextMillis: Int64? = nil
  /// Entries one address may have at once (0: no bound).
  var entriesPerAddress = 0
}

/// The lobby's tournament on the server: the rules (``Tournament`` in the lobby) decide
/// pairings and results; the hub opens it, starts it when entries close, seats each
/// round's players on their connections (a player still in last round's room is moved,
/// one in the lobby is seated, one missing has a seat held for the grace period and
/// forfeits without coming back), and pairs the next round after a pause.
extension GameHub {
  /// At start: the planned tournament is opened if the journal holds none; one under way
  /// goes on (a round that ended before a restart is followed by the next).
  func resumeTournament() {
    if lobby.tournament == nil, let kind = tournamentPlan.kind {
      perform(.tournament(.open(kind, settings: tournamentPlan.settings)))
    }
    guard let tournament = lobby.tournament else { return }
    switch tournament.phase {
    case .entry where tournament.entrants.count >= 2: armTournamentStart()
    case .running where tournament.roundIsOver: scheduleTournamentRound()
    case .finished: scheduleNextTournament()
    default: break
    }
  }

  /// The next tournament of the plan's kind opens for entries `nextMillis` after one ends,
  /// on the same journal: its rooms are numbered on (`cup-2-…`), the leaderboard goes on.
  func scheduleNextTournament() {
    guard let kind = tournamentPlan.kind, let after = tournamentPlan.nextMillis else { return }
    tournamentTimer?.cancel()
    tournamentStartsAt = nil
    tournamentTimer = loop.assumeIsolated().scheduleTask(in: .milliseconds(after)) {
      self.tournamentTimer = nil
      // A draining server opens nothing: the next start does.
      guard !self.drain.isDraining, self.lobby.tournament?.phase == .finished else { return }
      self.perform(.tournament(.open(kind, settings: self.tournamentPlan.settings)))
    }
  }

  /// A follower taking challenges enters the tournament under its name.
  func enterTournament(_ origin: Origin, withdraw: Bool) {
    if let follower = sessions.followers[origin.link.id], follower.identity == nil {
      reply(
        origin.link,
        .notPlaying(
          "Entering the tournament needs a player identity, which this client did not "
            + "present; upgrade to roshambo 1.3 or later."),
        re: origin.re)
      return
    }
    guard let follower = sessions.followers[origin.link.id], follower.takesChallenges else {
      reply(
        origin.link,
        .notPlaying("Follow the lobby (able to play from it) to enter the tournament."),
        re: origin.re)
      return
    }
    if !withdraw, lobby.tournament?.settings.fair == true, !follower.playsFair {
      reply(
        origin.link,
        ProtocolError(
          code: .fairRoom,
          message: "This tournament plays fair (commit–reveal) and this client cannot; "
            + "upgrade to roshambo 1.2 or later."),
        re: origin.re)
      return
    }
    if !withdraw, let refusal = entriesRefusal(follower.name, from: origin.link.address) {
      reply(origin.link, refusal, re: origin.re)
      return
    }
    let action: TournamentAction =
      withdraw ? .withdraw(name: follower.name) : .enter(name: follower.name)
    guard perform(.tournament(action), origin: origin) != nil else { return }
    if !withdraw {
      tournamentLinks[follower.name] = origin.link
      if let entrants = lobby.tournament?.entrants {
        entryAddresses = entryAddresses.filter { entrants.contains($0.key) }
      }
      entryAddresses[follower.name] = origin.link.address
    }
  }

  /// Why `name`, entering from `address`, is refused for the entries that address has
  /// already (identities cost nothing to make, so one address could otherwise enter
  /// any number of names), or nil.
  private func entriesRefusal(_ name: String, from address: String?) -> ProtocolError? {
    let most = tournamentPlan.entriesPerAddress
    guard most > 0, let address, let tournament = lobby.tournament, tournament.phase == .entry,
      !tournament.entrants.contains(name),
      tournament.entrants.count(where: { entryAddresses[$0] == address }) >= most
    else { return nil }
    return ProtocolError(
      code: .tournamentClosed,
      message: "This tournament takes \(most == 1 ? "1 entry" : "\(most) entries") from one "
        + "network address, and yours has them already. If several players share it, ask "
        + "the host to allow more (roshambo-server --tournament-entries-per-address).")
  }

  /// A follower of the lobby who left it, while entries are open, when `link` is the
  /// connection that entered (the same person's `roshambo who`, or a replaced lobby
  /// screen, leaving takes nothing): one who said `leave` withdraws now; one whose
  /// connection dropped keeps the entry for the grace period, and loses it only if they
  /// are not back by then.
  func tournamentFollowerLeft(_ name: String, link: ConnectionLink, dropped: Bool) {
    guard tournamentLinks[name] == link, let tournament = lobby.tournament,
      tournament.phase == .entry,
      tournament.entrants.contains(name)
    else { return }
    guard dropped else {
      perform(.tournament(.withdraw(name: name)))
      return
    }
    entryGrace[name]?.cancel()
    entryGrace[name] = loop.assumeIsolated().scheduleTask(
      in: .milliseconds(max(0, lobby.defaults.graceMillis))
    ) {
      self.entryGrace[name] = nil
      guard self.tournamentLinks[name] == link, self.lobby.tournament?.phase == .entry,
        self.lobby.tournament?.entrants.contains(name) == true
      else { return }
      self.perform(.tournament(.withdraw(name: name)))
      self.lapsedEntries.insert(name)
      self.logger.info(
        "an entrant did not come back in time; their entry is withdrawn",
        metadata: ["name": "\(LogText.quoted(name))"])
    }
  }

  /// The grace period in whole seconds, rounded up, for what players are told.
  private var graceSeconds: Int64 { (max(0, lobby.defaults.graceMillis) + 999) / 1_000 }

  /// One whose entry lapsed while they were away follows the lobby again: told so once,
  /// while entries are still open (they may enter again), right after their first lobby
  /// view (an error before it would refuse their following).
  func tellLapsedEntry(_ name: String, link: ConnectionLink) {
    guard lapsedEntries.remove(name) != nil, lobby.tournament?.phase == .entry,
      lobby.tournament?.entrants.contains(name) == false
    else { return }
    noticesAfterFirstView[link.id] = (
      link,
      ProtocolError(
        code: .tournamentClosed,
        message: "Your tournament entry was withdrawn: you were away more than \(graceSeconds) s. "
          + "Press t to enter again.")
    )
  }

  /// An entrant following the lobby again (the same identity, as the hello's name rule
  /// makes sure) while entries are open: the entry is theirs on this connection, and the
  /// grace their dropped one started ends.
  func entrantReturned(_ name: String, link: ConnectionLink) {
    guard lobby.tournament?.phase == .entry, lobby.tournament?.entrants.contains(name) == true
    else { return }
    entryGrace[name]?.cancel()
    entryGrace[name] = nil
    tournamentLinks[name] = link
  }

  /// A follower arrived: an entrant whose seat of this round waits for them is seated
  /// (and no longer follows); returns whether they were.
  func tournamentFollowerArrived(_ link: ConnectionLink, name: String) -> Bool {
    guard let tournament = lobby.tournament, tournament.phase == .running,
      let pairing = tournament.rounds.last?.first(where: {
        !$0.isBye && $0.winner == nil && $0.players.contains(name)
      }),
      let room = pairing.room, let token = tournamentTokens[name],
      let seat = lobby.rooms[room]?.seat(holding: ResumeToken.stored(token)),
      lobby.rooms[room]?.seats[seat]?.connected == false
    else { return false }
    guard perform(.room(room, .reconnected(seat: seat, at: now()))) != nil else { return false }
    seatEntrant(link, name: name, room: room, seat: seat, token: token)
    return true
  }

  func tournamentChanged(_ event: LobbyEvent.TournamentEvent) {
    if let news,
      let sentence = HostNews.tournament(
        event, lobby.tournament, players: tournamentPlan.players,
        pauseSeconds: Int((tournamentPlan.pauseMillis + 999) / 1_000))
    {
      news(sentence)
    }
    // A round's seats are taken within the action that paired it, so each player's
    // `welcome` goes out before the room's first state, in the same flush.
    if case .roundPaired(let round) = event {
      seatTournamentRound()
      logger.info("tournament round paired", metadata: ["round": "\(round)"])
      return
    }
    // The next round's time is known at once, so the state that ends the round's last
    // match says it (the timer itself is set after the action).
    if case .roundOver = event { tournamentStartsAt = now() + tournamentPlan.pauseMillis }
    // One entrant cannot start a tournament: its start waits for a second entry again, and
    // the state that withdraws the other says so.
    if case .withdrew = event, let tournament = lobby.tournament, tournament.phase == .entry,
      tournament.entrants.count < 2
    {
      tournamentTimer?.cancel()
      tournamentTimer = nil
      tournamentStartsAt = nil
    }
    // The rest after the action that caused it, not inside it.
    loop.assumeIsolated().execute {
      switch event {
      case .opened:
        self.lapsedEntries.removeAll()
        self.logger.info("tournament open for entries")
      case .entered:
        guard let tournament = self.lobby.tournament, tournament.phase == .entry else { return }
        let plan = self.tournamentPlan
        if plan.players > 0, tournament.entrants.count >= plan.players {
          self.startTournamentRound()
        } else if tournament.entrants.count == 2 {
          self.armTournamentStart()
        }
      case .withdrew:
        break
      case .roundPaired:
        break
      case .roundOver:
        self.scheduleTournamentRound()
      case .finished(let champion):
        self.tournamentTokens.removeAll()
        self.logger.info(
          "tournament finished", metadata: ["champion": "\(LogText.quoted(champion))"])
        self.scheduleNextTournament()
      }
    }
  }

  /// Entries close `startMillis` after the second entry.
  private func armTournamentStart() {
    tournamentTimer?.cancel()
    tournamentStartsAt = now() + tournamentPlan.startMillis
    tournamentTimer = loop.assumeIsolated().scheduleTask(
      in: .milliseconds(tournamentPlan.startMillis)
    ) {
      self.tournamentTimer = nil
      self.tournamentStartsAt = nil
      self.startTournamentRound()
    }
  }

  private func scheduleTournamentRound() {
    tournamentTimer?.cancel()
    tournamentStartsAt = now() + tournamentPlan.pauseMillis
    tournamentTimer = loop.assumeIsolated().scheduleTask(
      in: .milliseconds(tournamentPlan.pauseMillis)
    ) {
      self.tournamentTimer = nil
      self.tournamentStartsAt = nil
      self.startTournamentRound()
    }
  }

  /// Pairs and seats the next round: a fresh token for every entrant (what the journal
  /// keeps is its hash; the token itself goes to the player in the `welcome`).
  func startTournamentRound() {
    // A draining server starts no round: the next is paired after the restart.
    guard !drain.isDraining, let tournament = lobby.tournament, tournament.phase != .finished,
      tournament.roundIsOver
    else { return }
    tournamentStartsAt = nil
    var stored: [String: String] = [:]
    tournamentTokens.removeAll()
    for name in tournament.entrants {
      let token = ResumeToken.make()
      tournamentTokens[name] = token
      stored[name] = ResumeToken.stored(token)
    }
    perform(.tournament(.startRound(tokens: stored, at: now())))
  }

  /// Each player of the round's matches on their connection, or held for the grace
  /// period when they are not here.
  private func seatTournamentRound() {
    guard let round = lobby.tournament?.rounds.last else { return }
    for pairing in round where !pairing.isBye {
      guard let room = pairing.room else { continue }
      for (index, name) in pairing.players.enumerated() {
        let seat = Seat.allCases[index]
        guard let token = tournamentTokens[name] else { continue }
        if let link = linkOfEntrant(name) {
          seatEntrant(link, name: name, room: room, seat: seat, token: token)
        } else {
          perform(.room(room, .disconnected(seat: seat, at: now())))
          callWatchingEntrant(name, to: room)
        }
      }
    }
  }

  /// Entrant `name`, away from the lobby because they watch a match (their own identity's
  /// spectator connection), is told their match is ready: the lobby seats them. A
  /// spectator's name is not checked, so only the identity that holds the name counts.
  private func callWatchingEntrant(_ name: String, to room: String) {
    guard let holder = lobby.names.holder(of: name) else { return }
    for member in sessions.members.values
    where member.seat == nil && member.name == name && member.identity == holder {
      outbox.append(
        .message(
          member.link,
          .error(
            ProtocolError(
              code: .matchReady,
              message: "Your tournament match is ready in \(room): go back to the lobby "
                + "within \(graceSeconds) s (press q), which takes you to it."), re: nil)))
    }
  }

  /// The connection of entrant `name`: the one that entered, if it still follows the
  /// lobby or sits in one of the tournament's rooms, else one seated in a tournament room
  /// under that name, else a follower of that name able to play.
  private func linkOfEntrant(_ name: String) -> ConnectionLink? {
    if let link = tournamentLinks[name] {
      if sessions.followers[link.id]?.name == name { return link }
      if let member = sessions[link.id], member.name == name, member.seat != nil,
        Tournament.isTournamentRoom(member.room)
      {
        return link
      }
    }
    // After a restart nobody is known yet: whoever resumed a seat of the tournament's
    // under that name, or follows the lobby able to play.
    if let member = sessions.members.values.first(where: {
      $0.name == name && $0.seat != nil && Tournament.isTournamentRoom($0.room)
    }) {
      return member.link
    }
    return sessions.followers.values.filter { $0.name == name && $0.takesChallenges }.min {
      $0.link.id < $1.link.id
    }?.link
  }

  /// Seats entrant `name` on `link` (``GameHub/takeSeat(_:name:room:seat:token:)``),
  /// remembering the connection for the rounds after.
  private func seatEntrant(
    _ link: ConnectionLink, name: String, room: String, seat: Seat, token: String
  ) {
    takeSeat(link, name: name, room: room, seat: seat, token: token)
    tournamentLinks[name] = link
  }
}
