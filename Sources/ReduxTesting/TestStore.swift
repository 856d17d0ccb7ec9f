import Redux
import Testing

/// A store for tests that makes every change explicit.
///
/// `send(_:_:)` dispatches an action and takes a closure that applies, to the state
/// before, exactly the change the test expects; the test fails, with a line diff, when
/// the real state differs in any way. Actions that middleware dispatches as a
/// consequence (at once, or later from asynchronous work) must be asserted in order
/// with `receive(_:_:)`. Invariant: a test that ends (or sends again) while a received
/// action is still unasserted fails, so no change goes unnoticed.
@MainActor
public final class TestStore<State: Equatable, Action: Equatable & Sendable> {
  private let store: Store<State, Action>
  private var expected: State
  private var log: [(action: Action, after: State)] = []
  private var waiter: CheckedContinuation<Void, Never>?
  private var isSending = false
  private let reportFailure: (String, SourceLocation) -> Void

  /// Creates a test store with the reducer and middleware the real store would use.
  /// `reportFailure` records each failure (by default as an issue of the running test;
  /// the store's own tests collect them instead, to check what they say).
  public init<R: Reducer>(
    initialState: State,
    reducer: R,
    middleware: [Middleware<State, Action>] = [],
    reportFailure: @escaping (String, SourceLocation) -> Void = { message, location in
      Issue.record(Comment(rawValue: message), sourceLocation: location)
    }
  ) where R.State == State, R.Action == Action {
    self.reportFailure = reportFailure
    expected = initialState
    var recorder: ((Action, State) -> Void)?
    let recording = Middleware<State, Action> { context, action, next in
      next(action)
      recorder?(action, context.state)
    }
    store = Store(
      initialState: initialState, reducer: reducer, middleware: [recording] + middleware)
    recorder = { [unowned self] action, after in
      self.log.append((action, after))
      self.waiter?.resume()
      self.waiter = nil
    }
  }

  /// The store's current state.
  public var state: State { store.state }

  /// Sends `action`; `update` applies the expected change to the state before it.
  /// Omit `update` to assert that the action changes nothing.
  public func send(
    _ action: Action,
    _ update: (inout State) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    if !log.isEmpty {
      fail(
        "Sent \(action) while \(log.count) received action(s) were not asserted: "
          + "\(log.map { "\($0.action)" }.joined(separator: ", ")). Assert them with receive.",
        sourceLocation: sourceLocation)
      log.removeAll()
    }
    store.dispatch(action)
    guard !log.isEmpty else {
      fail("Sent \(action), but no action reached the reducer.", sourceLocation: sourceLocation)
      return
    }
    let first = log.removeFirst()
    if first.action != action {
      fail(
        "Sent \(action), but the reducer received \(first.action) (a middleware transformed it).",
        sourceLocation: sourceLocation)
    }
    check(first.after, update, label: "send(\(action))", sourceLocation: sourceLocation)
  }

  /// Asserts the next action that middleware dispatched, and the change it made.
  /// Waits (up to `timeout`) for actions that asynchronous work dispatches later.
  public func receive(
    _ action: Action,
    timeout: Duration = .seconds(5),
    _ update: (inout State) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    if log.isEmpty {
      await waitForAction(timeout: timeout)
    }
    guard !log.isEmpty else {
      fail(
        "Expected to receive \(action), but nothing arrived within \(timeout).",
        sourceLocation: sourceLocation)
      return
    }
    let next = log.removeFirst()
    if next.action != action {
      fail(
        "Expected to receive \(action), but received \(next.action).",
        sourceLocation: sourceLocation)
    }
    check(next.after, update, label: "receive(\(action))", sourceLocation: sourceLocation)
  }

  /// Fails the test if any received action is still unasserted.
  public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
    if !log.isEmpty {
      fail(
        "The test finished with \(log.count) unasserted received action(s): "
          + log.map { "\($0.action)" }.joined(separator: ", "),
        sourceLocation: sourceLocation)
      log.removeAll()
    }
  }

  private func check(
    _ actual: State,
    _ update: (inout State) -> Void,
    label: String,
    sourceLocation: SourceLocation
  ) {
    var want = expected
    update(&want)
    if want != actual {
      fail(
        "State after \(label) differs from the expected change (− expected, + actual):\n"
          + lineDiff(describe(want), describe(actual)),
        sourceLocation: sourceLocation)
    }
    expected = actual
  }

  /// Records a test failure with a message built at run time.
  private func fail(_ message: String, sourceLocation: SourceLocation) {
    reportFailure(message, sourceLocation)
  }

  private func waitForAction(timeout: Duration) async {
    let timer = Task { [weak self] in
      try? await Task.sleep(for: timeout)
      self?.waiter?.resume()
      self?.waiter = nil
    }
    await withCheckedContinuation { continuation in
      waiter = continuation
    }
    timer.cancel()
  }
}

/// The multi-line `dump` of a value, the form the diff compares.
func describe<T>(_ value: T) -> String {
  var text = ""
  dump(value, to: &text)
  return text
}

/// A line diff of two texts: common lines with two spaces, removed with `−`, added
/// with `+`. Longest common subsequence; states in tests are small.
func lineDiff(_ old: String, _ new: String) -> String {
  let a = old.split(separator: "\n", omittingEmptySubsequences: false)
  let b = new.split(separator: "\n", omittingEmptySubsequences: false)
  var lengths = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
  for i in stride(from: a.count - 1, through: 0, by: -1) {
    for j in stride(from: b.count - 1, through: 0, by: -1) {
      lengths[i][j] =
        a[i] == b[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
    }
  }
  var lines: [String] = []
  var i = 0
  var j = 0
  while i < a.count || j < b.count {
    if i < a.count, j < b.count, a[i] == b[j] {
      lines.append("  " + a[i])
      i += 1
      j += 1
    } else if i < a.count, j == b.count || lengths[i + 1][j] >= lengths[i][j + 1] {
      lines.append("− " + a[i])
      i += 1
    } else {
      lines.append("+ " + b[j])
      j += 1
    }
  }
  return lines.joined(separator: "\n")
}
