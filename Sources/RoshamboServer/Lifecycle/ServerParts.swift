import NIOCore
import NIOPosix
import ServiceLifecycle

// The server's own long-lived parts, each a `Service` that runs until the group's
// graceful shutdown reaches it (or the task is cancelled) and then stops its part. Their
// order is `GameServer.services(alongside:observers:farewells:)`'s: the group starts them
// in that order and stops them in reverse.

/// Returns at the first request to stop (``StopRequests``), so that the group's graceful
/// shutdown begins; placed last, it is the first part stopped.
///
/// Invariant: it returns only before the group's shutdown has begun, or at its own turn in
/// it.
struct StopTrigger: Service {
  let requests: StopRequests

  func run() async throws {
    // Ends at the first request, or when the graceful shutdown (or cancellation) reaches
    // this part.
    await cancelWhenGracefulShutdown {
      for await _ in requests.firstRequest { break }
    }
  }
}

/// The game's listening socket: it takes connections once the group runs it, and stops
/// taking them when the shutdown reaches it (before the drain).
///
/// Invariant: no connection is accepted before ``run()`` or after it returns.
struct GameListener: Service {
  let channel: any Channel

  func run() async throws {
    try await channel.setOption(ChannelOptions.autoRead, value: true).get()
    try? await gracefulShutdown()
    try? await channel.close()
  }
}

/// The drain: when the shutdown reaches it, every connection is told the server closes,
/// nothing new starts, and it returns once no match is under way, the first request's
/// limit passes, or a later request ends it (``StopRequests``).
///
/// Invariant: it comes after the listener and the announcer have stopped, and before the
/// hub stops, so the matches it waits for can finish.
struct Drain: Service {
  let hub: HubHandle
  let requests: StopRequests

  func run() async throws {
    try? await gracefulShutdown()
    let drain = requests.beginDrain()
    // Stopped without a request (an embedding program's or a test's): no drain.
    guard let limit = drain.limit else { return }
    let millis =
      limit.components.seconds * 1_000 + limit.components.attoseconds / 1_000_000_000_000_000
    let (running, ended) = try await hub.submit { $0.beginDrain(withinMillis: millis) }.get()
    drain.started(running)
    try? await ended.get()
  }
}

/// The hub, the connections it serves and the event loops they run on: when the shutdown
/// reaches it, everything pending is made durable and sent, every connection is closed
/// with close_notify, and the loops stop.
///
/// Invariant: the parts that ask the hub anything (the drain, the shipper, the fleet link,
/// the operations endpoint) have stopped before it does, and the journal closes only
/// after it has stopped.
struct HubService: Service {
  let hub: HubHandle
  let connections: GameServer.Connections
  let group: MultiThreadedEventLoopGroup
  let requests: StopRequests

  func run() async throws {
    try? await gracefulShutdown()
    try await hub.submit { $0.shutdown() }.flatMap { $0 }.get()
    for channel in connections.all {
      try? await channel.close()
      // Closed means its handlers have run too, so its last word to the hub is queued.
      try? await channel.closeFuture.get()
    }
    // What the closes handed the hub (seats into their grace) is done and its timers
    // cancelled, so nothing is scheduled on a loop after it has shut down.
    try await hub.submit { $0.shutdown() }.flatMap { $0 }.get()
    requests.loopStopping()
    try await group.shutdownGracefully()
  }
}

/// The journal, open while the server runs: it closes when the shutdown reaches it, once
/// the hub has made everything durable.
///
/// Invariant: no commit is asked of it after it closes (the hub has stopped first).
struct JournalService: Service {
  let journal: any HubJournal

  func run() async throws {
    try? await gracefulShutdown()
    try await journal.close()
  }
}

extension Announcer: Service {
  /// Announces until the shutdown reaches it (before the listener stops).
  func run() async throws {
    try? await gracefulShutdown()
    await stop()
  }
}
