/// A reducer that also says, as values, what an action calls for beyond the state (a
/// message to send, a file to write): its effects, returned in order for the store's
/// effect handler to carry out. The reducer stays pure: it describes the effects and
/// never performs them, so a test checks both with no I/O.
///
/// Invariant: ``reduce(into:effectsOf:)`` changes the state exactly as
/// ``Reducer/reduce(into:action:)`` does (the default one drops the effects); the effects
/// are the only addition.
public protocol EffectReducer<State, Action, Effect>: Reducer {
  associatedtype Effect

  /// Applies `action` to `state`, in place, and returns the effects it calls for, in the
  /// order they are to be carried out.
  func reduce(into state: inout State, effectsOf action: Action) -> [Effect]
}

extension EffectReducer {
  /// The change to the state alone, its effects dropped (to fold actions, as a replay or
  /// a test of the state does).
  public func reduce(into state: inout State, action: Action) {
    _ = reduce(into: &state, effectsOf: action)
  }
}

/// The effects an ``EffectReducer`` returned during one action, waiting for the store to
/// hand them to its effect handler.
///
/// Invariant: touched only by the store that owns it, on its isolation.
final class PendingEffects<Effect> {
  var effects: [Effect] = []
}

extension Store {
  /// A store whose reducer returns effects: after each action has been reduced and every
  /// subscriber told, `perform` is called with each effect, in order, with a context that
  /// reads the state and dispatches follow-ups (queued, as from middleware). The store
  /// belongs to the caller's isolation.
  public convenience init<R: EffectReducer>(
    initialState: State,
    reducer: R,
    middleware: [Middleware<State, Action>] = [],
    isolation: isolated (any Actor)? = #isolation,
    effects perform:
      @escaping (_ effect: R.Effect, _ context: MiddlewareContext<State, Action>)
      -> Void
  ) where R.State == State, R.Action == Action {
    let pending = PendingEffects<R.Effect>()
    self.init(
      initialState: initialState,
      reduce: { state, action in
        pending.effects.append(contentsOf: reducer.reduce(into: &state, effectsOf: action))
      },
      middleware: middleware, isolation: isolation)
    afterReduce = { [unowned self] in
      guard !pending.effects.isEmpty else { return }
      let effects = pending.effects
      pending.effects.removeAll()
      let context = MiddlewareContext(store: self)
      for effect in effects { perform(effect, context) }
    }
  }
}
