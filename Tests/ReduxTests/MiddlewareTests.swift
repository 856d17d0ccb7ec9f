import Redux
import Testing

@MainActor
@Suite("Middleware")
struct MiddlewareTests {
  @Test("middleware sees each action with the state before and after it")
  func observesBeforeAndAfter() {
    var seen: [(CounterAction, Int, Int)] = []
    let store = Store(
      initialState: Counter(), reducer: counterReducer,
      middleware: [
        .observe { action, before, after in seen.append((action, before.count, after.count)) }
      ])
    store.dispatch(.increment)
    store.dispatch(.add(3))
    #expect(seen.map(\.0) == [.increment, .add(3)])
    #expect(seen.map(\.1) == [0, 1])
    #expect(seen.map(\.2) == [1, 4])
  }

  @Test("middleware can transform an action")
  func transforms() {
    let doubling = Middleware<Counter, CounterAction> { _, action, next in
      if case .add(let n) = action { next(.add(n * 2)) } else { next(action) }
    }
    let store = Store(initialState: Counter(), reducer: counterReducer, middleware: [doubling])
    store.dispatch(.add(5))
    store.dispatch(.increment)
    #expect(store.state.count == 11)
  }

  @Test("middleware can swallow an action: no reduce, no notification")
  func swallows() {
    let noRenames = Middleware<Counter, CounterAction> { _, action, next in
      if case .rename = action { return }
      next(action)
    }
    let store = Store(initialState: Counter(), reducer: counterReducer, middleware: [noRenames])
    var notifications = 0
    let subscription = store.subscribe { _ in notifications += 1 }
    store.dispatch(.rename("nope"))
    store.dispatch(.increment)
    #expect(store.state == Counter(count: 1, label: ""))
    #expect(notifications == 2)
    _ = subscription
  }

  @Test("middleware runs outermost first, each wrapping the next")
  func order() {
    var trace: [String] = []
    func layer(_ name: String) -> Middleware<Counter, CounterAction> {
      Middleware { _, action, next in
        trace.append("\(name)>")
        next(action)
        trace.append("<\(name)")
      }
    }
    let store = Store(
      initialState: Counter(), reducer: counterReducer, middleware: [layer("a"), layer("b")])
    store.dispatch(.increment)
    #expect(trace == ["a>", "b>", "<b", "<a"])
  }

  @Test("a dispatch from middleware is queued after the current action")
  func dispatchFromMiddlewareIsQueued() {
    var reduced: [CounterAction] = []
    let followUp = Middleware<Counter, CounterAction>.effect { action, context in
      if action == .increment {
        context.dispatch(.rename("after increment"))
        #expect(context.state.label == "")
      }
    }
    let store = Store(
      initialState: Counter(),
      reducer: counterReducer,
      middleware: [followUp, .observe { action, _, _ in reduced.append(action) }])
    store.dispatch(.increment)
    #expect(reduced == [.increment, .rename("after increment")])
    #expect(store.state.label == "after increment")
  }

  @Test("asynchronous work started by middleware dispatches later through the sink")
  func asyncThunk() async {
    let slowAdd = Middleware<Counter, CounterAction>.effect { action, context in
      guard case .rename("load") = action else { return }
      let sink = context.sink
      Task {
        let value = await Task.detached { 40 + 2 }.value
        await sink.send(.add(value))
      }
    }
    let store = Store(initialState: Counter(), reducer: counterReducer, middleware: [slowAdd])
    let values = AsyncStream<Int>.makeStream()
    let subscription = store.subscribe(select: \.count) { values.continuation.yield($0) }
    store.dispatch(.rename("load"))
    var iterator = values.stream.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    #expect(await iterator.next() == 42)
    _ = subscription
  }

  @Test("other tasks dispatch into the store through its sink, on its actor")
  func sinkFromOtherTasks() async {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    let sink = store.sink
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<100 {
        group.addTask { await sink.send(.increment) }
      }
    }
    #expect(store.state.count == 100)
  }
}

@Suite("Composition")
struct CompositionTests {
  struct App: Equatable {
    var counter = Counter()
    var log: [String] = []
  }

  enum AppAction: Equatable {
    case counter(CounterAction)
    case note(String)
  }

  static let logReducer = Reduce<App, AppAction> { state, action in
    if case .note(let text) = action { state.log.append(text) }
  }

  static let appReducer = combineReducers(
    counterReducer.lifted(
      state: \App.counter,
      action: { (action: AppAction) -> CounterAction? in
        if case .counter(let child) = action { child } else { nil }
      }),
    logReducer)

  @Test("a lifted child reducer runs on its key path for its own actions only")
  func lifted() {
    var state = App()
    Self.appReducer.reduce(into: &state, action: .counter(.add(2)))
    Self.appReducer.reduce(into: &state, action: .note("hi"))
    Self.appReducer.reduce(into: &state, action: .counter(.rename("c")))
    #expect(state == App(counter: Counter(count: 2, label: "c"), log: ["hi"]))
  }

  @Test("combined reducers run in order, the second seeing the first's result")
  func combinedOrder() {
    let first = Reduce<[String], String> { state, action in state.append("1:\(action)") }
    let second = Reduce<[String], String> { state, action in state.append("2:\(state.count)") }
    var state: [String] = []
    first.combined(with: second).reduce(into: &state, action: "x")
    #expect(state == ["1:x", "2:1"])
  }
}

@Suite("Keyed composition")
struct KeyedCompositionTests {
  struct Board: Equatable {
    var counters: [String: Counter] = [:]
  }

  static let boardReducer = counterReducer.forEach(
    in: \Board.counters,
    action: { (action: (String, CounterAction)) -> (String, CounterAction)? in action })

  @Test("a child reducer runs on the one dictionary entry the action names")
  func runsOnNamedEntry() {
    var board = Board(counters: ["a": Counter(), "b": Counter(count: 5)])
    Self.boardReducer.reduce(into: &board, action: ("b", .add(2)))
    Self.boardReducer.reduce(into: &board, action: ("a", .rename("x")))
    #expect(board.counters == ["a": Counter(count: 0, label: "x"), "b": Counter(count: 7)])
  }

  @Test("an action for a missing entry changes nothing")
  func missingEntry() {
    var board = Board(counters: ["a": Counter()])
    Self.boardReducer.reduce(into: &board, action: ("zzz", .increment))
    #expect(board == Board(counters: ["a": Counter()]))
  }
}
