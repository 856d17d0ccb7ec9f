import RoshamboGame
import RoshamboProtocol

/// The lobby's followers: when they get a view (``LobbyFeed``), what it shows, and the
/// leaderboard read back from the journal.
extension HubCore {
  /// Queues a lobby view when ``LobbyFeed`` says one is due. Called where deliveries are
  /// prepared (a flight sealed, or sent with nothing to commit), so the view is of the
  /// lobby that flight makes durable and goes out with it, never before.
  mutating func queueLobbyView() {
    if let due = state.feed.resyncsDue(now: now) { scheduleLobbyView(at: due) }
    // The board, when one watches, counts as one more follower.
    let followers = state.sessions.followers.count + (configuration.feedsBoard ? 1 : 0)
    switch state.feed.decide(now: now, followers: followers) {
    case .nothing:
      break
    case .everyone(let seq):
      let view = lobbyView()
      if view == state.feed.sent, !state.feed.lastViewLost {
        // Nothing a follower sees changed: an empty patch would tell them only that
        // something happened (that someone picked). Newcomers are served as newcomers.
        state.feed.sentNothingNew()
        queueLobbyView()
        return
      }
      let patching = state.sessions.followers.values.filter {
        $0.takesPatches && !state.feed.servedNewcomers.contains($0.link)
          && !state.feed.lastViewLost
      }
      state.feed.lastViewLost = false
      if patching.isEmpty {
        state.outbox.append(.lobby(seq: seq, view, to: nil))
      } else {
        // One patch for every follower in step (they all have the view sent at seq - 1),
        // the whole view for the rest.
        let inStep = Set(patching.map(\.link.id))
        let rest = state.sessions.followers.keys.filter { !inStep.contains($0) }.sorted()
        if !rest.isEmpty {
          let links = rest.map { state.sessions.followers[$0]!.link }
          state.outbox.append(.lobby(seq: seq, view, to: links, toAll: true))
        }
        let links = inStep.sorted().map { state.sessions.followers[$0]!.link }
        if let sent = state.feed.sent {
          state.outbox.append(
            .lobbyPatch(
              seq: seq, base: seq - 1, fingerprint: view.fingerprint,
              LobbyPatch.make(from: sent, to: view), to: links))
        } else {
          state.outbox.append(.lobby(seq: seq, view, to: links, toAll: true))
        }
      }
      if configuration.feedsBoard { state.outbox.append(.board(seq: seq, view)) }
      state.feed.sent = view
      sendNoticesAfterFirstView(to: nil)
    case .newcomers(let links, let seq):
      // A patch follower gets the view sent to all at `seq` (the next patch is made from
      // it; nothing changed since, or it would have waited for the next view to all), the
      // others the lobby as it is now.
      let patching = links.filter { state.sessions.followers[$0.id]?.takesPatches == true }
      if let sent = state.feed.sent, !patching.isEmpty {
        let whole = links.filter { state.sessions.followers[$0.id]?.takesPatches != true }
        if !whole.isEmpty { state.outbox.append(.lobby(seq: seq, lobbyView(), to: whole)) }
        state.outbox.append(.lobby(seq: seq, sent, to: patching))
      } else {
        state.outbox.append(.lobby(seq: seq, lobbyView(), to: links))
      }
      sendNoticesAfterFirstView(to: links)
      // The change that came with them is still due to everyone else: ask again, which
      // schedules it (newcomers are served now, so this cannot recurse further).
      queueLobbyView()
    case .later(let at):
      scheduleLobbyView(at: at)
    }
  }

  /// The lobby's views are looked at again by `at` at the latest (the one timer serves
  /// the views to all and the resyncs that wait).
  private mutating func scheduleLobbyView(at: Int64) {
    if let current = state.timers[.lobbyView]?.at, current <= at { return }
    schedule(.lobbyView, at: at)
  }

  /// A follower that takes patches asks for the whole view: it gets the one sent to all
  /// (as a newcomer does), and patches from there; at most one every
  /// ``LobbyFeed/resyncInterval`` ms.
  mutating func resendLobbyView(to link: Peer, re id: Int?) {
    guard let follower = state.sessions.followers[link.id], follower.takesPatches else {
      reply(link, .notPlaying("Only a lobby follower that takes patches resyncs."), re: id)
      return
    }
    // A client asking in a loop gets one whole view every 2 s, the newest: never a
    // stream of them (each is tens of KiB).
    if let due = state.feed.resyncAsked(by: link, now: now) {
      scheduleLobbyView(at: due)
      return
    }
    scheduleFlush()
  }

  /// The notices waiting for the first lobby view of `links` (nil: every follower's).
  private mutating func sendNoticesAfterFirstView(to links: [Peer]?) {
    guard !state.noticesAfterFirstView.isEmpty else { return }
    for id in links.map({ $0.map(\.id) }) ?? state.noticesAfterFirstView.keys.sorted() {
      guard let (link, notice) = state.noticesAfterFirstView.removeValue(forKey: id),
        state.sessions.followers[id] != nil
      else { continue }
      state.outbox.append(.afterLobbyViews(link, .error(notice, re: nil)))
    }
  }

