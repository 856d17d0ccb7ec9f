import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The server as an Agones `GameServer`: it talks to the SDK server that runs beside it
/// (the sidecar; REST on 127.0.0.1, `AGONES_SDK_HTTP_PORT`, 9358 by default). It labels
/// itself with its version, says `Ready` once it listens (retrying while the sidecar is
/// still starting, which it may do after the game), says `Health` every
/// ``healthEvery`` for as long as the game's loop answers within ``loopPatience`` (a
/// stuck loop stops the pings, so Agones marks the server unhealthy), keeps the Counters
/// `players` and `rooms` at what the server holds, and says `Shutdown` when it stops.
///
/// Invariant: `Ready` comes before any `Health` or Counter, and `Shutdown` is the last
/// call made.
public final class AgonesLink: Sendable {
  static let healthEvery = Duration.seconds(2)
  static let loopPatience = Duration.seconds(1)
  static let longestRetry = Duration.seconds(4)

  /// What the game holds now, asked of its loop: players seated and rooms, or nil when the
  /// loop did not answer in time.
  typealias Probe = @Sendable () async -> (players: Int, rooms: Int)?

  public let port: Int
  private let version: String
  private let probe: Probe
  private let logger: Logger
  /// The blocking HTTP calls run here, never on the game's loop or the concurrency pool.
  private let calls = NIOThreadPool(numberOfThreads: 1)
  private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

  init(port: Int, version: String, logger: Logger, probe: @escaping Probe) {
    self.port = port
    self.version = version
    self.probe = probe
    self.logger = logger
    calls.start()
  }

  func start() {
    task.withLockedValue { task in
      guard task == nil else { return }
      task = Task { await self.run() }
    }
  }

  /// Stops the pings and says `Shutdown` (once; a sidecar that does not answer is not
  /// waited for past one attempt).
  func shutdown() async {
    let running = task.withLockedValue { task in
      defer { task = nil }
      return task
    }
    guard let running else { return }
    running.cancel()
    await running.value
    _ = try? await call("POST", "/shutdown", "{}")
    try? await calls.shutdownGracefully()
  }

  private func run() async {
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
    var reported: (players: Int, rooms: Int)?
    while !Task.isCancelled {
      if let now = await probe() {
        _ = try? await call("POST", "/health", "{}")
        if reported.map({ $0 != now }) ?? true {
          let players = try? await call(
            "PATCH", "/v1beta1/counters/players", #"{"count":"\#(now.players)"}"#)
          let rooms = try? await call(
            "PATCH", "/v1beta1/counters/rooms", #"{"count":"\#(now.rooms)"}"#)
          if players != nil, rooms != nil { reported = now }
        }
      } else {
        logger.warning(
          "the game's loop did not answer within 1 s: no health ping to Agones this time")
      }
      try? await Task.sleep(for: Self.healthEvery)
    }
  }

  /// One call to the SDK server; fails unless it answers 2xx.
  @discardableResult
  private func call(_ method: String, _ path: String, _ body: String) async throws -> String {
    let port = self.port
    let answer = try await calls.runIfActive {
      try OperationsClient.request(
        method, host: "127.0.0.1", port: port, path: path, body: body,
        advice: "is the Agones SDK server running beside the game?")
    }
    guard (200..<300).contains(answer.status) else {
      throw OperationsClient.Failure(
        description: "the Agones SDK server answered \(method) \(path) with \(answer.status)")
    }
    return answer.body
  }
}
