import Foundation
import Logging
import ReduxTesting
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import Testing

func playingView(you: Seat? = .one, bobChose: Bool = false, ruleset: Ruleset.ID = .classic)
  -> RoomView
{
  var room = RoomState(name: "den", settings: .init(ruleset: ruleset, roundMillis: 20_000))
  room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
  room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
  if bobChose { room.apply(.chose(seat: .two, round: 1, weapon: .paper, at: 1)) }
  return room.view(for: you)
}

@MainActor
@Suite("Client store")
struct ClientStoreTests {
  @Test("a pick is pending at once, and confirmed when the server's view has it")
  func pendingThenConfirmed() {
    let store = TestStore(initialState: ClientState(), reducer: ClientReducer())
    let view = playingView()
    store.send(.synced(view: view, seq: 2)) {
      $0.view = view
      $0.seq = 2
    }
    store.send(.choose(.rock)) {
      $0.context.pendingPick = .rock
      $0.pickedRounds = [1]
    }
    #expect(store.state.props.status == "You picked rock (sending…)")
    store.send(.choose(.paper))  // one pick per round: ignored
    var confirmed = view
    confirmed.players[0].chosen = true
    confirmed.players[0].weapon = .rock
    store.send(.synced(view: confirmed, seq: 3)) {
      $0.view = confirmed
      $0.seq = 3
      $0.context.pendingPick = nil
    }
    #expect(store.state.props.status == "You picked rock. Waiting for Bob…")
    store.send(.synced(view: view, seq: 3))  // an old seq changes nothing
    store.finish()
  }

  @Test("a refusal from the server becomes the notice line")
  func notice() {
    let store = TestStore(initialState: ClientState(), reducer: ClientReducer())
    store.send(
      .serverError(ProtocolError(code: .alreadyChosen, message: "You already chose this round."))
    ) {
      $0.context.notice = "You already chose this round."
    }
    #expect(store.state.props.notice == "You already chose this round.")
  }

  @Test("spectators and weapons outside the ruleset cannot pick")
  func canPick() {
    var state = ClientState()
    state.view = playingView(you: nil)
    #expect(!state.canPick(.rock))
    state.view = playingView(you: .one)
    #expect(state.canPick(.rock))
    #expect(!state.canPick(.spock))
    state.view = playingView(you: .one, ruleset: .lizardSpock)
    #expect(state.canPick(.spock))
  }
}

@Suite("Bot strategies")
struct BotStrategyTests {
  func rounds(_ theirs: [Weapon]) -> [RoundResult] {
    theirs.enumerated().map {
      RoundResult(round: $0.offset + 1, weapons: [.rock, $0.element], winner: nil, reason: nil)
    }
  }

  @Test("fixed strategies always pick their weapon; cycle walks the ruleset")
  func fixed() {
    var random = SystemRandomNumberGenerator()
    #expect(
      BotStrategy.rock.pick(history: [], seat: .one, ruleset: .classic, random: &random) == .rock)
    #expect(
      BotStrategy.scissors.pick(
        history: rounds([.rock]), seat: .one, ruleset: .classic, random: &random) == .scissors)
    let cycle = (0..<4).map {
      BotStrategy.cycle.pick(
        history: rounds(Array(repeating: .rock, count: $0)), seat: .one, ruleset: .classic,
        random: &random)
    }
    #expect(cycle == [.rock, .paper, .scissors, .rock])
  }

  @Test("frequency beats the opponent's favourite; markov beats what usually follows")
  func adaptive() {
    var random = SystemRandomNumberGenerator()
    #expect(
      BotStrategy.frequency.pick(
        history: rounds([.paper, .paper, .rock]), seat: .one, ruleset: .classic, random: &random)
        == .scissors)
    // After rock the opponent has always played paper: expect paper, answer scissors.
    #expect(
      BotStrategy.markov.pick(
        history: rounds([.rock, .paper, .rock, .paper, .rock]), seat: .one, ruleset: .classic,
        random: &random) == .scissors)
  }

  @Test("every strategy picks only weapons of the ruleset", arguments: BotStrategy.allCases)
  func withinRuleset(strategy: BotStrategy) {
    var random = SystemRandomNumberGenerator()
    for ruleset in [Ruleset.classic, .lizardSpock] {
      for length in 0..<20 {
        let history = rounds((0..<length).map { ruleset.weapons[$0 % ruleset.weapons.count] })
        #expect(
          ruleset.allows(
            strategy.pick(history: history, seat: .one, ruleset: ruleset, random: &random)))
      }
    }
  }
}

@Suite("Screens as text")
struct ScreenTests {
  func screen(
    _ view: RoomView?, context: ClientContext = ClientContext(connection: .connected, now: 2_000),
    width: Int
  ) -> [String] {
    ScreenRenderer(width: width, color: false).lines(for: makeProps(view: view, context: context))
  }

  static func over() -> RoomView {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    for (a, b) in [(Weapon.rock, Weapon.scissors), (.paper, .rock)] {
      room.apply(.chose(seat: .one, round: room.round, weapon: a, at: 1))
      room.apply(.chose(seat: .two, round: room.round, weapon: b, at: 1))
    }
    return room.view(for: .one)
  }

