import RoshamboGame
import RoshamboProtocol

/// Where the hub's outputs are carried out: timers, connections, the journal, the log,
/// the metrics. The server's is on a SwiftNIO event loop (`HubDriver`), the simulator's on
/// a virtual clock; both run the same ``HubRunner``, so the loop that feeds ``HubCore``
/// and the order its outputs are carried out in are one code.
///
/// Invariant: no requirement calls ``HubCore/handle(_:now:)``; what comes of an output
/// (a commit answered at once, a connection closed while written to) goes back through
/// ``HubRunner/handle(_:in:)``, which queues it behind the outputs still to carry out.
package protocol HubWorld: AnyObject {
  /// The world's clock, ms since 1970.
  var now: Int64 { get }
  /// While true the runner hands the core nothing more (a simulation that failed stops
  /// where it failed); what is queued is dropped.
  var halted: Bool { get }
  /// Runs `handle` (the core handling `input`) and returns what it returns: where a world
  /// times the core.
  func handling(_ input: HubInput, _ handle: () -> [HubOutput]) -> [HubOutput]

  /// Writes these frames (and closes) to these connections, in order.
  func deliver(_ deliveries: [Delivery])
  /// Fires `timer` at `at` (ms since 1970), replacing the one of that key if any.
  func schedule(_ timer: HubTimer, at: Int64)
  func cancel(_ timer: HubTimer)
  /// Makes `commit` durable; the answer is ``HubInput/committed(_:onJournalThread:)``.
  func commit(_ commit: JournalCommit)
  /// Answered with ``HubInput/snapshotWritten(_:)``.
  func writeSnapshot(_ lobby: LobbyState, through: Int64)
  /// Answered with ``HubInput/standingsRead(_:)``.
  func readStandings(leaders: Int, recent: Int)
  /// Answered with ``HubInput/recordRead(reading:_:)``.
  func readRecord(reading: Int, match: Int64)
  /// Answered with ``HubInput/reloaded(_:)``.
  func reload(defaults: RoomState.Settings)
  /// Answered with ``HubInput/probed(succeeded:)``.
  func probe(at: Int64)
  func log(_ line: HubLog)
  func count(_ counted: HubCount)
  /// A sentence for the host (``HostNews``).
  func news(_ sentence: String)
  /// What this server's name holders did, for the fleet's name book.
  func offerNames(_ offers: [NameOffer])
  /// The drain is over.
  func drained()
  /// Everything sealed is committed and sent (after ``HubInput/shutdown``).
  func idle()
}

extension HubWorld {
  package var halted: Bool { false }

  package func handling(_ input: HubInput, _ handle: () -> [HubOutput]) -> [HubOutput] {
    handle()
  }
}

/// The hub's loop, the same in every world: takes an input, has ``HubCore`` handle it,
/// and carries out each ``HubOutput`` in order through its ``HubWorld``; an input that
/// arrives meanwhile (from the world, while an output is carried out) waits its turn.
///
/// Invariant: the core handles one input at a time, in the order they arrived, and every
/// output of one input is carried out before the next input is handled. Not `Sendable`:
/// it runs where its world runs (the hub's event loop, the simulator's one thread).
///
/// Its loop is inlinable, so each world's module gets it specialized for that world.
package final class HubRunner<World: HubWorld> {
  /// Set only by the runner's own loop.
  @usableFromInline package internal(set) var core: HubCore
  @usableFromInline var queued: [HubInput] = []
  @usableFromInline var handling = false

  package init(_ core: HubCore) {
    self.core = core
  }

  /// Hands `input` to the core, then carries out what it returns in `world`; called
  /// while that runs (by `world`), it queues `input` behind what is under way.
  @inlinable
  package func handle(_ input: HubInput, in world: World) {
    queued.append(input)
    guard !handling else { return }
    handling = true
    defer { handling = false }
    var next = 0
    while next < queued.count, !world.halted {
      let input = queued[next]
      next += 1
      let now = world.now
      let outputs = world.handling(input) { core.handle(input, now: now) }
      for output in outputs { perform(output, in: world) }
    }
    queued.removeAll(keepingCapacity: true)
  }

  @inlinable
  func perform(_ output: HubOutput, in world: World) {
    switch output {
    case .deliver(let deliveries): world.deliver(deliveries)
    case .schedule(let timer, let at): world.schedule(timer, at: at)
    case .cancel(let timer): world.cancel(timer)
    case .commit(let commit): world.commit(commit)
    case .writeSnapshot(let lobby, let through): world.writeSnapshot(lobby, through: through)
    case .readStandings(let leaders, let recent):
      world.readStandings(leaders: leaders, recent: recent)
    case .readRecord(let reading, let match): world.readRecord(reading: reading, match: match)
    case .reload(let defaults): world.reload(defaults: defaults)
    case .probe(let at): world.probe(at: at)
    case .log(let line): world.log(line)
    case .count(let counted): world.count(counted)
    case .news(let sentence): world.news(sentence)
    case .offerNames(let offers): world.offerNames(offers)
    case .drained: world.drained()
    case .idle: world.idle()
    }
  }
}
