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

  /// The failures a store reports, kept to be checked instead of failing this test.
  final class Failures {
    var messages: [String] = []
    func record(_ message: String, _: SourceLocation) { messages.append(message) }
  }

  @Test("fails when an action changes something the test did not state")
  func unassertedChangeFails() {
    let failures = Failures()
    let store = TestStore(
      initialState: Counter(), reducer: counterReducer, reportFailure: failures.record)
    store.send(.increment)
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("differs from the expected change") == true)
    #expect(failures.messages.first?.contains("−   - count: 0\n+   - count: 1") == true)
  }

  @Test("fails when the stated change is wrong")
  func wrongChangeFails() {
    let failures = Failures()
    let store = TestStore(
      initialState: Counter(), reducer: counterReducer, reportFailure: failures.record)
    store.send(.add(2)) { $0.count = 3 }
    #expect(failures.messages.count == 1)
    // After a failure the store continues from the real state.
    store.send(.increment) { $0.count = 3 }
    #expect(failures.messages.count == 1)
  }

  @Test("fails when a received action is left unasserted")
  func unreceivedActionFails() {
    let echo = Middleware<Counter, CounterAction>.effect { action, context in
      if action == .increment { context.dispatch(.rename("echo")) }
    }
    let failures = Failures()
    let store = TestStore(
      initialState: Counter(), reducer: counterReducer, middleware: [echo],
      reportFailure: failures.record)
    store.send(.increment) { $0.count = 1 }
    #expect(failures.messages.isEmpty)
    store.finish()
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("unasserted") == true)
  }

  @Test("fails when the received action is not the expected one")
  func wrongReceivedActionFails() async {
    let echo = Middleware<Counter, CounterAction>.effect { action, context in
      if action == .increment { context.dispatch(.rename("echo")) }
    }
    let failures = Failures()
    let store = TestStore(
      initialState: Counter(), reducer: counterReducer, middleware: [echo],
      reportFailure: failures.record)
    store.send(.increment) { $0.count = 1 }
    await store.receive(.rename("other")) { $0.label = "echo" }
    #expect(failures.messages.count == 1)
  }

  @Test("fails when an expected action never arrives")
  func missingActionFails() async {
    let failures = Failures()
    let store = TestStore(
      initialState: Counter(), reducer: counterReducer, reportFailure: failures.record)
    await store.receive(.increment, timeout: .milliseconds(50))
    #expect(failures.messages.count == 1)
    #expect(failures.messages.first?.contains("nothing arrived") == true)
  }
}