  static func waiting() -> RoomView {
    var room = RoomState(name: "den")
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    return room.view(for: .one)
  }

  @Test("every screen fits 80 and 40 columns", arguments: [80, 40])
  func fits(width: Int) {
    let views: [RoomView?] = [
      nil, Self.waiting(), playingView(), playingView(bobChose: true), Self.over(),
    ]
    for view in views {
      for connection in [ClientContext.Connection.connected, .reconnecting(attempt: 3)] {
        let lines = screen(
          view, context: ClientContext(connection: connection, now: 2_000), width: width)
        #expect(lines.allSatisfy { $0.count <= width }, "\(lines)")
        #expect(lines.count <= 24)
      }
    }
  }

  @Test("a small terminal keeps the room and both scores on screen; the history gives way")
  func smallTerminal() {
    var room = RoomState(name: "den", settings: .init(bestOf: 99))
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    for _ in 0..<30 {
      room.apply(.chose(seat: .one, round: room.round, weapon: .rock, at: 1))
      room.apply(.chose(seat: .two, round: room.round, weapon: .rock, at: 1))
    }
    var context = ClientContext(connection: .reconnecting(attempt: 2), now: 2_000)
    context.notice = "A long notice from the server that takes more than one line at sixty columns."
    let props = makeProps(view: room.view(for: .two), context: context)
    for (width, height) in [(60, 20), (60, 12), (40, 10), (30, 6)] {
      let lines = ScreenRenderer(width: width, height: height, color: false).lines(for: props)
      #expect(lines.count <= height, "\(width)×\(height): \(lines)")
      #expect(lines.first?.hasPrefix("Room den · classic") == true, "\(width)×\(height)")
      #expect(lines.contains { $0.hasPrefix("P1 Alice") }, "\(width)×\(height): \(lines)")
      #expect(lines.contains { $0.hasPrefix("P2 Bob (you)") }, "\(width)×\(height): \(lines)")
      #expect(lines.allSatisfy { DisplayWidth.columns(of: $0) <= width })
    }
    // At 60×20 the screen keeps what it can of the history, the latest rounds.
    let lines = ScreenRenderer(width: 60, height: 20, color: false).lines(for: props)
    #expect(lines.count == 20)
    #expect(lines.contains("  30. Alice rock, you rock: draw"), "\(lines)")
    #expect(!lines.contains("  23. Alice rock, you rock: draw"), "\(lines)")
  }

  @Test("a long title wraps between its parts at 60 columns, never inside 'best of 1'")
  func titleWrapsBetweenParts() {
    let renderer = ScreenRenderer(width: 60, color: false)
    let title = "Room cup-12-2-14 · tournament, round 2 of 3 · classic · best of 1"
    let lines = renderer.wrapParts(title)
    #expect(lines == ["Room cup-12-2-14 · tournament, round 2 of 3 · classic ·", "best of 1"])
    #expect(
      renderer.wrapParts("Room den · classic · best of 3") == ["Room den · classic · best of 3"])
  }

  @Test("text is wrapped between words, never inside one")
  func wrapsAtWords() {
    let renderer = ScreenRenderer(width: 20, color: false)
    let lines = renderer.wrap("Alice wins the match 2–0. Press [n] for a rematch.")
    #expect(lines == ["Alice wins the match", "2–0. Press [n] for a", "rematch."])
  }

  @Test("the screens read as a player expects")
  func texts() {
    #expect(screen(Self.waiting(), width: 80).contains("Waiting for an opponent…"))
    let choosing = screen(playingView(), width: 80)
    #expect(choosing.contains("Choose your weapon: [r]ock [p]aper [s]cissors"))
    #expect(choosing.contains("Round 1 · 18 s left"))  // deadline 20 s after the start, now 2 s
    #expect(screen(playingView(bobChose: true), width: 80).contains("Bob has chosen. Your move."))
    let over = screen(Self.over(), width: 80)
    #expect(over.contains("YOU WIN!"))
    #expect(over.contains("You win the round: paper covers rock"))
    #expect(over.contains("  2. you paper, Bob rock: you win"))
    let narrow = screen(Self.over(), width: 40)
    #expect(narrow.joined(separator: " ").contains("You win the match 2–0!"))
    let reconnecting = screen(
      playingView(), context: ClientContext(connection: .reconnecting(attempt: 3)), width: 80)
    #expect(reconnecting.contains("Lost the connection to the server; reconnecting (attempt 3)…"))
  }

  @Test("colours only when asked for")
  func colours() {
    let props = makeProps(view: Self.over(), context: ClientContext(connection: .connected))
    #expect(!ScreenRenderer(width: 80, color: false).lines(for: props).joined().contains("\u{1B}["))
    #expect(
      ScreenRenderer(width: 80, color: true).lines(for: props).joined().contains(
        "\u{1B}[1;33mYOU WIN!"))
  }
}
