/// Where a player's outputs are carried out: a terminal program's connection, timers and
/// files (`PlayerDriver`), an arena seat's channel (`ArenaSeat`), a simulated person's
/// virtual network (the simulator). Each runs the same ``PlayerRunner``, so the loop that
/// feeds ``PlayerCore`` and the order its outputs are carried out in are one code.
///
/// Invariant: ``perform(_:state:)`` never calls ``PlayerCore/handle(_:now:)``; what an
/// output causes at once (a nonce made, a connection made) goes back through
/// ``PlayerRunner/handle(_:in:)``, which queues it behind the outputs still to carry out.
package protocol PlayerWorld: AnyObject {
  /// The world's clock, in ms on a clock that only rises (the core's `now`).
  var now: Int64 { get }
  /// Carries out `output`; `state` is the core's after the input that returned it.
  func perform(_ output: PlayerOutput, state: PlayerState)
}

/// The player's loop, the same in every world: takes an input, has ``PlayerCore`` handle
/// it, and carries out each ``PlayerOutput`` in order through its ``PlayerWorld``; an input
/// that arrives meanwhile (from the world, while an output is carried out) waits its turn.
///
/// Invariant: the core handles one input at a time, in the order they arrived, and every
/// output of one input is carried out before the next input is handled. Not `Sendable`:
/// it runs where its world runs (the main actor, a channel's event loop, the simulator's
/// one thread).
package final class PlayerRunner<World: PlayerWorld> {
  /// Set only by the runner's own loop.
  package private(set) var core: PlayerCore
  private var queued: [PlayerInput] = []
  private var handling = false

  package init(_ core: PlayerCore) {
    self.core = core
  }

  /// Hands `input` to the core, then carries out what it returns in `world`; called
  /// while that runs (by `world`), it queues `input` behind what is under way.
  package func handle(_ input: PlayerInput, in world: World) {
    queued.append(input)
    guard !handling else { return }
    handling = true
    defer { handling = false }
    var next = 0
    while next < queued.count {
      let input = queued[next]
      next += 1
      for output in core.handle(input, now: world.now) {
        world.perform(output, state: core.state)
      }
    }
    queued.removeAll(keepingCapacity: true)
  }
}
