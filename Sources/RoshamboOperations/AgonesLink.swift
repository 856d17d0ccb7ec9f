import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboJSON
import RoshamboServer
import ServiceLifecycle

/// The server as an Agones `GameServer`: it talks to the SDK server that runs beside it
/// (the sidecar; REST on 127.0.0.1, `AGONES_SDK_HTTP_PORT`, 9358 by default). It labels
/// itself with its version, says `Ready` once it listens (retrying while the sidecar is
/// still starting, which it may do after the game), says `Health` every
/// ``healthEvery`` for as long as the game's loop answers within ``loopPatience`` (a
/// stuck loop stops the pings, so Agones marks the server unhealthy), keeps the Counters
/// `players`, `rooms` and `waiting` and the List `rooms` at what the server holds (what
/// the allocator routes players by: ``FleetListing``), follows `/watch/gameserver` (it
/// logs being allocated, and asks for a drain when the GameServer is set to `Shutdown`),
/// and says `Shutdown` when it stops.
///
/// Invariant: `Ready` comes before any `Health`, Counter or List call, and `Shutdown` is
/// the last call made.
public final class AgonesLink: Service {
  static let healthEvery = Duration.seconds(2)
  static let loopPatience = Duration.seconds(1)
  static let longestRetry = Duration.seconds(4)
  /// How long the stop waits for the SDK server in all: the calls still running and
  /// `Shutdown` (each call alone may take up to 5 s).
  static let shutdownPatience = Duration.seconds(5)

  /// What the game holds now, asked of its loop, or nil when the loop did not answer in
  /// time.
  typealias Probe = @Sendable () async -> FleetListing.Report?

  public let port: Int
  private let version: String
  private let probe: Probe
  private let logger: Logger
  /// The blocking HTTP calls run here, never on the game's loop or the concurrency pool:
  /// one at a time, and a second thread so that `Shutdown` never waits behind a call
  /// given up on (``call(_:_:_:alsoDone:)``).
  private let calls = NIOThreadPool(numberOfThreads: 2)
  private let listing = NIOLockedValueBox(FleetListing())
  /// What the watch saw last: whether the GameServer was allocated, and whether a drain
  /// was asked for (once).
  private let seen = NIOLockedValueBox((allocated: false, shutdown: false))
  private let shutdownAsked: AsyncStream<Void>.Continuation

  /// One element when the GameServer is set to `Shutdown` (by the game's operator or a
  /// backend, through Kubernetes): the server should drain and stop, as on SIGTERM.
  public let shutdownRequests: AsyncStream<Void>

  init(port: Int, version: String, logger: Logger, probe: @escaping Probe) {
    self.port = port
    self.version = version
    self.probe = probe
    self.logger = logger
    (shutdownRequests, shutdownAsked) = AsyncStream.makeStream()
    calls.start()
  }

