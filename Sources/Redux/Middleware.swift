/// A step every action passes through on its way to the reducer.
///
/// A middleware gets the context (state and dispatch), the action, and `next`, the
/// rest of the chain. It can pass the action on (`next(action)`), transform it
/// (`next(other)`), swallow it (not call `next`), or start asynchronous work that
/// dispatches later through `context.sink`. The reducer never does any of this: all
/// effects live here. Invariant: state changes only inside `next`, so the state read
/// before `next` is the state before the action and the state read after is the state
/// after it.
public struct Middleware<State, Action> {
  let body: (MiddlewareContext<State, Action>, Action, (Action) -> Void) -> Void

  /// A middleware from its full form.
  public init(
    _ body:
      @escaping (
        _ context: MiddlewareContext<State, Action>, _ action: Action, _ next: (Action) -> Void
      ) -> Void
  ) {
    self.body = body
  }

  /// A middleware that watches each action with the state before and after it, and
  /// passes every action on unchanged (for logs, journals, analytics).
  public static func observe(
    _ observer: @escaping (_ action: Action, _ before: State, _ after: State) -> Void
  ) -> Middleware {
    Middleware { context, action, next in
      let before = context.state
      next(action)
      observer(action, before, context.state)
    }
  }

  /// A middleware that runs `effect` after each action has been reduced, with the
  /// context so it can dispatch follow-ups or start asynchronous work.
  public static func effect(
    _ effect: @escaping (_ action: Action, _ context: MiddlewareContext<State, Action>) -> Void
  ) -> Middleware {
    Middleware { context, action, next in
      next(action)
      effect(action, context)
    }
  }
}
