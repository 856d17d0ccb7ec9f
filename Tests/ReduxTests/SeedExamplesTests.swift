import Redux
import ReduxTesting
import Testing

// The seed examples the Redux library must cover, rebuilt on it.

// MARK: - Counter with an initial action and a subscriber

enum CounterSeed {
  struct State: Equatable { var counter = 0 }
  enum Action: Equatable, Sendable {
    case start(Int)
    case increase
    case decrease
  }
  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .start(let value): state.counter = value
    case .increase: state.counter += 1
    case .decrease: state.counter -= 1
    }
  }
}

// MARK: - Bank account

enum BankSeed {
  struct Account: Equatable { var balance = 0 }
  enum Action: Equatable, Sendable {
    case increaseMoney(Int)
    case decreaseMoney(Int)
  }
  /// The pure `(State, Action) -> State` shape of the seed.
  @Sendable static func reduce(_ account: Account, _ action: Action) -> Account {
    var account = account
    switch action {
    case .increaseMoney(let amount): account.balance += amount
    case .decreaseMoney(let amount): account.balance -= amount
    }
    return account
  }
}

// MARK: - Single-device rock-paper-scissors (ReduxPaperSwift)

enum PaperSeed {
  enum Weapon: Equatable, Sendable { case rock, paper, scissors }
  enum Player: Equatable { case one, two }
  enum Message: String, Equatable {
    case player1Choose = "PLAYER 1 - Choose your weapon:"
    case player2Choose = "PLAYER 2 - Choose your weapon:"
    case player1Wins = "PLAYER 1 WINS!"
    case player2Wins = "PLAYER 2 WINS!"
    case draw = "DRAW!"
  }
  struct State: Equatable {
    var message = Message.player1Choose
    var turn = Player.one
    var player1: Weapon?
    var player2: Weapon?
  }
  enum Action: Equatable, Sendable { case choose(Weapon) }

  static func beats(_ a: Weapon, _ b: Weapon) -> Bool {
    (a, b) == (.rock, .scissors) || (a, b) == (.paper, .rock) || (a, b) == (.scissors, .paper)
  }

  static let reducer = Reduce<State, Action> { state, action in
    guard case .choose(let weapon) = action else { return }
    switch state.turn {
    case .one:
      state = State(message: .player2Choose, turn: .two, player1: weapon)
    case .two:
      state.player2 = weapon
      state.turn = .one
      guard let first = state.player1 else { return }
      state.message =
        beats(first, weapon) ? .player1Wins : beats(weapon, first) ? .player2Wins : .draw
    }
  }
}

// MARK: - Chat screen loading messages through middleware

enum ChatSeed {
  struct Message: Equatable, Sendable {
    var author: String
    var text: String
  }
  struct State: Equatable {
    var messages: [Message] = []
    var isLoading = false
  }
  enum Action: Equatable, Sendable {
    case load
    case loaded([Message])
  }
  struct Props: Equatable {
    var title: String
    var rows: [String]
    var showsSpinner: Bool
  }

  static let reducer = Reduce<State, Action> { state, action in
    switch action {
    case .load: state.isLoading = true
    case .loaded(let messages):
      state.messages = messages
      state.isLoading = false
    }
  }

  /// The middleware that does the I/O the reducer never does.
  static func loading(
    _ fetch: @escaping @Sendable () async -> [Message]
  ) -> Middleware<State, Action> {
    .effect { action, context in
      guard action == .load else { return }
      let sink = context.sink
      Task { await sink.send(.loaded(await fetch())) }
    }
  }

  static func makeProps(from state: State) -> Props {
    Props(
      title: state.isLoading ? "Chat (loading…)" : "Chat (\(state.messages.count))",
      rows: state.messages.map { "\($0.author): \($0.text)" },
      showsSpinner: state.isLoading)
  }
}

@MainActor
@Suite("Seed examples")
struct SeedExamplesTests {
  @Test("counter: an initial action, then a subscriber that renders each count")
  func counter() {
    let store = Store(initialState: CounterSeed.State(), reducer: CounterSeed.reducer)
    store.dispatch(.start(10))
    var rendered: [String] = []
    let subscription = store.subscribe(select: \.counter) { rendered.append("Count: \($0)") }
    store.dispatch(.increase)
    store.dispatch(.increase)
    store.dispatch(.decrease)
    #expect(rendered == ["Count: 10", "Count: 11", "Count: 12", "Count: 11"])
    _ = subscription
  }

  @Test("bank account: IncreaseMoney and DecreaseMoney with a pure reducer")
  func bankAccount() {
    let store = TestStore(
      initialState: BankSeed.Account(), reducer: Reduce(pure: BankSeed.reduce))
    store.send(.increaseMoney(100)) { $0.balance = 100 }
    store.send(.decreaseMoney(30)) { $0.balance = 70 }
    store.send(.decreaseMoney(0))
    store.finish()
  }

  @Test(
    "rock-paper-scissors on one device",
    arguments: [
      (PaperSeed.Weapon.rock, PaperSeed.Weapon.scissors, PaperSeed.Message.player1Wins),
      (.rock, .paper, .player2Wins),
      (.paper, .paper, .draw),
      (.scissors, .paper, .player1Wins),
    ])
  func paper(first: PaperSeed.Weapon, second: PaperSeed.Weapon, result: PaperSeed.Message) {
    let store = TestStore(initialState: PaperSeed.State(), reducer: PaperSeed.reducer)
    #expect(store.state.message.rawValue == "PLAYER 1 - Choose your weapon:")
    store.send(.choose(first)) {
      $0.player1 = first
      $0.turn = .two
      $0.message = .player2Choose
    }
    store.send(.choose(second)) {
      $0.player2 = second
      $0.turn = .one
      $0.message = result
    }
    store.finish()
  }

  @Test("the seed's messages read as in the article")
  func paperMessages() {
    let store = Store(initialState: PaperSeed.State(), reducer: PaperSeed.reducer)
    var messages: [String] = []
    let subscription = store.subscribe(select: \.message.rawValue) { messages.append($0) }
    store.dispatch(.choose(.rock))
    store.dispatch(.choose(.paper))
    #expect(
      messages == [
        "PLAYER 1 - Choose your weapon:", "PLAYER 2 - Choose your weapon:", "PLAYER 2 WINS!",
      ]
    )
    _ = subscription
  }

  @Test("chat: middleware loads messages asynchronously; props come from a pure function")
  func chat() async {
    let fetched = [ChatSeed.Message(author: "ana", text: "hi"), .init(author: "bo", text: "yo")]
    let store = TestStore(
      initialState: ChatSeed.State(), reducer: ChatSeed.reducer,
      middleware: [ChatSeed.loading { fetched }])
    #expect(
      ChatSeed.makeProps(from: store.state)
        == ChatSeed.Props(title: "Chat (0)", rows: [], showsSpinner: false))
    store.send(.load) { $0.isLoading = true }
    #expect(ChatSeed.makeProps(from: store.state).showsSpinner)
    await store.receive(.loaded(fetched)) {
      $0.messages = fetched
      $0.isLoading = false
    }
    #expect(
      ChatSeed.makeProps(from: store.state)
        == ChatSeed.Props(title: "Chat (2)", rows: ["ana: hi", "bo: yo"], showsSpinner: false))
    store.finish()
  }
}