  /// Milliseconds on a monotonic clock, for ``FleetListing``'s graces.
  private static func now() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds / 1_000_000) }

  /// Says `Shutdown` (once), waiting for the SDK server ``shutdownPatience`` at most: a
  /// sidecar that does not answer by then is left behind, said in the log, and the stop
  /// goes on. Called by ``AgonesFarewell`` once everything else has stopped.
  func sayShutdown() async {
    shutdownAsked.finish()
    let saying = Task { try await self.call("POST", "/shutdown", "{}") }
    let timer = Task {
      try await Task.sleep(for: Self.shutdownPatience)
      saying.cancel()
    }
    let said = await saying.result
    timer.cancel()
    if case .failure(let error) = said {
      logger.warning(
        """
        the Agones SDK server did not take Shutdown within \
        \(Self.shutdownPatience.components.seconds) s of the stop (\(error)); stopping without \
        it: Agones removes the pod when its grace period ends. Check the sidecar's logs
        """, metadata: ["sdk": "127.0.0.1:\(port)"])
    }
    // Not waited for: a call left hanging ends at its own limit, on its own thread.
    calls.shutdownGracefully { _ in }
  }

  /// Reports until the group's shutdown reaches it (after the drain, before the hub
  /// stops): the calls still running are given up on at once, and nothing asks the game's
  /// loop anything after it returns.
  public func run() async throws {
    await cancelWhenGracefulShutdown { await self.report() }
  }

  private func report() async {
    // Ready (and the label) first, however long the sidecar takes to come up.
    var wait = Duration.milliseconds(250)
    var said = false
    while !Task.isCancelled {
      do {
        try await call(
          "PUT", "/metadata/label", #"{"key":"version","value":"\#(version)"}"#)
        try await call("POST", "/ready", "{}")
        said = true
        logger.info("told Agones the server is ready", metadata: ["sdk": "127.0.0.1:\(port)"])
        break
      } catch {
        if wait == .milliseconds(250) {
          logger.notice(
            "the Agones SDK server does not answer yet; retrying",
            metadata: ["sdk": "127.0.0.1:\(port)", "error": "\(error)"])
        }
        try? await Task.sleep(for: wait)
        wait = min(wait * 2, Self.longestRetry)
      }
    }
    guard said else { return }
    await withDiscardingTaskGroup { group in
      group.addTask { await self.watch() }
      await self.ping()
      group.cancelAll()
    }
  }

  /// Health, the Counters and the List, every ``healthEvery``, while the game's loop
  /// answers.
  private func ping() async {
    while !Task.isCancelled {
      if let report = await probe() {
        _ = try? await call("POST", "/health", "{}")
        let calls = listing.withLockedValue { $0.calls(for: report, now: Self.now()) }
        for listed in calls where await make(listed) {
          listing.withLockedValue { $0.succeeded(listed) }
        }
      } else {
        logger.warning(
          "the game's loop did not answer within 1 s: no health ping to Agones this time")
      }
      try? await Task.sleep(for: Self.healthEvery)
    }
  }

  /// Makes one Counter or List call; whether it took effect (adding a name the List
  /// holds already, or removing one it does not hold, counts as done: the SDK server
  /// says "already exists" or "not found").
  private func make(_ listed: FleetListing.Call) async -> Bool {
    var body = JSONText(capacity: 64)
    let method: String
    let path: String
    // The SDK server refuses these with gRPC's Unknown (HTTP 500) and a message.
    var done: @Sendable (Int, String) -> Bool = { _, _ in false }
    switch listed {
    case .setCounter(let key, let count):
      (method, path) = ("PATCH", "/v1beta1/counters/\(key)")
      body.raw("{\"count\":\"")
      body.int(count)
      body.raw("\"}")
    case .addToList(let name), .removeFromList(let name):
      let adding = if case .addToList = listed { true } else { false }
      method = "POST"
      path = "/v1beta1/lists/\(FleetListing.roomsList):\(adding ? "addValue" : "removeValue")"
      body.raw("{\"value\":")
      body.string(name)
      body.raw("}")
      if adding {
        done = { status, body in status == 409 || body.contains("already exists") }
      } else {
        done = { status, body in status == 404 || body.contains("not found") }
      }
    }
    do {
      try await call(method, path, String(decoding: body.bytes, as: UTF8.self), alsoDone: done)
      return true
    } catch {
      logger.debug("an Agones SDK call failed", metadata: ["error": "\(error)"])
      return false
    }
  }

  /// Follows `/watch/gameserver` for as long as the link runs, reconnecting after a
  /// pause when the stream ends or fails.
  private func watch() async {
    var wait = Duration.milliseconds(250)
    while !Task.isCancelled {
      do {
        try await GameServerWatch.follow(port: port, group: MultiThreadedEventLoopGroup.singleton) {
          self.observe($0)
        }
        wait = .milliseconds(250)
      } catch {
        logger.debug(
          "watching the GameServer failed; watching again", metadata: ["error": "\(error)"])
      }
      try? await Task.sleep(for: wait)
      wait = min(wait * 2, Self.longestRetry)
    }
  }

  private func observe(_ server: WatchedGameServer) {
    listing.withLockedValue {
      $0.observe(counts: server.counts, listed: server.lists[FleetListing.roomsList])
    }
    let (allocated, shutdown) = seen.withLockedValue { seen in
      let now = (
        allocated: !seen.allocated && server.state == "Allocated",
        shutdown: !seen.shutdown && server.state == "Shutdown"
      )
      seen.allocated = seen.allocated || now.allocated
      seen.shutdown = seen.shutdown || now.shutdown
      return now
    }
    if allocated {
      logger.info("Agones allocated this server: its allocator routes players here")
    }
    if shutdown {
      logger.notice("Agones set this GameServer to Shutdown: draining, as on SIGTERM")
      shutdownAsked.yield()
    }
  }

  /// One call to the SDK server; fails unless it answers 2xx. Cancelled, it throws at
  /// once: the request is left to end on its thread (within its 5 s limit), so a slow
  /// sidecar cannot hold the stop.
  @discardableResult
  private func call(
    _ method: String, _ path: String, _ body: String,
    alsoDone: @Sendable (Int, String) -> Bool = { _, _ in false }
  ) async throws -> String {
    try Task.checkCancellation()
    let port = self.port
    let asked = calls.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) {
      try OperationsClient.request(
        method, host: "127.0.0.1", port: port, path: path, body: body,
        advice: "is the Agones SDK server running beside the game?")
    }
    let waiting = NIOLockedValueBox<CheckedContinuation<(status: Int, body: String), any Error>?>(
      nil)
    @Sendable func end(_ result: Result<(status: Int, body: String), any Error>) {
      waiting.withLockedValue { continuation in
        defer { continuation = nil }
        return continuation
      }?.resume(with: result)
    }
    let answer = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        waiting.withLockedValue { $0 = continuation }
        if Task.isCancelled { end(.failure(CancellationError())) }
        asked.whenComplete { end($0) }
      }
    } onCancel: {
      end(.failure(CancellationError()))
    }
    guard (200..<300).contains(answer.status) || alsoDone(answer.status, answer.body) else {
      throw OperationsClient.Failure(
        description: "the Agones SDK server answered \(method) \(path) with \(answer.status)")
    }
    return answer.body
  }
}

/// Tells Agones the server is gone (`POST /shutdown`, ``AgonesLink/sayShutdown()``) when
/// the group's shutdown reaches it: it runs first, so it is told last, after the journal
/// has closed.
///
/// Invariant: `Shutdown` is the last call the link makes.
struct AgonesFarewell: Service {
  let link: AgonesLink

  func run() async throws {
    try? await gracefulShutdown()
    await link.sayShutdown()
  }
}
