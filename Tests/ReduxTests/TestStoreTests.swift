import Redux
import ReduxTesting
import Testing

@MainActor
@Suite("TestStore")
struct TestStoreTests {
  @Test("passes when the stated change is exactly the real one")
  func exactChangePasses() {
    let store = TestStore(initialState: Counter(), reducer: counterReducer)
    store.send(.add(2)) { $0.count = 2 }
    store.send(.rename("a")) { $0.label = "a" }
    store.finish()
  }

  @Test("fails when an action changes something the test did not state")
  func unassertedChangeFails() {
    let store = TestStore(initialState: Counter(), reducer: counterReducer)
    withKnownIssue {
      store.send(.increment)
    } matching: { issue in
      issue.description.contains("differs from the expected change")
        && issue.description.contains("−   - count: 0\n+   - count: 1")
    }
  }

  @Test("fails when the stated change is wrong")
  func wrongChangeFails() {
    let store = TestStore(initialState: Counter(), reducer: counterReducer)
    withKnownIssue {
      store.send(.add(2)) { $0.count = 3 }
    }
    // After a failure the store continues from the real state.
    store.send(.increment) { $0.count = 3 }
  }

  @Test("fails when a received action is left unasserted")
  func unreceivedActionFails() {
    let echo = Middleware<Counter, CounterAction>.effect { action, context in
      if action == .increment { context.dispatch(.rename("echo")) }
    }
    let store = TestStore(initialState: Counter(), reducer: counterReducer, middleware: [echo])
    store.send(.increment) { $0.count = 1 }
    withKnownIssue {
      store.finish()
    } matching: { issue in
      issue.description.contains("unasserted")
    }
  }

  @Test("fails when the received action is not the expected one")
  func wrongReceivedActionFails() async {
    let echo = Middleware<Counter, CounterAction>.effect { action, context in
      if action == .increment { context.dispatch(.rename("echo")) }
    }
    let store = TestStore(initialState: Counter(), reducer: counterReducer, middleware: [echo])
    store.send(.increment) { $0.count = 1 }
    await withKnownIssue {
      await store.receive(.rename("other")) { $0.label = "echo" }
    }
  }

  @Test("fails when an expected action never arrives")
  func missingActionFails() async {
    let store = TestStore(initialState: Counter(), reducer: counterReducer)
    await withKnownIssue {
      await store.receive(.increment, timeout: .milliseconds(50))
    } matching: { issue in
      issue.description.contains("nothing arrived")
    }
  }
}