  /// The lobby as its followers see it now: players, spectators and followers (by name,
  /// at most ``LobbyView/maxPeople``), the rooms, the leaderboard's top.
  func lobbyView() -> LobbyView {
    // Players, then those who can be challenged, then spectators, then looks, each by
    // name: the first 128 of that order, chosen without sorting everyone. Looks and
    // spectators cost nothing to make, so they never push a challengeable person off.
    let rank = { (person: LobbyView.Person) in
      switch person.status {
      case .waiting, .playing: 0
      case .idle where person.takesChallenges: 1
      case .watching: 2
      case .idle: 3
      }
    }
    let lobby = state.lobby
    let sessions = state.sessions
    let members = sessions.members.values.lazy.compactMap {
      member -> LobbyView.Person? in
      guard let seat = member.seat else {
        // A spectator's name acts on nothing: one under a name held by someone else, or
        // used by another person here, is not listed as a second of them.
        guard lobby.names.allows(member.name, for: member.identity),
          !sessions.isUsed(member.name, byAnyoneBut: member.identity, countingSeated: true)
        else { return nil }
        return LobbyView.Person(name: member.name, status: .watching, room: member.room)
      }
      guard let room = lobby.rooms[member.room], let held = room.seats[seat] else { return nil }
      // Alone after a match whose opponent went, in a room someone may still come to (not
      // a challenge's or a tournament's): waiting for an opponent, as their screen says.
      let waits =
        room.phase == .waiting
        || (room.loneSeat == seat && !LobbyState.isChallengeRoom(member.room)
          && !Tournament.isTournamentRoom(member.room))
      return LobbyView.Person(
        name: held.name, status: waits ? .waiting : .playing, room: member.room)
    }
    let followers = distinctFollowers().lazy.map {
      LobbyView.Person(name: $0.name, status: .idle, room: nil, takesChallenges: $0.takesChallenges)
    }
    let people = [AnySequence(members), AnySequence(followers)].joined().smallest(
      LobbyView.maxPeople
    ) { a, b in
      // A total order: people come from dictionaries, whose order is the process's.
      let (rankA, rankB) = (rank(a), rank(b))
      if rankA != rankB { return rankA < rankB }
      return (a.name, a.room ?? "", a.takesChallenges ? 1 : 0)
        < (b.name, b.room ?? "", b.takesChallenges ? 1 : 0)
    }
    var view = lobby.view(
      people: people, peopleCount: state.sessions.members.count + followers.count,
      leaders: state.feed.leaders, recent: state.feed.recent)
    view.server = configuration.serverName
    if view.tournament != nil {
      view.tournament?.startsAt = state.tournament.startsAt
      if view.tournament?.phase == .entry, state.tournament.plan.players > 0 {
        view.tournament?.startsWith = state.tournament.plan.players
      }
    }
    return view
  }

  /// The lobby's followers, each person once: the same identity under the same name as a
  /// seated player or another follower (a lobby screen and `roshambo who` beside it) is
  /// one person, shown by the connection that can be challenged.
  private func distinctFollowers() -> [Sessions.Follower] {
    var seen = Set<String>()
    for member in state.sessions.members.values where member.seat != nil {
      if let identity = member.identity { seen.insert(identity + " " + member.name) }
    }
    // A look under a name someone else holds is not shown as them.
    let names = state.lobby.names
    let all = state.sessions.followers.values.filter {
      $0.takesChallenges || names.allows($0.name, for: $0.identity)
    }
    let challengersFirst =
      all.lazy.filter(\.takesChallenges) + all.lazy.filter { !$0.takesChallenges }
    return challengersFirst.filter { follower in
      guard let identity = follower.identity else { return true }
      return seen.insert(identity + " " + follower.name).inserted
    }
  }

  /// Reads the leaderboard's top at start and when matches were recorded since the last
  /// reading, at most every 2 s; so a newcomer's first view has it.
  mutating func readLeaders() {
    guard configuration.hasJournal, state.leaders.stale, !state.leaders.reading,
      !state.stopping
    else { return }
    if let last = state.leaders.readAt, now - last < 2_000 {
      if state.timers[.standings] == nil { schedule(.standings, at: last + 2_000) }
      return
    }
    state.leaders.stale = false
    state.leaders.readAt = now
    state.leaders.reading = true
    emit(.readStandings(leaders: LobbyView.maxLeaders, recent: LobbyView.maxRecent))
  }

  mutating func standingsRead(
    _ result: Result<([LobbyView.Leader], [FinishedMatch]), JournalFailure>
  ) {
    state.leaders.reading = false
    guard case .success(let (board, matches)) = result, !state.stopping else { return }
    // Ranked by rating here, whoever read it: the lobby's order is the protocol's.
    let leaders = state.leaders.shared ?? LobbyView.Leader.ranked(board)
    let recent = matches.compactMap(LobbyView.Recent.init)
    guard leaders != state.feed.leaders || recent != state.feed.recent else { return }
    state.feed.leaders = leaders
    state.feed.recent = recent
    state.feed.lobbyChanged()
    scheduleFlush()
  }

  /// The shared history's leaderboard was read: the lobby shows it, ranked by rating
  /// (the recent matches stay this server's, which its players can replay).
  mutating func sharedLeadersRead(_ board: [LobbyView.Leader]) {
    let leaders = LobbyView.Leader.ranked(board)
    state.leaders.shared = leaders
    guard leaders != state.feed.leaders, !state.stopping else { return }
    state.feed.leaders = leaders
    state.feed.lobbyChanged()
    scheduleFlush()
  }

  /// Why the server is not ready for players now, or nil: draining, stopping, or the
  /// journal cannot be written (play is paused until it can).
  package func unreadiness(now: Int64) -> String? {
    if let seconds = state.drain.secondsLeft(now: now), !state.stopping {
      return "the server is draining: it closes in \(seconds) s at the latest"
    }
    if state.stopping { return "the server is stopping" }
    if !state.commits.acceptsActions { return "the journal cannot be written (is the disk full?)" }
    return nil
  }
}
