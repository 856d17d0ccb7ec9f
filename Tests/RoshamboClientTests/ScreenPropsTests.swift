import GameFixtures
import RoshamboClient
import RoshamboGame
import Testing

@Suite("Screen props")
struct ScreenPropsTests {
  let connected = ClientContext(connection: .connected, now: 10_000)

  @Test("a fair room says so, and marks the rounds this client verified")
  func fairRoom() {
    var room = RoomState(name: "f", settings: .init(fair: true))
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    let a = String(repeating: "a", count: 64)
    let b = String(repeating: "b", count: 64)
    for round in 1...2 {
      room.apply(.committed(seat: .one, round: round, digest: a, at: 1))
      room.apply(.committed(seat: .two, round: round, digest: b, at: 1))
      room.apply(.revealed(seat: .one, round: round, weapon: .rock, nonce: a, matches: true, at: 2))
      room.apply(.revealed(seat: .two, round: round, weapon: .rock, nonce: b, matches: true, at: 2))
    }
    var context = ClientContext(connection: .connected)
    let props = makeProps(view: room.view(for: .one), context: context, verifiedRounds: [2])
    #expect(props.title.contains("fair (commit–reveal)"))
    #expect(props.history.count == 2)
    #expect(!props.history[0].contains("verified"))
    #expect(props.history[1].hasSuffix("✓ verified"))
    // Round 3: committed, sealed; the screen shows this client's own pick, not "Your move".
    room.apply(.committed(seat: .one, round: 3, digest: a, at: 3))
    context.pendingPick = .paper
    let sealed = makeProps(view: room.view(for: .one), context: context, verifiedRounds: [2])
    #expect(sealed.status == "You picked paper, sealed. Waiting for Bob…")
    #expect(sealed.prompt == nil)
  }

