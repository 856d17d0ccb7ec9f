import Foundation
import ReduxTesting
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// The lobby screen without a terminal: what each action changes (exactly), and the
/// screen as text at several sizes.
@MainActor
@Suite("The lobby screen")
struct LobbyScreenTests {
  static func view(_ names: [String], rooms: [LobbyView.Room] = []) -> LobbyView {
    LobbyView(
      people: names.map { .init(name: $0, status: .idle, room: nil, takesChallenges: true) },
      peopleCount: names.count, rooms: rooms, roomCount: rooms.count,
      leaders: [.init(name: "Bob", won: 3, lost: 1)])
  }

  static let den = LobbyView.Room(
    name: "den", players: ["Bob", "Carol"], scores: [1, 0], round: 2, phase: .choosing,
    bestOf: 3, ruleset: .classic, fair: false, spectators: 1)

  static func notice(
    _ id: Int, _ from: String, _ to: String, _ status: ChallengeNotice.Status
  ) -> ChallengeNotice {
    ChallengeNotice(
      id: id, status: status, from: from, to: to, bestOf: 3, ruleset: .classic, fair: false,
      expires: 40_000)
  }

  @Test(
    "the server closing: keys that would leave the lobby or start a match are refused, in words")
  func refusedWhileClosing() {
    var state = LobbyScreenState(me: "Alice")
    for command in [KeyBindings.LobbyCommand.quickMatch, .watch, .open, .replay, .challenge] {
      #expect(state.refusalWhileClosing(command) == nil)
    }
    state.closesAt = 60_000
    #expect(state.refusalWhileClosing(.quickMatch)?.contains("wait until it is back") == true)
    #expect(state.refusalWhileClosing(.watch) == state.refusalWhileClosing(.quickMatch))
    #expect(state.refusalWhileClosing(.open) == state.refusalWhileClosing(.quickMatch))
    #expect(state.refusalWhileClosing(.replay) == state.refusalWhileClosing(.quickMatch))
    #expect(
      state.refusalWhileClosing(.challenge)
        == "The server is closing: no new match starts until it is back.")
    #expect(state.refusalWhileClosing(.enterTournament) == state.refusalWhileClosing(.challenge))
    #expect(state.refusalWhileClosing(.accept) == state.refusalWhileClosing(.challenge))
    // Moving, declining and quitting stay as they are.
    for command in [
      KeyBindings.LobbyCommand.quit, .move(1), .switchPane, .decline, .declineForTheEvening,
    ] {
      #expect(state.refusalWhileClosing(command) == nil)
    }
  }

  @Test("no room open: says so of now, not as if no match had been played yet")
  func noRoomOpen() {
    var state = LobbyScreenState(me: "Alice")
    // Bob has played (he leads), yet no room is open now.
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(["Alice", "Bob"])))
    let lines = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: state)
    #expect(lines.contains("  (no rooms open now)"), "\(lines)")
    #expect(!lines.joined().contains("none yet"), "\(lines)")
  }

  @Test("the server closing: said under the lobby with the time left")
  func serverClosing() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.viewed(Self.view(["Alice", "Bob"]))) {
      $0.view = Self.view(["Alice", "Bob"])
      $0.selectedPerson = "Bob"
    }
    store.send(.tick(now: 50_000)) { $0.now = 50_000 }
    store.send(.serverClosing(closesAt: 62_000)) { $0.closesAt = 62_000 }
    let lines = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: store.state)
    #expect(
      lines.contains("! The server closes in 12 s; no new match starts until it is back."),
      "\(lines)")
    store.finish()
  }

  @Test("views: the selection goes to someone else once there is someone, and stays on them")
  func selection() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.viewed(Self.view(["Alice"]))) {
      $0.view = Self.view(["Alice"])
      $0.selectedPerson = "Alice"
    }
    store.send(.viewed(Self.view(["Alice", "Bob", "Carol"], rooms: [Self.den]))) {
      $0.view = Self.view(["Alice", "Bob", "Carol"], rooms: [Self.den])
      $0.selectedPerson = "Bob"
      $0.selectedRoom = "den"
    }
    store.send(.move(1)) { $0.selectedPerson = "Carol" }
    store.send(.move(5)) { $0.selectedPerson = "Carol" }
    store.send(.switchPane) { $0.pane = .rooms }
    store.send(.move(-1))
    // Carol goes: the selection moves to the one before her (nobody followed her), and
    // comes back to her if she is back before the selection is moved.
    store.send(.viewed(Self.view(["Alice", "Bob"]))) {
      $0.view = Self.view(["Alice", "Bob"])
      $0.selectedPerson = "Bob"
      $0.personAway = "Carol"
      $0.selectedRoom = nil
    }
    #expect(store.state.challengeable?.name == "Bob")
    store.finish()
  }

  @Test("the selection stays on its person as the list reorders, and comes back to them")
  func selectionFollowsThePerson() {
    let reducer = LobbyScreenReducer()
    var state = LobbyScreenState(me: "Alice")
    func people(_ playing: [String], _ idle: [String]) -> LobbyView {
      LobbyView(
        people: playing.map { .init(name: $0, status: .playing, room: "duel-1") }
          + idle.map { .init(name: $0, status: .idle, room: nil, takesChallenges: true) },
        peopleCount: playing.count + idle.count, rooms: [], roomCount: 0, leaders: [])
    }
    reducer.reduce(
      into: &state, action: .viewed(people([], ["Alice", "Bob", "Carol", "Dave", "Erin"])))
    reducer.reduce(into: &state, action: .move(2))
    #expect(state.selectedPerson == "Dave")
    // Bob and Carol start a match and go to the top: the selection stays on Dave.
    reducer.reduce(
      into: &state, action: .viewed(people(["Bob", "Carol"], ["Alice", "Dave", "Erin"])))
    #expect(state.selectedPerson == "Dave")
    // Dave is gone for a moment (from a match's connection to the lobby's): the selection
    // goes to the one after him, not to the top...
    reducer.reduce(into: &state, action: .viewed(people(["Bob", "Carol"], ["Alice", "Erin"])))
    #expect(state.selectedPerson == "Erin")
    // ... and back to him when he is back, the person having moved nothing meanwhile.
    reducer.reduce(
      into: &state, action: .viewed(people(["Bob", "Carol", "Dave"], ["Alice", "Erin"])))
    #expect(state.selectedPerson == "Dave")
    // Once the person moves the selection, one gone for good is not come back to.
    reducer.reduce(into: &state, action: .viewed(people(["Bob", "Carol"], ["Alice", "Erin"])))
    reducer.reduce(into: &state, action: .move(-1))
    #expect(state.selectedPerson == "Alice")
    reducer.reduce(
      into: &state, action: .viewed(people(["Bob", "Carol", "Dave"], ["Alice", "Erin"])))
    #expect(state.selectedPerson == "Alice")
  }

  @Test("a challenger declined for the evening is told they cannot challenge again tonight")
  func toldOfTheBlock() throws {
    let text =
      #"{"type":"challenge","challenge":4,"status":"declined","from":"Alice","to":"Erin","bestOf":3,"ruleset":"classic","fair":false,"expires":40000,"forTheEvening":true}"#
    guard case .challenge(let notice) = try ServerMessage.decode(Array(text.utf8)) else {
      Issue.record("not a challenge")
      return
    }
    var state = LobbyScreenState(me: "Alice")
    LobbyScreenReducer().reduce(into: &state, action: .challenge(notice))
    #expect(
      state.notice
        == "Erin declined your challenge, and declines your challenges for the rest of the "
        + "evening: you cannot challenge Erin again tonight.")
    // Erin's screen says it from the notice alone (another of her programs pressed b).
    var erin = LobbyScreenState(me: "Erin")
    LobbyScreenReducer().reduce(into: &erin, action: .challenge(notice))
    #expect(erin.notice == "You decline Alice's challenges for the rest of the evening.")
  }

  @Test("challenges: pending ones are listed, an ending removes them and says how")
  func challenges() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.challenge(Self.notice(1, "Alice", "Bob", .pending))) {
      $0.outgoing = [Self.notice(1, "Alice", "Bob", .pending)]
    }
    store.send(.challenge(Self.notice(2, "Carol", "Alice", .pending))) {
      $0.incoming = [Self.notice(2, "Carol", "Alice", .pending)]
      $0.bells = 1
    }
    store.send(.challenge(Self.notice(1, "Alice", "Bob", .declined))) {
      $0.outgoing = []
      $0.notice = "Bob declined your challenge."
    }
    store.send(.challenge(Self.notice(2, "Carol", "Alice", .withdrawn))) {
      $0.incoming = []
      $0.notice = "Carol withdrew the challenge."
    }
    store.send(.challenge(Self.notice(3, "Alice", "Dave", .pending))) {
      $0.outgoing = [Self.notice(3, "Alice", "Dave", .pending)]
      $0.notice = nil
    }
    store.send(.challenge(Self.notice(3, "Alice", "Dave", .expired))) {
      $0.outgoing = []
      $0.notice = "Dave did not answer your challenge in time."
    }
    store.send(.refused("Nobody named Zed is in the lobby.")) {
      $0.notice = "Nobody named Zed is in the lobby."
    }
    store.finish()
  }

  @Test("declined for the evening (b): the ending says so, a plain decline says nothing")
  func declinedForTheEvening() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.challenge(Self.notice(4, "Mallory", "Alice", .pending))) {
      $0.incoming = [Self.notice(4, "Mallory", "Alice", .pending)]
      $0.bells = 1
    }
    store.send(.declineForTheEvening("Mallory")) { $0.declinedForTheEvening = ["Mallory"] }
    store.send(.challenge(Self.notice(4, "Mallory", "Alice", .declined))) {
      $0.incoming = []
      $0.notice = "You decline Mallory's challenges for the rest of the evening."
    }
    store.send(.challenge(Self.notice(5, "Carol", "Alice", .pending))) {
      $0.incoming = [Self.notice(5, "Carol", "Alice", .pending)]
      $0.bells = 2
      $0.notice = nil
    }
    store.send(.challenge(Self.notice(5, "Carol", "Alice", .declined))) { $0.incoming = [] }
    store.finish()
  }

  @Test("the screen: people, rooms, leaders, challenges and keys, within every size")
  func renders() {
    var state = LobbyScreenState(me: "Alice")
    let names = ["Alice", "Bob", "Carol"] + (1...40).map { "guest\($0)" }
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.view(names, rooms: [Self.den])))
    state.incoming = [Self.notice(2, "Carol", "Alice", .pending)]
    state.now = 10_000
    let full = LobbyScreenRenderer(width: 80, height: 40, color: false).lines(for: state)
    let text = full.joined(separator: "\n")
    #expect(text.contains("Roshambo lobby · you are Alice · 43 people · 1 room"))
    #expect(text.contains("▸ Bob · in the lobby"))
    #expect(text.contains("den: Bob 1 – 0 Carol, round 2 (best of 3, classic, 1 watching)"))
    #expect(text.contains("1. Bob: 3 won, 1 lost"))
    #expect(
      text.contains("Carol challenges you: best of 3, classic · a accept, d decline · 30 s left"))
    // The key that declines all of that person's challenges for the evening is said too.
    #expect(
      full.joined(separator: " ").contains("b decline all from Carol this evening"), "\(text)")
    for (width, height) in [(80, 40), (80, 24), (60, 20), (40, 12), (30, 8)] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(for: state)
      #expect(lines.count <= height, "\(width)×\(height)")
      #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) <= width }, "\(width)×\(height)")
      #expect(lines.first?.hasPrefix("Roshambo lobby") == true)
      // The challenge waiting for an answer and the keys are never cut.
      #expect(lines.contains { $0.hasPrefix("Carol challenges you") }, "\(width)×\(height)")
      #expect(lines.last?.contains("quit") == true, "\(width)×\(height)")
    }
    // Two people of one name: one mark.
    var twins = LobbyScreenState(me: "Alice")
    LobbyScreenReducer().reduce(into: &twins, action: .viewed(Self.view(["Alice", "Bob", "Bob"])))
    let marks = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: twins)
      .filter { $0.hasPrefix("▸") }
    #expect(marks == ["▸ Bob · in the lobby"])
    // A long list is shown around its selection.
    state.selectedPerson = "guest30"
    let short = LobbyScreenRenderer(width: 80, height: 20, color: false).lines(for: state)
    #expect(short.contains("▸ guest30 · in the lobby"))
  }

  @Test("recent matches: Tab reaches them, arrows choose one, the screen lists them")
  func recentMatches() {
    var view = Self.view(["Alice", "Bob"], rooms: [Self.den])
    view.recent = [
      .init(
        id: 9, room: "duel-2", players: ["Bob", "Carol"], scores: [2, 0], winner: .one, fair: true),
      .init(
        id: 8, room: "duel-1", players: ["Alice", "Bob"], scores: [1, 2], winner: .two, fair: false
      ),
    ]
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.viewed(view)) {
      $0.view = view
      $0.selectedPerson = "Bob"
      $0.selectedRoom = "den"
      $0.selectedMatch = 9
    }
    store.send(.switchPane) { $0.pane = .rooms }
    store.send(.switchPane) { $0.pane = .recent }
    store.send(.move(1)) { $0.selectedMatch = 8 }
    let text = LobbyScreenRenderer(width: 80, height: 30, color: false).lines(for: store.state)
    #expect(text.contains("Recent matches ◂"))
    #expect(text.contains("▸ #8 duel-1: Alice 1–2 Bob, Bob won"))
    #expect(text.contains("  #9 duel-2: Bob 2–0 Carol, Bob won (fair)"))
    store.send(.switchPane) { $0.pane = .people }
    // With no recent matches Tab skips the pane, and a view without them leaves it.
    var none = view
    none.recent = []
    store.send(.switchPane) { $0.pane = .rooms }
    store.send(.viewed(none)) {
      $0.view = none
      $0.selectedMatch = nil
    }
    store.send(.switchPane) { $0.pane = .people }
    store.finish()
  }

  @Test("names from the server reach the screen sanitized")
  func hostileNames() throws {
    let hostile = "Mal\u{1B}]0;pwned\u{07}lory"
    let message = ServerMessage.lobby(seq: 1, view: Self.view([hostile])).sanitized()
    guard case .lobby(_, let view) = message else {
      Issue.record("not a lobby view")
      return
    }
    var state = LobbyScreenState(me: "Alice")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    let notice = ServerMessage.challenge(Self.notice(1, hostile, "Alice", .pending)).sanitized()
    guard case .challenge(let sanitized) = notice else { return }
    LobbyScreenReducer().reduce(into: &state, action: .challenge(sanitized))
    let lines = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: state)
    #expect(!lines.joined().contains("\u{1B}"))
    #expect(!lines.joined().contains("\u{07}"))
    #expect(lines.contains { $0.contains("Mal^[]0;pwned^Glory") })
  }

  /// A lobby during a tournament's second round: 8 entrants, 3 matches and a bye.
  static func tournamentView(people: Int = 12) -> LobbyView {
    var view = Self.view(
      ["Alice", "Bob", "Carol"] + (1..<max(1, people - 2)).map { "guest\($0)" },
      rooms: [Self.den])
    let names = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace"]
    view.tournament = LobbyView.TournamentView(
      kind: .swiss, phase: .running, round: 2, rounds: 3,
      standings: names.enumerated().map {
        .init(name: $1, wins: 2 - $0 / 3, losses: $0 / 3, roundDifference: 2 - $0, alive: true)
      },
      pairings: [
        .init(players: ["Alice", "Bob"], room: "cup-1-2-1"),
        .init(players: ["Carol", "Dave"], room: "cup-1-2-2"),
        .init(players: ["Eve", "Frank"], room: "cup-1-2-3"),
        .init(players: ["Grace"], room: nil, winner: "Grace"),
      ], champion: nil)
    view.leaders = (1...10).map { .init(name: "leader\($0)", won: 10 - $0, lost: $0) }
    view.recent = (1...6).map {
      .init(
        id: Int64($0), room: "cup-1-1-\($0)", players: ["guest\($0)", "Bob"], scores: [2, 0],
        winner: .one, fair: false)
    }
    return view
  }

  @Test("a tournament: its pairings and standings come before recent matches, at 80×24 and 60×20")
  func tournamentFirst() {
    var state = LobbyScreenState(me: "Alice")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(Self.tournamentView()))
    for (width, height) in [(80, 24), (60, 20)] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
        for: state)
      let title = lines.firstIndex { $0.hasPrefix("Tournament") }
      let recent = lines.firstIndex { $0.hasPrefix("Recent matches") }
      #expect(title != nil, "\(width)×\(height): \(lines)")
      if let title, let recent { #expect(title < recent, "\(width)×\(height): \(lines)") }
      // Every match of the round is shown, the bye too or counted.
      for pairing in ["Alice vs Bob", "Carol vs Dave", "Eve vs Frank"] {
        #expect(lines.contains { $0.contains(pairing) }, "\(width)×\(height): \(lines)")
      }
    }
    let tall = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: state)
    #expect(tall.contains { $0.contains("1. Alice: 2 won, 0 lost") }, "\(tall)")
  }

  @Test("every list cut to fit says how many more it holds")
  func cutListsCount() {
    var state = LobbyScreenState(me: "Alice")
    var view = Self.tournamentView(people: 43)
    view.peopleCount = 50
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    for (width, height) in [(80, 24), (60, 20)] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
        for: state)
      // People: 50 in all (43 listed); rows shown plus the count must make 50.
      let people = lines.filter { $0.contains("· in the lobby") }.count
      #expect(
        lines.contains("  … and \(50 - people) more"), "\(width)×\(height): \(lines)")
      // The standings (7) and pairings (4), the leaders (10), the recent matches (6).
      let leaders = lines.filter { $0.contains(": ") && $0.contains("leader") }
      if leaders.count == 1 {
        #expect(leaders[0].hasSuffix(" (and 9 more)"), "\(width)×\(height): \(lines)")
      } else if leaders.count > 1, leaders.count < 10 {
        #expect(
          lines.contains("  … and \(10 - leaders.count) more"), "\(width)×\(height): \(lines)")
      }
      #expect(lines.count <= height)
      #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) <= width })
    }
  }

  @Test("a long notice wraps between words; notices clear after 10 s")
  func notices() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    store.send(.viewed(Self.view(["Alice", "Bob"]))) {
      $0.view = Self.view(["Alice", "Bob"])
      $0.selectedPerson = "Bob"
    }
    store.send(.tick(now: 5_000)) { $0.now = 5_000 }
    let long =
      "This tournament plays fair (commit–reveal) and this client cannot; upgrade to "
      + "roshambo 1.2 or later, then come back to the lobby and press t again."
    store.send(.refused(long)) { $0.notice = long }
    // The lobby's tick (every second) starts its clock.
    store.send(.tick(now: 5_500)) {
      $0.now = 5_500
      $0.noticeSince = 5_500
    }
    for (width, height) in [(80, 24), (60, 20)] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
        for: store.state)
      #expect(!lines.contains { $0.hasSuffix("…") }, "\(lines)")
      let text = lines.joined(separator: " ")
      #expect(text.contains("press t again."), "\(width)×\(height): \(lines)")
      #expect(lines.count <= height)
    }
    store.send(.tick(now: 15_499)) { $0.now = 15_499 }
    store.send(.tick(now: 15_500)) {
      $0.now = 15_500
      $0.notice = nil
      $0.noticeSince = nil
    }
    store.finish()
  }

  @Test("a challenge to you rings the bell once; the server's name is in the title; r says replay")
  func bellTitleKeys() {
    let store = TestStore(
      initialState: LobbyScreenState(me: "Alice"), reducer: LobbyScreenReducer())
    var view = Self.view(["Alice", "Carol"])
    view.server = "attic"
    store.send(.viewed(view)) {
      $0.view = view
      $0.selectedPerson = "Carol"
    }
    store.send(.challenge(Self.notice(2, "Carol", "Alice", .pending))) {
      $0.incoming = [Self.notice(2, "Carol", "Alice", .pending)]
      $0.bells = 1
    }
    // The same challenge again (a view repeated) does not ring again; mine never do.
    store.send(.challenge(Self.notice(2, "Carol", "Alice", .pending)))
    store.send(.challenge(Self.notice(3, "Alice", "Carol", .pending))) {
      $0.outgoing = [Self.notice(3, "Alice", "Carol", .pending)]
    }
    store.send(.challenge(Self.notice(4, "Carol", "Alice", .pending))) {
      $0.incoming.append(Self.notice(4, "Carol", "Alice", .pending))
      $0.bells = 2
    }
    store.finish()
    for (width, height) in [(80, 24), (60, 20)] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
        for: store.state)
      #expect(lines[0].hasPrefix("Roshambo lobby on attic · you are Alice"), "\(lines)")
      #expect(lines.joined(separator: " ").contains("r replay a finished match"), "\(lines)")
      #expect(!lines.contains { $0.hasSuffix(" r replay") || $0.contains("· r replay ·") })
    }
  }

  @Test("a tournament from the player's side: how to enter, when it starts, a bye, the champion")
  func tournamentForPlayers() {
    func lines(_ state: LobbyScreenState, _ width: Int, _ height: Int) -> String {
      LobbyScreenRenderer(width: width, height: height, color: false).lines(for: state)
        .joined(separator: "\n")
    }
    var state = LobbyScreenState(me: "Alice")
    state.now = 100_000
    var view = Self.view(["Alice", "Bob", "Carol"])
    var entry = LobbyView.TournamentView(
      kind: .swiss, phase: .entry, round: 0, rounds: 0, standings: [], pairings: [],
      champion: nil)
    // Nobody in yet: no empty list of who entered.
    #expect(
      !LobbyText.lines(entry).contains { $0.contains("entered:") }, "\(LobbyText.lines(entry))")
    entry.standings = [.init(name: "Bob", wins: 0, losses: 0, roundDifference: 0, alive: true)]
    #expect(LobbyText.lines(entry).contains("  entered: Bob"))
    entry.startsWith = 8
    view.tournament = entry
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    for (width, height) in [(80, 24), (60, 20)] {
      let text = lines(state, width, height)
      #expect(text.contains("Press t to enter"), "\(width)×\(height):\n\(text)")
      #expect(text.contains("starts at 8 entrants"), "\(width)×\(height):\n\(text)")
    }
    // Entered, with a countdown.
    entry.standings.append(
      .init(name: "Alice", wins: 0, losses: 0, roundDifference: 0, alive: true))
    entry.startsAt = 142_000
    view.tournament = entry
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    for (width, height) in [(80, 24), (60, 20)] {
      let text = lines(state, width, height)
      #expect(text.contains("You are in"), "\(width)×\(height):\n\(text)")
      #expect(text.contains("starts in 42 s or at 8 entrants"), "\(width)×\(height):\n\(text)")
      #expect(!text.contains("Press t to enter"))
    }
    // Round 1: Alice has a bye; between rounds, when the next starts.
    var running = LobbyView.TournamentView(
      kind: .singleElimination, phase: .running, round: 1, rounds: 2,
      standings: ["Alice", "Bob", "Carol"].map {
        .init(name: $0, wins: 0, losses: 0, roundDifference: 0, alive: true)
      },
      pairings: [
        .init(players: ["Bob", "Carol"], room: "cup-1-1-1"),
        .init(players: ["Alice"], room: nil, winner: "Alice"),
      ], champion: nil)
    view.tournament = running
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    #expect(lines(state, 60, 20).contains("You have a bye in round 1"), "\(lines(state, 60, 20))")
    running.pairings[0].winner = "Bob"
    running.startsAt = 105_000
    view.tournament = running
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    #expect(lines(state, 60, 20).contains("Round 2 starts in 5 s"), "\(lines(state, 60, 20))")
    // Finished: the champion's own lobby congratulates them.
    view.tournament = LobbyView.TournamentView(
      kind: .singleElimination, phase: .finished, round: 2, rounds: 2,
      standings: running.standings, pairings: [], champion: "Alice")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    #expect(lines(state, 60, 20).contains("You are the champion"), "\(lines(state, 60, 20))")
  }

  @Test("recent matches say by forfeit where a match was one")
  func forfeitWords() {
    var match = LobbyView.Recent(
      id: 42, room: "duel-3", players: ["Bob", "Ann"], scores: [1, 0], winner: .one, fair: false)
    #expect(LobbyText.line(match) == "#42 duel-3: Bob 1–0 Ann, Bob won")
    match.forfeit = true
    #expect(LobbyText.line(match) == "#42 duel-3: Bob 1–0 Ann, Bob won by forfeit")
    let finished = FinishedMatch(
      id: 7, room: "cup-1-1-1", finishedAt: 1, ruleset: "classic", bestOf: 3,
      players: ["Ann", "Bob"], scores: [0, 1], winner: "Bob", forfeit: true, fair: false)
    #expect(LobbyView.Recent(finished)?.forfeit == true)
  }

  @Test(
    "back on a new connection after the server closed: the closing is over, new matches may start")
  func followingAgainAfterClosing() {
    var state = LobbyScreenState(me: "Alice")
    let reducer = LobbyScreenReducer()
    reducer.reduce(into: &state, action: .serverClosing(closesAt: 30_000))
    #expect(state.refusalWhileClosing(.enterTournament) != nil)
    reducer.reduce(into: &state, action: .followingAgain)
    #expect(state.closesAt == nil)
    #expect(state.refusalWhileClosing(.enterTournament) == nil)
    #expect(state.notice == "Back in the lobby: the server answers again.")
  }

  @Test("o and f set what the next challenge asks for: the server's rules, then each; fair or not")
  func challengeTerms() {
    var state = LobbyScreenState(me: "Alice")
    let reducer = LobbyScreenReducer()
    #expect(KeyBindings.lobbyCommand(for: .byte(UInt8(ascii: "o"))) == .cycleRuleset)
    #expect(KeyBindings.lobbyCommand(for: .byte(UInt8(ascii: "f"))) == .toggleFair)
    #expect(state.challengeRuleset == nil && !state.challengeFair)
    reducer.reduce(into: &state, action: .cycleRuleset)
    #expect(state.challengeRuleset == .classic)
    reducer.reduce(into: &state, action: .cycleRuleset)
    #expect(state.challengeRuleset == .lizardSpock)
    reducer.reduce(into: &state, action: .toggleFair)
    #expect(
      state.notice
        == "Your challenges ask for lizardSpock rules, fair (commit–reveal) · o rules, f fairness.")
    reducer.reduce(into: &state, action: .cycleRuleset)
    #expect(state.challengeRuleset == nil)
    #expect(
      state.notice
        == "Your challenges ask for the server's rules, fair (commit–reveal) · o rules, f fairness."
    )
    // Nothing about the terms is refused while the server is closing: they start nothing.
    state.closesAt = 1
    #expect(state.refusalWhileClosing(.cycleRuleset) == nil)
  }

  @Test("the leaderboard says how many wins were by forfeit")
  func leaderboardForfeits() throws {
    let text =
      #"{"type":"lobby","seq":1,"lobby":{"people":[],"peopleCount":0,"rooms":[],"roomCount":0,"leaders":[{"name":"Ann","won":3,"lost":1,"wonByForfeit":2},{"name":"Bob","won":1,"lost":3}],"tournament":null}}"#
    guard case .lobby(_, let view) = try ServerMessage.decode(Array(text.utf8)) else {
      Issue.record("not a lobby view")
      return
    }
    let printed = LobbyText.lines(view)
    #expect(printed.contains("  1. Ann: 3 won (2 by forfeit), 1 lost"), "\(printed)")
    #expect(printed.contains("  2. Bob: 1 won, 3 lost"), "\(printed)")
    var state = LobbyScreenState(me: "Bob")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    let screen = LobbyScreenRenderer(width: 80, height: 24, color: false).lines(for: state)
    #expect(screen.contains { $0.contains("1. Ann: 3 won (2 by forfeit), 1 lost") }, "\(screen)")
  }

  /// Four leaders as a server sends them, ranked: two settled, two provisional (one with a
  /// name 32 columns wide).
  static let ratedLeaders: [LobbyView.Leader] = [
    .init(
      name: "Alice", won: 12, lost: 3, wonByForfeit: 2,
      rating: .init(points: 1_623.418207, deviation: 57.902114)),
    .init(name: "Bob", won: 9, lost: 7, rating: .init(points: 1_540.5, deviation: 61.25)),
    .init(
      name: "カタカナカタカナカタカナカタカナ", won: 1, lost: 0,
      rating: .init(points: 1_662.310894, deviation: 290.318964)),
    .init(name: "Dave", won: 2, lost: 1, rating: .init(points: 1_590, deviation: 180)),
  ]

  @Test("the leaderboard by rating: \"1623 ±58\" or \"1662?\" first, at 80 and 60 columns")
  func leaderboardRatings() {
    let view = LobbyView(
      people: [.init(name: "Bob", status: .idle, room: nil, takesChallenges: true)],
      peopleCount: 1, rooms: [], roomCount: 0, leaders: Self.ratedLeaders)
    var state = LobbyScreenState(me: "Bob")
    LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
    func board(_ width: Int, _ height: Int) -> [String] {
      let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
        for: state)
      for line in lines { #expect(DisplayWidth.columns(of: line) <= width, "\(line)") }
      return Array(lines.drop { !$0.hasPrefix("Leaderboard") }.prefix(6))
    }
    // The settled are ranked; the new players (their rating provisional) come apart,
    // under a line that says why, so a settled 1541 above a new 1662 reads right.
    #expect(
      board(80, 24) == [
        "Leaderboard (by rating)",
        "  1. 1623 ±58  Alice: 12 won (2 by forfeit), 3 lost",
        "  2. 1541 ±61  Bob: 9 won, 7 lost",
        "  new players, not ranked until their rating settles:",
        "   · 1662?     カタカナカタカナカタカナカタカナ: 1 won, 0 lost",
        "   · 1590?     Dave: 2 won, 1 lost",
      ])
    // At 60 columns a line too long is cut at its end: the rating stays.
    #expect(
      board(60, 20) == [
        "Leaderboard (by rating)",
        "  1. 1623 ±58  Alice: 12 won (2 by forfeit), 3 lost",
        "  2. 1541 ±61  Bob: 9 won, 7 lost",
        "  new players, not ranked until their rating settles:",
        "   · 1662?     カタカナカタカナカタカナカタカナ: 1 won, 0 l…",
        "   · 1590?     Dave: 2 won, 1 lost",
      ])
    // `roshambo who` and `roshambo lobby` piped print the same lines.
    #expect(
      Array(LobbyText.lines(view).drop { !$0.hasPrefix("leaderboard") }) == [
        "leaderboard (by rating):",
        "  1. 1623 ±58  Alice: 12 won (2 by forfeit), 3 lost",
        "  2. 1541 ±61  Bob: 9 won, 7 lost",
        "  new players, not ranked until their rating settles:",
        "   · 1662?     カタカナカタカナカタカナカタカナ: 1 won, 0 lost",
        "   · 1590?     Dave: 2 won, 1 lost",
      ])
    // Only new players: no ranks yet, all under the line.
    let newOnly = LobbyView(
      people: view.people, peopleCount: 1, rooms: [], roomCount: 0,
      leaders: Array(Self.ratedLeaders.suffix(2)))
    #expect(
      Array(LobbyText.lines(newOnly).drop { !$0.hasPrefix("leaderboard") }) == [
        "leaderboard (by rating):",
        "  new players, not ranked until their rating settles:",
        "   · 1662?  カタカナカタカナカタカナカタカナ: 1 won, 0 lost",
        "   · 1590?  Dave: 2 won, 1 lost",
      ])
  }

  @Test("a crowded lobby cuts the leaderboard short on a new player, never on their heading")
  func crowdedLeaderboard() {
    let people = (1...12).map {
      LobbyView.Person(name: "P\($0)", status: .idle, room: nil, takesChallenges: true)
    }
    let rooms = (1...6).map {
      LobbyView.Room(
        name: "den-\($0)", players: ["A\($0)", "B\($0)"], scores: [0, 1], round: 2,
        phase: .choosing, bestOf: 3, ruleset: .classic, fair: false, spectators: 0)
    }
    for leaders in [Array(Self.ratedLeaders.suffix(2)), Self.ratedLeaders] {
      let view = LobbyView(
        people: people, peopleCount: 12, rooms: rooms, roomCount: 6, leaders: leaders)
      var state = LobbyScreenState(me: "P1")
      LobbyScreenReducer().reduce(into: &state, action: .viewed(view))
      for (width, height) in [(60, 20), (80, 24), (60, 16)] {
        let lines = LobbyScreenRenderer(width: width, height: height, color: false).lines(
          for: state)
        let board = Array(lines.drop { !$0.hasPrefix("Leaderboard") }.dropFirst())
        let shown = board.prefix { !$0.hasPrefix("Recent") && !$0.hasPrefix("!") }
        #expect(!shown.isEmpty, "\(width)×\(height): \(lines)")
        // The heading is followed by a new player whenever it shows.
        if let heading = shown.firstIndex(where: { $0.hasPrefix(LobbyText.newPlayersLine) }) {
          #expect(
            shown.dropFirst(heading - shown.startIndex + 1).first?.hasPrefix("   · ") == true,
            "\(width)×\(height): \(shown)")
        }
        #expect(!shown.contains { $0.contains("settles: (and") }, "\(width)×\(height): \(shown)")
      }
    }
  }

  @Test("printed paragraphs wrap between words at the terminal's width; a code is never split")
  func paragraphs() {
    let code = "4821-0937-5512-8864"
    let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")
    for width in [80, 60, 40] {
      let question = Paragraph.trustQuestion(
        address: "192.168.1.20:7443", code: code, fingerprint: fingerprint, width: width)
      let lines = question.split(separator: "\n", omittingEmptySubsequences: false)
      for line in lines where !line.contains(fingerprint.prefix(8)) {
        #expect(DisplayWidth.columns(of: String(line)) <= width, "\(width): \(line)")
      }
      #expect(lines.contains { $0.contains(code) }, "\(width): \(question)")
      #expect(question.hasSuffix("Trust this server from now on? [y/N] "))
      // Between words: every word of the text is whole on some line.
      #expect(lines.contains { $0.contains("10^16") } && lines.contains { $0.contains("forged") })
    }
    let said = Paragraph.wrapped(
      "roshambo: the server at 192.168.1.20:7443 is new to this machine; its identity code is "
        + code + ". If that is the code the server printed, connect again with --accept-new.",
      width: 40, indent: "  ")
    let lines = said.split(separator: "\n")
    #expect(lines.count > 1)
    #expect(lines.allSatisfy { DisplayWidth.columns(of: String($0)) <= 40 }, "\(said)")
    #expect(lines.contains { $0.contains(code) }, "\(said)")
    #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("  ") })
  }
}
