import Redux
import Testing

struct Counter: Equatable {
  var count = 0
  var label = ""
}

enum CounterAction: Equatable, Sendable {
  case increment
  case add(Int)
  case rename(String)
}

let counterReducer = Reduce<Counter, CounterAction> { state, action in
  switch action {
  case .increment: state.count += 1
  case .add(let n): state.count += n
  case .rename(let label): state.label = label
  }
}

@MainActor
@Suite("Store")
struct StoreTests {
  @Test("the initial state is the store's state and a subscriber hears it at once")
  func initialStateOnSubscribe() {
    let store = Store(initialState: Counter(count: 7), reducer: counterReducer)
    var heard: [Int] = []
    let subscription = store.subscribe { heard.append($0.count) }
    #expect(store.state.count == 7)
    #expect(heard == [7])
    _ = subscription
  }

  @Test("dispatch reduces in place and notifies with the new state")
  func dispatchReduces() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var heard: [Int] = []
    let subscription = store.subscribe { heard.append($0.count) }
    store.dispatch(.increment)
    store.dispatch(.add(5))
    #expect(store.state.count == 6)
    #expect(heard == [0, 1, 6])
    _ = subscription
  }

  @Test("a pure (State, Action) -> State function works as the reducer")
  func pureReducer() {
    let store = Store<Int, Int>(initialState: 1, reducer: { state, action in state * action })
    store.dispatch(3)
    store.dispatch(4)
    #expect(store.state == 12)
  }

  @Test("a dispatch from a subscriber is queued: every subscriber sees every state in order")
  func dispatchFromSubscriberIsBreadthFirst() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var first: [Int] = []
    var second: [Int] = []
    let a = store.subscribe { state in
      first.append(state.count)
      if state.count == 1 {
        store.dispatch(.add(10))
        // Queued, not run yet: the state is unchanged until this dispatch finishes.
        #expect(store.state.count == 1)
      }
    }
    let b = store.subscribe { second.append($0.count) }
    store.dispatch(.increment)
    #expect(first == [0, 1, 11])
    #expect(second == [0, 1, 11])
    _ = (a, b)
  }

  @Test("queued dispatches run first in first out")
  func queuedDispatchesAreFIFO() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var labels: [String] = []
    let subscription = store.subscribe(select: \.label) { label in
      labels.append(label)
      if label == "start" {
        store.dispatch(.rename("one"))
        store.dispatch(.rename("two"))
      }
      if label == "one" {
        store.dispatch(.rename("three"))
      }
    }
    store.dispatch(.rename("start"))
    #expect(labels == ["", "start", "one", "two", "three"])
    _ = subscription
  }

  @Test("dispatching from inside a reducer stops with a message")
  func dispatchFromReducerTraps() async {
    await #expect(processExitsWith: .failure) {
      await MainActor.run {
        final class Holder { var store: Store<Int, Int>? }
        let holder = Holder()
        nonisolated(unsafe) let unsafeHolder = holder
        let store = Store<Int, Int>(
          initialState: 0,
          reducer: Reduce { state, action in
            state += action
            unsafeHolder.store?.dispatch(action)
          })
        holder.store = store
        store.dispatch(1)
      }
    }
  }

  @Test("a selector subscriber is called only when its value changes")
  func selectorSkipsRepeats() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var counts: [Int] = []
    var labels: [String] = []
    let a = store.subscribe(select: \.count) { counts.append($0) }
    let b = store.subscribe(select: { $0.label }) { labels.append($0) }
    store.dispatch(.increment)
    store.dispatch(.rename("x"))
    store.dispatch(.rename("x"))
    store.dispatch(.add(0))
    store.dispatch(.increment)
    #expect(counts == [0, 1, 2])
    #expect(labels == ["", "x"])
    _ = (a, b)
  }

  @Test("a custom duplicate test decides for values that are not Equatable")
  func customDuplicateTest() {
    struct Parity { var isEven: Bool }
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var heard: [Bool] = []
    let subscription = store.subscribe(
      select: { Parity(isEven: $0.count % 2 == 0) },
      isDuplicate: { $0.isEven == $1.isEven }
    ) { heard.append($0.isEven) }
    store.dispatch(.add(2))
    store.dispatch(.add(1))
    store.dispatch(.add(2))
    store.dispatch(.add(1))
    #expect(heard == [true, false, true])
    _ = subscription
  }

  @Test("subscribers are notified in the order they subscribed")
  func notificationOrder() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var order: [String] = []
    let subscriptions = ["a", "b", "c", "d"].map { name in
      store.subscribe { _ in order.append(name) }
    }
    order.removeAll()
    store.dispatch(.increment)
    #expect(order == ["a", "b", "c", "d"])
    _ = subscriptions
  }

  @Test("a cancelled or released subscription hears nothing more")
  func cancelAndRelease() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var cancelledHeard = 0
    var releasedHeard = 0
    let cancelled = store.subscribe { _ in cancelledHeard += 1 }
    var released: Subscription? = store.subscribe { _ in releasedHeard += 1 }
    #expect(released != nil)
    cancelled.cancel()
    released = nil
    store.dispatch(.increment)
    #expect(cancelledHeard == 1)
    #expect(releasedHeard == 1)
    #expect(cancelled.isCancelled)
    #expect(store.subscriberCount == 0)
  }

  @Test("cancelling a later subscriber during a notification stops it at once")
  func cancelDuringNotification() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var laterHeard: [Int] = []
    var later: Subscription?
    let first = store.subscribe { state in
      if state.count == 1 { later?.cancel() }
    }
    later = store.subscribe { laterHeard.append($0.count) }
    store.dispatch(.increment)
    store.dispatch(.increment)
    #expect(laterHeard == [0])
    #expect(store.subscriberCount == 1)
    _ = first
  }

  @Test("a subscriber added during a notification hears the current state once")
  func subscribeDuringNotification() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var added: [Subscription] = []
    var newcomer: [Int] = []
    let first = store.subscribe { state in
      if state.count == 1 {
        added.append(store.subscribe { newcomer.append($0.count) })
      }
    }
    store.dispatch(.increment)
    store.dispatch(.increment)
    #expect(newcomer == [1, 2])
    _ = (first, added)
  }

  @Test("a subscriber that cancels itself while being notified is not called again")
  func cancelSelfDuringNotification() {
    let store = Store(initialState: Counter(), reducer: counterReducer)
    var heard: [Int] = []
    var me: Subscription?
    me = store.subscribe { state in
      heard.append(state.count)
      if state.count == 1 { me?.cancel() }
    }
    store.dispatch(.increment)
    store.dispatch(.increment)
    #expect(heard == [0, 1])
  }
}
