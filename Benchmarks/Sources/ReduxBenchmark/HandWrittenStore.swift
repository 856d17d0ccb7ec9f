/// The baseline: the smallest store that does the job, written by hand. A class with
/// `var state`, an `inout` reducer and an array of subscriber closures.
final class HandWrittenStore<State, Action> {
  var state: State
  let reducer: (inout State, Action) -> Void
  var subscribers: [(State) -> Void] = []

  init(state: State, reducer: @escaping (inout State, Action) -> Void) {
    self.state = state
    self.reducer = reducer
  }

  func dispatch(_ action: Action) {
    reducer(&state, action)
    for subscriber in subscribers {
      subscriber(state)
    }
  }
}
