/// A live subscription to a store.
///
/// Invariant: after `cancel()` (or once this token is released) its subscriber is never
/// called again. Keep the token for as long as you want updates.
public final class Subscription {
  private var onCancel: (() -> Void)?

  init(onCancel: @escaping () -> Void) {
    self.onCancel = onCancel
  }

  /// Ends the subscription. Calling it again does nothing.
  public func cancel() {
    let action = onCancel
    onCancel = nil
    action?()
  }

  /// Whether the subscription has been cancelled.
  public var isCancelled: Bool { onCancel == nil }

  deinit {
    onCancel?()
  }
}