  @Test("the server closing: a countdown, what becomes of the match; gone once it is back")
  func serverClosing() {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    var state = ClientState()
    let reducer = ClientReducer()
    reducer.reduce(into: &state, action: .connection(.connected))
    reducer.reduce(into: &state, action: .welcome(room: "den", seat: .one, token: "a"))
    reducer.reduce(into: &state, action: .synced(view: room.view(for: .one), seq: 1))
    reducer.reduce(into: &state, action: .tick(now: 100_000))
    #expect(state.props.closing == nil)
    reducer.reduce(into: &state, action: .serverClosing(closesAt: 130_000))
    #expect(
      state.props.closing
        == "The server closes in 30 s: finish this match; if it does not end in time, it "
        + "resumes when the server is back.")
    // A pick does not take it away, as it does a notice; the count goes down.
    reducer.reduce(into: &state, action: .choose(.rock))
    reducer.reduce(into: &state, action: .tick(now: 125_500))
    #expect(state.props.closing?.hasPrefix("The server closes in 5 s:") == true)
    reducer.reduce(into: &state, action: .tick(now: 131_000))
    #expect(state.props.closing?.hasPrefix("The server is closing:") == true)
    let lines = ScreenRenderer(width: 80, height: nil, color: false).lines(for: state.props)
    #expect(lines.contains { $0.hasPrefix("! The server is closing:") })
    // Out of a match: no match to finish.
    room.apply(.left(seat: .two, at: 1))
    reducer.reduce(into: &state, action: .synced(view: room.view(for: .one), seq: 2))
    #expect(state.props.closing == "The server is closing; no new match starts until it is back.")
    // Reconnected: the server is back.
    reducer.reduce(into: &state, action: .connection(.reconnecting(attempt: 1)))
    #expect(state.props.closing != nil)
    reducer.reduce(into: &state, action: .connection(.connected))
    #expect(state.props.closing == nil)
  }

  @Test("before any view: connecting")
  func connecting() {
    let props = makeProps(view: nil, context: ClientContext())
    #expect(props.status == "connecting…")
    #expect(props.keys == "[q]uit")
  }

  @Test("waiting for an opponent")
  func waiting() {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    let props = makeProps(view: room.view(for: .one), context: connected)
    #expect(props.title == "Room den · classic · best of 3")
    #expect(props.status == "Waiting for an opponent…")
    #expect(props.prompt == nil)
    #expect(props.round == nil)
    #expect(props.players.map(\.name) == ["Alice"])
    #expect(props.players[0].isYou)
  }

  @Test("choosing: the prompt and the keys")
  func choosing() {
    let props = makeProps(view: playingRoom().view(for: .one), context: connected)
    #expect(props.status == "Your move.")
    #expect(props.prompt == "Choose your weapon: [r]ock [p]aper [s]cissors")
    #expect(props.keys == "[r/p/s] or [1-3] choose · [q]uit")
    #expect(props.round == "Round 1")
    #expect(props.players.map(\.status) == ["choosing", "choosing"])
  }

  @Test("lizard and Spock have their own keys")
  func lizardSpockPrompt() {
    let props = makeProps(
      view: playingRoom(ruleset: .lizardSpock).view(for: .two), context: connected)
    #expect(props.prompt == "Choose your weapon: [r]ock [p]aper [s]cissors [l]izard spoc[k]")
    #expect(props.keys == "[r/p/s/l/k] or [1-5] choose · [q]uit")
  }

  @Test("the opponent has chosen: your move")
  func opponentChosen() {
    var room = playingRoom()
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 1))
    let props = makeProps(view: room.view(for: .two), context: connected)
    #expect(props.status == "Alice has chosen. Your move.")
    #expect(props.players.map(\.status) == ["chosen", "choosing"])
  }

  @Test("a pending pick shows at once, then as confirmed")
  func pendingThenConfirmed() {
    var room = playingRoom()
    var context = connected
    context.pendingPick = .paper
    #expect(
      makeProps(view: room.view(for: .one), context: context).status
        == "You picked paper (sending…)")
    room.apply(.chose(seat: .one, round: 1, weapon: .paper, at: 1))
    #expect(
      makeProps(view: room.view(for: .one), context: context).status
        == "You picked paper. Waiting for Bob…")
  }

  @Test("the reveal names the winner and the verb")
  func reveal() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    let props = makeProps(view: room.view(for: .two), context: connected)
    #expect(props.reveal == "Alice wins the round: rock crushes scissors")
    #expect(props.history == ["1. Alice rock, you scissors: Alice wins"])
    #expect(props.banner == nil)
    #expect(props.players.map(\.score) == [1, 0])
    let winner = makeProps(view: room.view(for: .one), context: connected)
    #expect(winner.reveal == "You win the round: rock crushes scissors")
    #expect(winner.history == ["1. you rock, Bob scissors: you win"])
    let watching = makeProps(view: room.view(for: nil), context: connected)
    #expect(watching.history == ["1. Alice rock, Bob scissors: Alice wins"])
  }

  @Test("a drawn round says DRAW!")
  func drawBanner() {
    var room = playingRoom()
    play(&room, .paper, .paper)
    let props = makeProps(view: room.view(for: .one), context: connected)
    #expect(props.banner == "DRAW!")
    #expect(props.reveal == "Round 1 is a draw: both chose paper")
    #expect(props.history == ["1. you paper, Bob paper: draw"])
  }

  @Test("match over: YOU WIN! once to the winner, the seat and name to others, and the rematch key")
  func matchOver() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    play(&room, .paper, .scissors)
    play(&room, .paper, .rock)
    let mine = makeProps(view: room.view(for: .one), context: connected)
    #expect(mine.banner == "YOU WIN!")
    #expect(
      makeProps(view: room.view(for: .two), context: connected).banner
        == "PLAYER 1 WINS! Alice wins.")
    #expect(
      makeProps(view: room.view(for: nil), context: connected).banner
        == "PLAYER 1 WINS! Alice wins.")
    #expect(mine.status == "You win the match 2–1! Press [n] for a rematch.")
    #expect(mine.keys == "[n] rematch · [q]uit")
    let theirs = makeProps(view: room.view(for: .two), context: connected)
    #expect(theirs.status == "Alice wins the match 2–1. Press [n] for a rematch.")
    room.apply(.rematchRequested(seat: .two, at: 1))
    #expect(
      makeProps(view: room.view(for: .one), context: connected).status
        == "You win the match 2–1! Bob wants a rematch: press [n] to accept.")
    #expect(
      makeProps(view: room.view(for: .two), context: connected).status
        == "Alice wins the match 2–1. Waiting for Alice to accept the rematch…")
  }

  @Test("after a match that ended on its rounds, an opponent who left is gone after it")
  func movedOn() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    play(&room, .rock, .scissors)
    room.apply(.left(seat: .two, at: 1))
    let props = makeProps(view: room.view(for: .one), context: connected)
    #expect(props.players.map(\.status) == ["connected", "gone after the match"])
    #expect(props.reveal == "You win the round: rock crushes scissors")
  }

  @Test("a forfeit says who gave up")
  func forfeit() {
    var room = playingRoom()
    play(&room, .scissors, .paper)
    room.apply(.left(seat: .two, at: 1))
    let props = makeProps(view: room.view(for: .one), context: connected)
    #expect(props.banner == "YOU WIN!")
    // One line says it: no round line contradicting it above.
    #expect(props.reveal == nil)
    #expect(
      props.status
        == "Bob gave up the match in round 2: you win by forfeit. Waiting for a new opponent…")
    #expect(props.players.map(\.status) == ["connected", "left"])
    let watching = makeProps(view: room.view(for: nil), context: connected)
    #expect(watching.reveal == nil)
    #expect(
      watching.status == "Bob gave up in round 2: Alice wins by forfeit. Press q to go back.")
    // The round before the forfeit stays in the history, from the reader's side.
    #expect(props.history == ["1. you scissors, Bob paper: you win"])
  }

  @Test("a missed deadline says who ran out of time; the countdown counts down")
  func deadlines() {
    var room = playingRoom(roundMillis: 20_000)
    var context = connected
    context.now = 2_001
    #expect(makeProps(view: room.view(for: .one), context: context).countdown == "20 s left")
    context.now = 21_500
    #expect(makeProps(view: room.view(for: .one), context: context).countdown == "1 s left")
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 5_000))
    room.apply(.deadlinePassed(round: 1, at: 22_000))
    #expect(
      makeProps(view: room.view(for: .one), context: context).reveal
        == "You win the round: Bob ran out of time")
    #expect(
      makeProps(view: room.view(for: .two), context: context).reveal
        == "Alice wins the round: you ran out of time")
  }

  @Test("spectators see who has chosen, never what")
  func spectator() {
    var room = playingRoom()
    room.apply(.chose(seat: .two, round: 1, weapon: .rock, at: 1))
    let props = makeProps(view: room.view(for: nil), context: connected)
    #expect(props.status == "Bob has chosen.")
    #expect(props.prompt == nil)
    #expect(!props.status.contains("rock"))
  }

  @Test("connection trouble and server notices get their own lines")
  func connectionLines() {
    var context = ClientContext(
      connection: .reconnecting(attempt: 3), notice: "You already chose this round.")
    let props = makeProps(view: playingRoom().view(for: .one), context: context)
    #expect(props.connection == "Lost the connection to the server; reconnecting (attempt 3)…")
    #expect(props.notice == "You already chose this round.")
    context.connection = .connected
    #expect(makeProps(view: playingRoom().view(for: .one), context: context).connection == nil)
  }

  @Test("the round trip is said only when it is slow, and never while the link is down")
  func roundTrip() {
    let view = playingRoom().view(for: .one)
    var context = ClientContext(connection: .connected)
    context.roundTripMillis = 0.4
    #expect(makeProps(view: view, context: context).latency == nil)
    context.roundTripMillis = 420
    #expect(makeProps(view: view, context: context).latency == "slow connection (ping 420 ms)")
    // The last figure measured says nothing about a link that is down now.
    context.connection = .reconnecting(attempt: 1)
    #expect(makeProps(view: view, context: context).latency == nil)
  }

  @Test("an opponent whose connection dropped is away: not said to be reconnecting")
  func opponentAway() {
    var room = playingRoom()
    room.apply(.disconnected(seat: .two, at: 5))
    let props = makeProps(
      view: room.view(for: .one), context: ClientContext(connection: .connected))
    // They may have closed the terminal or gone home: nobody knows they are coming back.
    #expect(props.players.last?.status == "away (connection lost)")
    #expect(!props.players.map(\.status).joined().contains("reconnecting"))
  }

  @Test("a deadline anywhere in 64 bits shows a countdown, without trapping (found by fuzzing)")
  func extremeDeadlines() {
    func countdown(_ deadline: Int64, now: Int64) -> String? {
      var room = playingRoom()
      room.deadline = deadline
      return makeProps(
        view: room.view(for: .one), context: ClientContext(connection: .connected, now: now)
      ).countdown
    }
    // The fuzzer's input: a hostile server's deadline of Int64.max, the client's clock at 0.
    #expect(countdown(.max, now: 0) == "\(Int64.max / 1000 + 1) s left")
    #expect(countdown(.max, now: -1) == "\(Int64.max / 1000) s left")
    #expect(countdown(.min, now: 10_000) == "time's up")
    #expect(countdown(.min, now: .max) == "time's up")
    #expect(countdown(10_001, now: 10_000) == "1 s left")
    #expect(countdown(12_000, now: 10_000) == "2 s left")
    #expect(countdown(10_000, now: 10_000) == "time's up")
  }

  /// A tournament room's match over: Ann (seat 1) beat Bob 2–0; the view from `seat`.
  static func tournamentMatch(
    round: Int, of rounds: Int, kind: Tournament.Kind = .swiss, seat: Seat?,
    stage: (inout RoomView.TournamentStage) -> Void = { _ in }
  ) -> RoomView {
    var room = RoomState(name: "cup-1-\(round)-1", settings: .init(bestOf: 3))
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    for round in 1...2 {
      room.apply(.chose(seat: .one, round: round, weapon: .rock, at: 1))
      room.apply(.chose(seat: .two, round: round, weapon: .scissors, at: 1))
    }
    var view = room.view(for: seat)
    var tournament = RoomView.TournamentStage(
      kind: kind, phase: .running, round: round, rounds: rounds)
    stage(&tournament)
    view.tournament = tournament
    return view
  }

  @Test("a tournament's match: its round or the final; over, no rematch, and what comes next")
  func tournamentRoom() {
    let context = ClientContext(connection: .connected, now: 10_000)
    // Its round, and the final.
    var running = Self.tournamentMatch(round: 2, of: 3, seat: .one)
    running.phase = .choosing
    #expect(makeProps(view: running, context: context).title.contains("tournament, round 2 of 3"))
    let final = makeProps(
      view: Self.tournamentMatch(round: 3, of: 3, kind: .singleElimination, seat: .two),
      context: context)
    #expect(final.title.contains("tournament final"), "\(final.title)")
    // Swiss and round robin have no final: their last round is a round.
    let last = makeProps(
      view: Self.tournamentMatch(round: 3, of: 3, kind: .swiss, seat: .two), context: context)
    #expect(last.title.contains("tournament, round 3 of 3"), "\(last.title)")
    // Over while the round's other matches are played: no rematch; when the next starts.
    let won = makeProps(view: Self.tournamentMatch(round: 2, of: 3, seat: .one), context: context)
    #expect(!won.keys.contains("rematch") && !won.status.contains("rematch"), "\(won)")
    #expect(
      won.status.contains("Round 3 starts when round 2's other matches end"), "\(won.status)")
    let soon = makeProps(
      view: Self.tournamentMatch(round: 2, of: 3, seat: .one) { $0.startsAt = 18_000 },
      context: context)
    #expect(soon.status.contains("Round 3 starts in 8 s"), "\(soon.status)")
    // Knocked out: said so, never "Waiting for a new opponent…" once the winner moved on.
    var out = Self.tournamentMatch(round: 1, of: 3, kind: .singleElimination, seat: .two) {
      $0.round = 2
    }
    out.players[0].left = true
    let knocked = makeProps(view: out, context: context)
    #expect(knocked.status.contains("You are out of the tournament"), "\(knocked.status)")
    #expect(!knocked.status.contains("Waiting for a new opponent"))
    #expect(!knocked.keys.contains("rematch"))
    // A bye in the next round.
    var bye = Self.tournamentMatch(round: 1, of: 3, kind: .roundRobin, seat: .two) {
      $0.round = 2
      $0.byes = ["Bob"]
    }
    bye.players[0].left = true
    let byeProps = makeProps(view: bye, context: context)
    #expect(byeProps.status.contains("You have a bye in round 2"), "\(byeProps.status)")
    #expect(!byeProps.status.contains("Waiting for a new opponent"))
    // The champion's own screen congratulates them; the other's names the champion.
    let champion = Self.tournamentMatch(round: 3, of: 3, seat: .one) {
      $0.phase = .finished
      $0.champion = "Ann"
    }
    let mine = makeProps(view: champion, context: context)
    #expect(mine.banner == "YOU ARE THE CHAMPION!", "\(mine)")
    #expect(mine.status.contains("Congratulations"), "\(mine.status)")
    let theirs = makeProps(
      view: Self.tournamentMatch(round: 3, of: 3, seat: .two) {
        $0.phase = .finished
        $0.champion = "Ann"
      }, context: context)
    #expect(theirs.status.contains("Ann is the champion"), "\(theirs.status)")
    // Every one of these fits 80×24 and 60×20.
    for props in [won, soon, knocked, byeProps, mine, theirs] {
      for (width, height) in [(80, 24), (60, 20)] {
        let lines = ScreenRenderer(width: width, height: height, color: false).lines(for: props)
        #expect(lines.count <= height)
        #expect(lines.joined(separator: " ").contains("q"))
      }
    }
  }

  @Test("a spectator of a finished match is told its result and that q goes back")
  func spectatorOfFinishedMatch() {
    let view = Self.tournamentMatch(round: 1, of: 3, seat: nil)
    let props = makeProps(view: view, context: ClientContext(connection: .connected))
    #expect(props.status.contains("Ann wins the match 2–0."), "\(props.status)")
    #expect(props.status.contains("Press q to go back."), "\(props.status)")
  }

  @Test("a spectator of a tournament match whose players moved on: its result, and where to go")
  func spectatorAfterTheRoundMovedOn() {
    // Round 2 is paired: Ann and Bob are in their next rooms; the room keeps its result.
    var view = Self.tournamentMatch(round: 1, of: 3, seat: nil) { $0.round = 2 }
    for index in view.players.indices { view.players[index].left = true }
    let props = makeProps(view: view, context: ClientContext(connection: .connected))
    #expect(
      props.status
        == "Ann wins the match 2–0. This match is over and the tournament is on round 2: "
        + "press q to go back and follow it from the lobby.")
    #expect(props.players.map(\.status) == ["gone after the match", "gone after the match"])
    #expect(props.banner == "PLAYER 1 WINS! Ann wins.")
  }

  @Test("a grace that ran out is not giving up: the screens say which it was, in one line")
  func didNotComeBack() {
    var room = Self.roundWon(in: "duel-1")
    room.apply(.disconnected(seat: .two, at: 3_000))
    room.apply(.graceExpired(seat: .two, at: 33_000))
    let props = makeProps(view: room.view(for: .one), context: connected)
    #expect(
      props.status
        == "Bob did not come back in time (round 2): you win by forfeit. The match is over: "
        + "press q to go back.")
    #expect(props.reveal == nil, "the status line alone says it")
    #expect(props.players.map(\.status) == ["connected", "did not come back"])
    let watching = makeProps(view: room.view(for: nil), context: connected)
    #expect(
      watching.status.hasPrefix("Bob did not come back in time (round 2): Alice wins by forfeit."))
    // The same match given up by leaving says so.
    var left = Self.roundWon(in: "duel-2")
    left.apply(.left(seat: .two, at: 3_000))
    let gaveUp = makeProps(view: left.view(for: .one), context: connected)
    #expect(gaveUp.status.hasPrefix("Bob gave up the match in round 2: you win by forfeit."))
    #expect(gaveUp.players.map(\.status) == ["connected", "left"])
  }

  @Test("a walkover: the opponent withdrew from the tournament, said so in one line")
  func walkover() {
    // Ann withdrew: her seat is given up as the room opens, before any round.
    var room = RoomState(name: "cup-1-2-1", settings: .init(bestOf: 3))
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    var view = room.view(for: .two)
    view.phase = .over
    view.winner = .two
    view.players[0].left = true
    view.players[0].leftBy = .withdrew
    let props = makeProps(view: view, context: connected)
    #expect(props.status.hasPrefix("Ann withdrew from the tournament: you win by walkover."))
    #expect(props.reveal == nil)
    #expect(props.players.map(\.status) == ["withdrew", "connected"])
  }

  @Test("a tournament match won by forfeit, both players gone since: no lie seen, who gave up")
  func forfeitKeptAfterBothLeft() {
    var room = RoomState(name: "cup-1-1-1", settings: .init(bestOf: 3))
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    room.apply(.left(seat: .two, at: 1))
    room.apply(.left(seat: .one, at: 2))
    let view = room.view(for: nil)
    #expect(view.phase == .over && view.winner == .one)
    #expect(view.players.map(\.left) == [true, true])
    #expect(FairPlay.matchLie(in: view, me: nil) == nil)
    let props = makeProps(view: view, context: ClientContext(connection: .connected))
    #expect(
      props.status.hasPrefix("Bob gave up in round 1: Ann wins by forfeit."), "\(props.status)")
  }

  /// Alice and Bob in `room` (a challenge's `duel-N`, a quick match's `quick-N`, a named
  /// room), best of 3, Alice won round 1.
  static func roundWon(in room: String) -> RoomState {
    var state = RoomState(name: room, settings: .init(bestOf: 3, graceMillis: 30_000))
    state.apply(.playerJoined(name: "Alice", token: "t1", at: 1_000))
    state.apply(.playerJoined(name: "Bob", token: "t2", at: 2_000))
    play(&state, .scissors, .paper)
    return state
  }

  @Test("a challenge's match given up or left: over, q goes back, never a new opponent")
  func challengeMatchLeft() {
    var duel = Self.roundWon(in: "duel-1")
    duel.apply(.left(seat: .two, at: 3_000))
    let props = makeProps(view: duel.view(for: .one), context: connected)
    #expect(!props.status.contains("new opponent"), "\(props.status)")
    #expect(
      props.status
        == "Bob gave up the match in round 2: you win by forfeit. The match is over: press q to "
        + "go back.")
    #expect(props.keys == "[q] go back")
    // Played to its end, then Bob went back to the lobby: no rematch to offer either.
    var ended = Self.roundWon(in: "duel-2")
    play(&ended, .rock, .scissors)
    ended.apply(.left(seat: .two, at: 3_000))
    let after = makeProps(view: ended.view(for: .one), context: connected)
    #expect(
      after.status == "You win the match 2–0! Bob left: the match is over. Press q to go back.",
      "\(after.status)")
    #expect(after.keys == "[q] go back")
    // Quick match and a named room do take a new opponent in the free seat.
    for room in ["quick-1", "den"] {
      var other = Self.roundWon(in: room)
      other.apply(.left(seat: .two, at: 3_000))
      let status = makeProps(view: other.view(for: .one), context: connected).status
      #expect(status.hasSuffix("Waiting for a new opponent…"), "\(room): \(status)")
    }
  }

  @Test("a spectator's keys are the spectator's: q stops watching, or goes back after the match")
  func spectatorKeys() {
    var room = Self.roundWon(in: "duel-1")
    let watching = makeProps(view: room.view(for: nil), context: connected)
    #expect(watching.keys == "[q] stop watching", "\(watching.keys)")
    play(&room, .rock, .scissors)
    let over = makeProps(view: room.view(for: nil), context: connected)
    #expect(over.keys == "[q] go back", "\(over.keys)")
    #expect(over.status == "Alice wins the match 2–0. Press q to go back.")
    // Players keep theirs.
    #expect(makeProps(view: room.view(for: .one), context: connected).keys.contains("[q]uit"))
  }

  @Test("a tournament's last round: a bye, or a match over early, promises no next match")
  func tournamentLastRound() {
    let context = ClientContext(connection: .connected, now: 100_000)
    // Bob's round-2 match is over; round 3 of 3 gives him a bye: nothing comes after it.
    let bye = makeProps(
      view: Self.tournamentMatch(round: 2, of: 3, seat: .two) {
        $0.round = 3
        $0.byes = ["Bob"]
      }, context: context)
    #expect(bye.status.contains("You have a bye in round 3, the last"), "\(bye.status)")
    #expect(!bye.status.contains("next match"), "\(bye.status)")
    #expect(bye.status.contains("press q"), "\(bye.status)")
    // Ann won the last round's match; the champion is named once the others end, which
    // this room's screen does not hear of: the lobby shows it.
    let waiting = makeProps(
      view: Self.tournamentMatch(round: 3, of: 3, seat: .one), context: context)
    #expect(waiting.status.contains("press q"), "\(waiting.status)")
    // The next round should have started 20 s ago and no match came: a bye, said so.
    let late = makeProps(
      view: Self.tournamentMatch(round: 2, of: 3, seat: .one) { $0.startsAt = 80_000 },
      context: context)
    #expect(!late.status.contains("your match starts by itself"), "\(late.status)")
    #expect(late.status.contains("Round 3 has started"), "\(late.status)")
    // Just started: still on its way.
    let starting = makeProps(
      view: Self.tournamentMatch(round: 2, of: 3, seat: .one) { $0.startsAt = 99_000 },
      context: context)
    #expect(starting.status.contains("Round 3 is starting"), "\(starting.status)")
  }

  @Test("what stays on the terminal after the screen: a finished match's result, no keys")
  func lastWords() {
    var room = playingRoom()
    play(&room, .rock, .scissors)
    let running = makeProps(view: room.view(for: .one), context: connected)
    // What was printed before: the status of a match no longer played ("Your move.").
    #expect(running.status == "Your move.")
    #expect(running.lastWords == [])
    play(&room, .paper, .rock)
    let over = makeProps(view: room.view(for: .one), context: connected)
    // Before: banner, reveal and status, whose "Press [n] for a rematch." was stale.
    #expect(over.status.contains("Press [n] for a rematch."))
    #expect(
      over.lastWords == [
        "YOU WIN!", "You win the round: paper covers rock", "You win the match 2–0!",
      ])
    #expect(!over.lastWords.joined().contains("Press"))
  }
}
