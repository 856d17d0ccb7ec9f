import NIOCore

/// The `Sendable` way to the hub from other event loops: each call hops to the hub's loop.
///
/// Invariant: the hub is only ever touched on its own loop.
struct HubHandle: Sendable {
  let loop: any EventLoop
  private let hub: NIOLoopBound<HubDriver>

  init(_ hub: HubDriver) {
    self.loop = hub.loop
    self.hub = NIOLoopBound(hub, eventLoop: hub.loop)
  }

  func execute(_ body: @escaping @Sendable (HubDriver) -> Void) {
    loop.execute { body(self.hub.value) }
  }

  func submit<T: Sendable>(_ body: @escaping @Sendable (HubDriver) -> T) -> EventLoopFuture<T> {
    loop.submit { body(self.hub.value) }
  }
}
