import RoshamboGame
import RoshamboProtocol

/// The tournament's entrants on their connections: entering and withdrawing, an entry
/// held through a dropped connection for the grace period, and each round's players
/// seated (a player still in last round's room is moved, one in the lobby is seated, one
/// missing has a seat held for the grace period and forfeits without coming back).
extension HubCore {
  /// A follower taking challenges enters the tournament under its name.
  mutating func enterTournament(_ origin: Origin, withdraw: Bool) {
    if let follower = state.sessions.followers[origin.link.id], follower.identity == nil {
      reply(
        origin.link,
        .needsUpgrade(
          .notPlaying,
          "Entering the tournament needs a player identity, which this client did not present",
          to: RoshamboVersion.presentsIdentitySince),
        re: origin.re)
      return
    }
    guard let follower = state.sessions.followers[origin.link.id], follower.takesChallenges
    else {
      reply(
        origin.link,
        .notPlaying("Follow the lobby (able to play from it) to enter the tournament."),
        re: origin.re)
      return
    }
    if !withdraw, state.lobby.tournament?.settings.fair == true, !follower.playsFair {
      reply(
        origin.link,
        .needsUpgrade(
          .fairRoom, "This tournament plays fair (commit–reveal) and this client cannot",
          to: RoshamboVersion.playsFairSince),
        re: origin.re)
      return
    }
    if !withdraw, let refusal = entriesRefusal(follower.name, from: origin.link.address) {
      reply(origin.link, refusal, re: origin.re)
      return
    }
    // Entering holds the name for the entrant as a hello does (it may have been released
    // since): only its holder is seated by name in a round paired while they are away.
    if !withdraw {
      claimName(follower.name, identity: follower.identity, link: origin.link)
    }
    let action: TournamentAction =
      withdraw ? .withdraw(name: follower.name) : .enter(name: follower.name)
    guard perform(.tournament(action), origin: origin) != nil else { return }
    if !withdraw {
      state.tournament.links[follower.name] = origin.link
      if let entrants = state.lobby.tournament?.entrants {
        state.tournament.entryAddresses = state.tournament.entryAddresses.filter {
          entrants.contains($0.key)
        }
      }
      state.tournament.entryAddresses[follower.name] = origin.link.address
    }
  }

  /// Why `name`, entering from `address`, is refused for the entries that address has
  /// already (identities cost nothing to make, so one address could otherwise enter
  /// any number of names), or nil.
  private func entriesRefusal(_ name: String, from address: String?) -> ProtocolError? {
    let most = state.tournament.plan.entriesPerAddress
    let addresses = state.tournament.entryAddresses
    guard most > 0, let address, let tournament = state.lobby.tournament,
      tournament.phase == .entry, !tournament.entrants.contains(name),
      tournament.entrants.count(where: { addresses[$0] == address }) >= most
    else { return nil }
    return ProtocolError(
      code: .tournamentClosed,
      message: "This tournament takes \(most == 1 ? "1 entry" : "\(most) entries") from one "
        + "network address, and yours has them already. If several players share it, ask "
        + "the host to allow more (roshambo-server --tournament-entries-per-address).")
  }

  /// A follower of the lobby who left it, while entries are open, when `link` is the
  /// connection that entered: one who said `leave` withdraws now; one whose connection
  /// dropped keeps the entry for the grace period, and loses it only if not back by then.
  mutating func tournamentFollowerLeft(_ name: String, link: Peer, dropped: Bool) {
    guard state.tournament.links[name] == link, let tournament = state.lobby.tournament,
      tournament.phase == .entry, tournament.entrants.contains(name)
    else { return }
    guard dropped else {
      perform(.tournament(.withdraw(name: name)))
      return
    }
    state.tournament.away[name] = link
    schedule(.entryGrace(name: name), at: now + max(0, state.lobby.defaults.graceMillis))
  }

  /// Entrant `name`'s grace ran out: their entry goes, unless they came back.
  mutating func entryGraceEnded(_ name: String) {
    guard let link = state.tournament.away.removeValue(forKey: name),
      state.tournament.links[name] == link, state.lobby.tournament?.phase == .entry,
      state.lobby.tournament?.entrants.contains(name) == true
    else { return }
    tell(HostNews.entryWithdrawn(name, graceSeconds: graceSeconds))
    perform(.tournament(.withdraw(name: name)))
    state.tournament.lapsed.insert(name)
    log(
      .info, "an entrant did not come back in time; their entry is withdrawn",
      ["name": LogText.quoted(name)], event: .entryWithdrawn(name: name))
  }

