/// A pure description of how an action changes a state.
///
/// A reducer mutates the state it is given in place and does nothing else: no I/O,
/// no clocks, no randomness, no dispatching. Whatever it needs (the time, a random
/// number) arrives inside the action. Because it mutates `inout` state, a dispatch
/// costs what the action changes, never a copy of the whole state.
///
/// Conform a feature type to it (`reduce(into:action:)`), or wrap a closure with
/// ``Reduce``. Compose reducers with ``Reducer/combined(with:)`` and lift a child
/// reducer into a parent with ``Reducer/lifted(state:action:)``.
public protocol Reducer<State, Action>: Sendable {
  associatedtype State
  associatedtype Action

  /// Applies `action` to `state`, in place.
  func reduce(into state: inout State, action: Action)
}

/// A reducer made from a closure.
///
/// Invariant: the closure is `@Sendable` and holds no mutable state of its own, so the
/// same `Reduce` value may serve any number of stores.
public struct Reduce<State, Action>: Reducer {
  @usableFromInline let body: @Sendable (inout State, Action) -> Void

  /// A reducer that mutates the state in place.
  @inlinable
  public init(_ body: @escaping @Sendable (inout State, Action) -> Void) {
    self.body = body
  }

  /// Adapts a pure `(State, Action) -> State` function, the classic Redux shape.
  ///
  /// The function returns a new value, so the store's state is replaced on every
  /// dispatch; for a large state prefer the `inout` form, which changes only what
  /// the action touches.
  @inlinable
  public init(pure: @escaping @Sendable (State, Action) -> State) {
    self.body = { state, action in state = pure(state, action) }
  }

  /// Wraps any reducer, erasing its type.
  @inlinable
  public init<R: Reducer>(_ reducer: R) where R.State == State, R.Action == Action {
    self.body = { state, action in reducer.reduce(into: &state, action: action) }
  }

  @inlinable
  public func reduce(into state: inout State, action: Action) {
    body(&state, action)
  }
}

/// Two reducers of the same state and action, run one after the other.
///
/// Invariant: `first` always sees the action before `second`, and `second` sees the
/// state as `first` left it.
public struct CombinedReducer<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
  public let first: First
  public let second: Second

  @inlinable
  public init(_ first: First, _ second: Second) {
    self.first = first
    self.second = second
  }

  @inlinable
  public func reduce(into state: inout First.State, action: First.Action) {
    first.reduce(into: &state, action: action)
    second.reduce(into: &state, action: action)
  }
}

/// A child reducer lifted into a parent state and action.
///
/// The child runs only for parent actions that `extract` maps to a child action, and
/// only on the part of the parent state at `state`; every other action passes by
/// untouched. Invariant: the child never sees or changes anything outside its key path.
public struct LiftedReducer<Child: Reducer, ParentState, ParentAction>: Reducer {
  public let child: Child
  public let state: WritableKeyPath<ParentState, Child.State> & Sendable
  public let extract: @Sendable (ParentAction) -> Child.Action?

  @inlinable
  public init(
    _ child: Child,
    state: WritableKeyPath<ParentState, Child.State> & Sendable,
    action extract: @escaping @Sendable (ParentAction) -> Child.Action?
  ) {
    self.child = child
    self.state = state
    self.extract = extract
  }

  @inlinable
  public func reduce(into parent: inout ParentState, action: ParentAction) {
    guard let childAction = extract(action) else { return }
    child.reduce(into: &parent[keyPath: state], action: childAction)
  }
}

extension Reducer {
  /// This reducer, then `other`, on the same state and action.
  @inlinable
  public func combined<Other: Reducer>(with other: Other) -> CombinedReducer<Self, Other>
  where Other.State == State, Other.Action == Action {
    CombinedReducer(self, other)
  }

  /// This reducer lifted into a parent: it runs on `parent[keyPath: state]` for every
  /// parent action that `action` maps to one of its own (typically an enum case's
  /// payload: `{ if case .counter(let a) = $0 { a } else { nil } }`).
  @inlinable
  public func lifted<ParentState, ParentAction>(
    state: WritableKeyPath<ParentState, State> & Sendable,
    action: @escaping @Sendable (ParentAction) -> Action?
  ) -> LiftedReducer<Self, ParentState, ParentAction> {
    LiftedReducer(self, state: state, action: action)
  }
}

/// Combines any number of reducers of the same state and action, run in order.
@inlinable
public func combineReducers<State, Action>(
  _ reducers: any Reducer<State, Action>...
) -> Reduce<State, Action> {
  let all = reducers
  return Reduce { state, action in
    for reducer in all {
      reducer.reduce(into: &state, action: action)
    }
  }
}

/// A child reducer lifted over the entries of a dictionary in the parent state.
///
/// For a parent action that `extract` maps to `(key, childAction)`, the child runs in
/// place on `parent[keyPath: entries][key]`; if there is no entry for the key, nothing
/// happens. Invariant: one action touches at most one entry, and never copies the
/// dictionary.
public struct KeyedLiftedReducer<Child: Reducer, ParentState, ParentAction, Key: Hashable>: Reducer
{
  public let child: Child
  public let entries: WritableKeyPath<ParentState, [Key: Child.State]> & Sendable
  public let extract: @Sendable (ParentAction) -> (Key, Child.Action)?

  @inlinable
  public init(
    _ child: Child,
    entries: WritableKeyPath<ParentState, [Key: Child.State]> & Sendable,
    action extract: @escaping @Sendable (ParentAction) -> (Key, Child.Action)?
  ) {
    self.child = child
    self.entries = entries
    self.extract = extract
  }

  @inlinable
  public func reduce(into parent: inout ParentState, action: ParentAction) {
    guard let (key, childAction) = extract(action) else { return }
    guard let index = parent[keyPath: entries].index(forKey: key) else { return }
    child.reduce(into: &parent[keyPath: entries].values[index], action: childAction)
  }
}

extension Reducer {
  /// This reducer lifted over a dictionary of child states: it runs on the entry that
  /// `action` names, for every parent action that `action` maps to `(key, child action)`.
  @inlinable
  public func forEach<ParentState, ParentAction, Key: Hashable>(
    in entries: WritableKeyPath<ParentState, [Key: State]> & Sendable,
    action: @escaping @Sendable (ParentAction) -> (Key, Action)?
  ) -> KeyedLiftedReducer<Self, ParentState, ParentAction, Key> {
    KeyedLiftedReducer(self, entries: entries, action: action)
  }
}
