/// A `Sendable` way into a store from another task or isolation domain.
///
/// `send(_:)` hops to the actor the store belongs to and dispatches there, so the
/// store itself is still touched by one executor only. If the store has gone away the
/// action is dropped. Invariant: `deliver` runs only on `isolation`.
public struct ActionSink<Action: Sendable>: Sendable {
  private let isolation: any Actor
  private let deliver: @Sendable (Action) -> Void

  init(isolation: any Actor, deliver: @escaping @Sendable (Action) -> Void) {
    self.isolation = isolation
    self.deliver = deliver
  }

  /// Dispatches `action` on the store's actor.
  public func send(_ action: Action) async {
    await Self.run(deliver, action, on: isolation)
  }

  /// Dispatches `action` on the store's actor; callable with function syntax.
  public func callAsFunction(_ action: Action) async {
    await send(action)
  }

  private static func run(
    _ deliver: @Sendable (Action) -> Void, _ action: Action, on actor: isolated any Actor
  ) {
    deliver(action)
  }
}
