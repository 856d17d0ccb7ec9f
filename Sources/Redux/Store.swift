/// The one place a state lives and changes: actions go in, subscribers hear about
/// every new state, middleware sees every action on its way through.
///
/// **Executor.** A store belongs to the isolation domain it was created in (an actor,
/// `@MainActor`, or a task's own region): it is not `Sendable`, so the compiler keeps
/// every synchronous call on it in that one domain, and no lock or queue hop is needed
/// on the hot path. From anywhere else, send actions through ``sink`` (an
/// ``ActionSink``), which hops to the store's actor with `await`.
///
/// **Dispatch rule.** `dispatch(_:)` runs the action through the middleware, the reducer
/// and every subscriber before it returns. An action dispatched while that is under
/// way (by a subscriber or a middleware) is queued and runs after the current one has
/// finished, first in first out. Every subscriber therefore sees every state, in
/// order, and never a state out of order. Dispatching from inside the reducer is a
/// programmer error and traps with a message saying so.
///
/// **Subscriptions.** Subscribers are called in the order they subscribed, once at
/// once with the current state and then whenever their selected value changes. Each
/// ends when its ``Subscription`` is cancelled or released. Subscribing or cancelling
/// from inside a notification is safe: a cancelled subscriber hears nothing more, a
/// new one hears the current state once at subscription.
public final class Store<State, Action> {
  /// The current state. Read it freely; change it only by dispatching.
  @inlinable public var state: State { current }

  @usableFromInline var current: State
  @usableFromInline let reducer: (inout State, Action) -> Void
  @usableFromInline var pipeline: ((Action) -> Void)?
  @usableFromInline var subscribers: [SubscriberEntry<State>] = []
  @usableFromInline var hasCancelledSubscribers = false
  @usableFromInline var isDispatching = false
  @usableFromInline var isReducing = false
  @usableFromInline var queue: [Action] = []
  /// Runs after each action's reducer and subscribers: an effect reducer's effects.
  @usableFromInline var afterReduce: (() -> Void)?
  private let isolation: (any Actor)?

  /// Creates a store with its initial state, its reducer and its middleware, outermost
  /// first. The store belongs to the caller's isolation.
  public convenience init<R: Reducer>(
    initialState: State,
    reducer: R,
    middleware: [Middleware<State, Action>] = [],
    isolation: isolated (any Actor)? = #isolation
  ) where R.State == State, R.Action == Action {
    self.init(
      initialState: initialState, reduce: reducer.reduce(into:action:), middleware: middleware,
      isolation: isolation)
  }

  init(
    initialState: State,
    reduce: @escaping (inout State, Action) -> Void,
    middleware: [Middleware<State, Action>],
    isolation: isolated (any Actor)?
  ) {
    self.current = initialState
    self.reducer = reduce
    self.isolation = isolation
    if !middleware.isEmpty {
      var next: (Action) -> Void = { [unowned self] action in self.reduceAndNotify(action) }
      for layer in middleware.reversed() {
        let inner = next
        next = { [unowned self] action in layer.body(MiddlewareContext(store: self), action, inner)
        }
      }
      pipeline = next
    }
  }

  /// Creates a store from a pure `(State, Action) -> State` function.
  public convenience init(
    initialState: State,
    reducer: @escaping @Sendable (State, Action) -> State,
    middleware: [Middleware<State, Action>] = [],
    isolation: isolated (any Actor)? = #isolation
  ) {
    self.init(
      initialState: initialState, reducer: Reduce(pure: reducer), middleware: middleware,
      isolation: isolation)
  }

  /// Dispatches `action`: middleware, reducer, subscribers, then whatever was queued
  /// meanwhile. Re-entrant calls queue their action (see the dispatch rule above).
  @inlinable
  public func dispatch(_ action: Action) {
    if isReducing { dispatchedFromReducer() }
    if isDispatching {
      queue.append(action)
      return
    }
    isDispatching = true
    process(action)
    if !queue.isEmpty { drainQueue() }
    isDispatching = false
  }

  @usableFromInline
  func dispatchedFromReducer() -> Never {
    preconditionFailure(
      "Store.dispatch called from inside a reducer. Reducers must be pure: return the "
        + "change in the state and let middleware or a subscriber dispatch follow-ups.")
  }

  /// Runs every queued action, including those queued while draining, in order.
  @usableFromInline
  func drainQueue() {
    var head = 0
    while head < queue.count {
      let next = queue[head]
      head += 1
      process(next)
    }
    queue.removeAll(keepingCapacity: true)
  }

  @inlinable
  func process(_ action: Action) {
    if let pipeline {
      pipeline(action)
    } else {
      reduceAndNotify(action)
    }
  }

  /// The innermost step: the reducer, then every live subscriber in order.
  @inlinable
  func reduceAndNotify(_ action: Action) {
    isReducing = true
    reducer(&current, action)
    isReducing = false
    if !subscribers.isEmpty { notifySubscribers() }
    afterReduce?()
  }

