import Redux
import Testing

/// A counter that asks, as an effect, to be told when it passes a threshold, and to
/// rename itself afterwards.
struct ThresholdReducer: EffectReducer {
  typealias State = Counter
  typealias Action = CounterAction

  enum Effect: Equatable {
    case passed(Int)
    case follow(CounterAction)
  }

  func reduce(into state: inout Counter, effectsOf action: CounterAction) -> [Effect] {
    let before = state.count
    counterReducer.reduce(into: &state, action: action)
    guard before < 10, state.count >= 10 else { return [] }
    return [.passed(state.count), .follow(.rename("big"))]
  }
}

@MainActor
@Suite("Effect reducers")
struct EffectReducerTests {
  @Test("the store performs the returned effects in order, after the reducer and subscribers")
  func performsEffects() {
    var log: [String] = []
    let store = Store(initialState: Counter(), reducer: ThresholdReducer()) { effect, context in
      switch effect {
      case .passed(let count): log.append("passed \(count) at \(context.state.count)")
      case .follow(let action):
        log.append("follow")
        context.dispatch(action)
      }
    }
    let subscription = store.subscribe(select: \.count) { log.append("count \($0)") }
    store.dispatch(.add(4))
    store.dispatch(.add(7))
    store.dispatch(.add(1))
    #expect(log == ["count 0", "count 4", "count 11", "passed 11 at 11", "follow", "count 12"])
    // The follow-up was queued and reduced after the action that asked for it.
    #expect(store.state == Counter(count: 12, label: "big"))
    _ = subscription
  }

  @Test("folding without a store: the same state, the effects dropped or returned")
  func foldsWithoutStore() {
    var dropped = Counter()
    ThresholdReducer().reduce(into: &dropped, action: .add(12))
    var returned = Counter()
    let effects = ThresholdReducer().reduce(into: &returned, effectsOf: .add(12))
    #expect(dropped == returned)
    #expect(effects == [.passed(12), .follow(.rename("big"))])
  }

  @Test("a store of an effect reducer keeps its middleware")
  func keepsMiddleware() {
    var performed: [ThresholdReducer.Effect] = []
    let doubling = Middleware<Counter, CounterAction> { _, action, next in
      if case .add(let n) = action { next(.add(n * 2)) } else { next(action) }
    }
    let store = Store(
      initialState: Counter(), reducer: ThresholdReducer(), middleware: [doubling]
    ) { effect, _ in performed.append(effect) }
    store.dispatch(.add(5))
    #expect(store.state.count == 10)
    #expect(performed == [.passed(10), .follow(.rename("big"))])
  }
}