  /// One whose entry lapsed while they were away follows the lobby again: told so once,
  /// while entries are still open (they may enter again), right after their first lobby
  /// view (an error before it would refuse their following).
  mutating func tellLapsedEntry(_ name: String, link: Peer) {
    guard state.tournament.lapsed.remove(name) != nil, state.lobby.tournament?.phase == .entry,
      state.lobby.tournament?.entrants.contains(name) == false
    else { return }
    state.noticesAfterFirstView[link.id] = (
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
  mutating func entrantReturned(_ name: String, link: Peer) {
    guard state.lobby.tournament?.phase == .entry,
      state.lobby.tournament?.entrants.contains(name) == true
    else { return }
    state.tournament.away[name] = nil
    cancel(.entryGrace(name: name))
    state.tournament.links[name] = link
  }

  /// A follower able to play, or a player asking for quick match, arrived whose name holds
  /// a seat waiting for them, disconnected, in a match not over or in quick match's room (a
  /// tournament's round paired while they were away, a challenge accepted or a quick match
  /// joined as their connection dropped, a restart since): they are
  /// seated in it (and no longer follow), with the token kept for this round of the
  /// tournament or, when none is kept (the journal holds only hashes), a new one that
  /// replaces the old. Only the identity that holds the name is seated. Returns whether
  /// they were.
  mutating func heldSeatArrived(_ link: Peer, name: String, identity: String?) -> Bool {
    guard let identity, state.lobby.names.holder(of: name) == identity,
      let (room, seat) = waitingSeat(of: name)
    else { return false }
    let token: String
    if let kept = state.tournament.tokens[name],
      state.lobby.rooms[room]?.seat(holding: ResumeToken.stored(kept)) == seat
    {
      token = kept
      guard perform(.room(room, .reconnected(seat: seat, at: now))) != nil else { return false }
      tell(HostNews.back(name, room: room))
    } else {
      token = state.tokens.next()
      let renewed = RoomAction.tokenRenewed(
        seat: seat, token: ResumeToken.stored(token), at: now)
      guard perform(.room(room, renewed)) != nil else { return false }
      log(
        .info, "seat taken back by name", ["conn": "\(link.id)", "room": room],
        event: .seatTakenBackByName)
      tell(HostNews.back(name, room: room))
    }
    if Tournament.isTournamentRoom(room) {
      state.tournament.tokens[name] = token
      seatEntrant(link, name: name, room: room, seat: seat, token: token)
    } else {
      takeSeat(link, name: name, room: room, seat: seat, token: token)
    }
    return true
  }

  /// Seat `name`'s seat just began to wait (its connection was seen to close, or a
  /// reload found nobody on it): the same person may already be back in the lobby, their
  /// new connection having come first; the seat is then theirs there.
  mutating func seatFollowerBack(_ name: String) {
    guard let identity = state.lobby.names.holder(of: name),
      let back = state.sessions.followers(named: name, identity: identity).first(
        where: \.takesChallenges)
    else { return }
    _ = heldSeatArrived(back.link, name: name, identity: identity)
  }

  /// Each player of the round's matches on their connection, or held for the grace
  /// period when they are not here.
  mutating func seatTournamentRound() {
    guard let round = state.lobby.tournament?.rounds.last else { return }
    let withdrawn = state.lobby.tournament?.withdrawn ?? []
    for pairing in round where !pairing.isBye {
      guard let room = pairing.room else { continue }
      // One who withdrew gave the match up as it was paired: nothing to seat.
      for (index, name) in pairing.players.enumerated() where !withdrawn.contains(name) {
        let seat = Seat.allCases[index]
        guard let token = state.tournament.tokens[name] else { continue }
        if let link = linkOfEntrant(name) {
          seatEntrant(link, name: name, room: room, seat: seat, token: token)
        } else {
          perform(.room(room, .disconnected(seat: seat, at: now)))
          callWatchingEntrant(name, to: room)
        }
      }
    }
  }

  /// `name` has just finished a match (`finished`) while another seat of theirs waits for
  /// them: their tournament round was paired while they played a challenge, or their
  /// challenge was accepted while they could not read and their tournament match came
  /// first when they were back. They are told that match is ready, as one watching is,
  /// and the lobby seats them (``heldSeatArrived(_:name:identity:)``).
  mutating func callToWaitingSeat(_ name: String, after finished: String) {
    // Quick match's room waits for an opponent, not for them: nothing is ready there.
    guard let (room, _) = waitingSeat(of: name, except: finished),
      state.lobby.rooms[room]?.phase == .choosing
    else { return }
    callWatchingEntrant(name, to: room)
  }

  /// The seat waiting for `name` (in a match not over, or quick match's room), if any;
  /// of several, the tournament's first (it counts for the standings), then the one
  /// whose grace ends first. A seat waits only while its grace runs, so only the seats in
  /// grace under that name are looked at (called at every match's end and every lobby
  /// hello: a server of thousands of rooms must not look at each).
  private func waitingSeat(of name: String, except excluded: String? = nil) -> (String, Seat)? {
    let quickMatchRoom = state.lobby.quickMatchRoom
    let waiting = state.seatsInGrace.waiting(for: name).compactMap {
      place -> (String, Seat, Int64)? in
      // A match not over; or quick match's room, where their seat waits for an opponent
      // (a new quick match would pair them with themselves).
      guard place.room != excluded, let held = state.lobby.rooms[place.room],
        held.phase != .over || quickMatchRoom == place.room,
        let holder = held.seats[place.seat], holder.name == name, !holder.connected,
        !holder.hasLeft
      else { return nil }
      return (place.room, place.seat, holder.graceEndsAt ?? .max)
    }
    return waiting.min { first, second in
      let (firstCup, secondCup) = (
        Tournament.isTournamentRoom(first.0), Tournament.isTournamentRoom(second.0)
      )
      if firstCup != secondCup { return firstCup }
      return (first.2, first.0) < (second.2, second.0)
    }.map { ($0.0, $0.1) }
  }

  /// `name`, away from the lobby because they watch a match or still look at a finished
  /// one of theirs, on a connection of the identity that holds the name, is told their
  /// match in `room` is ready: the lobby seats them. A spectator's name is not checked,
  /// so only the identity counts.
  private mutating func callWatchingEntrant(_ name: String, to room: String) {
    guard let holder = state.lobby.names.holder(of: name) else { return }
    let error = ProtocolError(
      code: .matchReady,
      message: "Your \(Tournament.isTournamentRoom(room) ? "tournament " : "")match is ready"
        + " in \(room): go back to the lobby within \(graceSeconds) s (press q), which takes"
        + " you to it.")
    for member in state.sessions.members(named: name, identity: holder)
    where member.seat == nil || state.lobby.rooms[member.room]?.phase == .over {
      state.outbox.append(.message(member.link, .error(error, re: nil)))
    }
  }

  /// The connection of entrant `name`: the one that entered, if it still follows the
  /// lobby or sits in one of the tournament's rooms, else one seated in a tournament room
  /// under that name, else a follower of that name able to play.
  private func linkOfEntrant(_ name: String) -> Peer? {
    let sessions = state.sessions
    if let link = state.tournament.links[name] {
      if sessions.followers[link.id]?.name == name { return link }
      if let member = sessions[link.id], member.name == name, member.seat != nil,
        Tournament.isTournamentRoom(member.room)
      {
        return link
      }
    }
    // After a restart nobody is known yet: whoever resumed a seat of the tournament's
    // under that name, or follows the lobby able to play.
    if let member = sessions.members(named: name).first(where: {
      $0.seat != nil && Tournament.isTournamentRoom($0.room)
    }) {
      return member.link
    }
    return sessions.followers(named: name).first(where: \.takesChallenges)?.link
  }

  /// Seats entrant `name` on `link` (``takeSeat(_:name:room:seat:token:)``), remembering
  /// the connection for the rounds after.
  private mutating func seatEntrant(
    _ link: Peer, name: String, room: String, seat: Seat, token: String
  ) {
    takeSeat(link, name: name, room: room, seat: seat, token: token)
    state.tournament.links[name] = link
  }
}