  @inlinable
  func notifySubscribers() {
    // Subscribers added during this loop already heard the current state when they
    // subscribed, so they are not in the snapshot and are not told twice.
    // Iterating a snapshot keeps the loop safe when a subscriber subscribes (the live
    // array grows, the snapshot does not); a cancelled entry is skipped by its flag.
    let snapshot = subscribers
    let state = current
    snapshot.withUnsafeBufferPointer { entries in
      for index in entries.indices where entries[index].isActive {
        entries[index].receive(state)
      }
    }
    if hasCancelledSubscribers { removeCancelledSubscribers() }
  }

  @usableFromInline
  func removeCancelledSubscribers() {
    subscribers.removeAll { !$0.isActive }
    hasCancelledSubscribers = false
  }

  // MARK: - Subscribing

  /// Calls `onChange` with the current state now and with every new state after each
  /// action, whether or not it changed.
  public func subscribe(_ onChange: @escaping (State) -> Void) -> Subscription {
    addSubscriber(SubscriberEntry(receive: onChange))
  }

  /// Calls `onChange` with `select(state)` now and whenever it changes, as decided by
  /// `isDuplicate` (a selection equal to the last one delivered is skipped).
  public func subscribe<Value>(
    select: @escaping (State) -> Value,
    isDuplicate: @escaping (Value, Value) -> Bool,
    _ onChange: @escaping (Value) -> Void
  ) -> Subscription {
    var last: Value?
    return addSubscriber(
      SubscriberEntry { state in
        let value = select(state)
        if let previous = last, isDuplicate(previous, value) { return }
        last = value
        onChange(value)
      })
  }

  /// Calls `onChange` with `select(state)` now and whenever it changes (`==`). A key
  /// path works as the selector: `store.subscribe(select: \.score) { ... }`.
  public func subscribe<Value: Equatable>(
    select: @escaping (State) -> Value,
    _ onChange: @escaping (Value) -> Void
  ) -> Subscription {
    subscribe(select: select, isDuplicate: ==, onChange)
  }

  private func addSubscriber(_ entry: SubscriberEntry<State>) -> Subscription {
    subscribers.append(entry)
    entry.receive(current)
    return Subscription { [weak self, weak entry] in
      guard let entry, entry.isActive else { return }
      entry.isActive = false
      guard let self else { return }
      if self.isDispatching {
        self.hasCancelledSubscribers = true
      } else {
        self.subscribers.removeAll { $0 === entry }
      }
    }
  }

  /// The number of live subscriptions.
  public var subscriberCount: Int {
    subscribers.reduce(0) { $0 + ($1.isActive ? 1 : 0) }
  }

}

extension Store where Action: Sendable {
  /// A `Sendable` handle that dispatches into this store from any task, hopping to the
  /// actor the store belongs to. The store must have been created on an actor.
  public var sink: ActionSink<Action> {
    guard let isolation else {
      preconditionFailure(
        "Store.sink needs a store created on an actor (for example @MainActor or inside "
          + "an actor's method); this one was created outside any actor, so nothing can "
          + "safely dispatch into it from another task.")
    }
    let box = StoreBox(store: self)
    return ActionSink(isolation: isolation) { action in box.store?.dispatch(action) }
  }
}

/// A store's view of one subscriber.
///
/// Invariant: once `isActive` is false the subscriber is never called again.
@usableFromInline
final class SubscriberEntry<State> {
  @exclusivity(unchecked) @usableFromInline var isActive = true
  @usableFromInline let receive: (State) -> Void

  init(receive: @escaping (State) -> Void) {
    self.receive = receive
  }
}

/// A weak handle on a store, handed to other isolation domains inside an ``ActionSink``.
///
/// `@unchecked Sendable`: `store` is read only inside `ActionSink.send`, which first hops
/// to the actor the store belongs to, so the store is only ever touched on that actor.
final class StoreBox<State, Action>: @unchecked Sendable {
  weak var store: Store<State, Action>?

  init(store: Store<State, Action>) {
    self.store = store
  }
}

/// What a middleware sees of the store: the state (before `next` runs it is the state
/// before the action, after `next` it is the state after) and a way to dispatch more.
///
/// Invariant: a context is only valid during the middleware call that received it on
/// the store's own isolation; async work goes through ``sink`` instead.
public struct MiddlewareContext<State, Action> {
  unowned let store: Store<State, Action>

  /// The store's current state.
  public var state: State { store.state }

  /// Queues an action to run after the current dispatch finishes.
  public func dispatch(_ action: Action) {
    store.dispatch(action)
  }

}

extension MiddlewareContext where Action: Sendable {
  /// A handle for asynchronous work that dispatches later (a thunk, a load).
  public var sink: ActionSink<Action> { store.sink }
}
