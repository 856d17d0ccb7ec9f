import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits
import UnixSignals

/// The running server as the executable serves it: tells how to join once SIGTERM and
/// SIGINT are trapped, serves, and on the first signal drains (``GameServer/drainAndStop(within:started:)``)
/// for `drainLimit(signal)`; a second signal ends the drain at once. Agones setting the
/// GameServer to `Shutdown` counts as a SIGTERM. The group's graceful
/// shutdown (standard input closed, for `--ephemeral`) stops it without waiting.
struct ListeningServer: Service {
  let server: GameServer
  let logger: Logger
  /// How long a drain started by this signal may last.
  let drainLimit: @Sendable (UnixSignal) -> Duration
  /// Prints the "listening on" line and how players join.
  let announce: @Sendable () -> Void

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
    announce()
    // Each request to stop, in order: the first drains, any later one ends the drain now.
    let (requests, request) = AsyncStream<Duration>.makeStream()
    let watcher = Task {
      for await signal in signals { request.yield(drainLimit(signal)) }
    }
    defer { watcher.cancel() }
    // Agones setting the GameServer to Shutdown drains as SIGTERM does.
    let fleet = Task { [server] in
      for await _ in server.shutdownRequests { request.yield(drainLimit(.sigterm)) }
    }
    defer { fleet.cancel() }
    try await withGracefulShutdownHandler {
      var iterator = requests.makeAsyncIterator()
      // Cancelled (nothing asked): stop without waiting.
      let limit = await iterator.next() ?? .zero
      let server = self.server
      async let drained: Void = {
        defer { request.finish() }
        try await server.drainAndStop(within: limit) { running in
          let seconds = Int(limit.components.seconds)
          print(
            running == 0
              ? "stopping: no match is under way; saving and closing connections"
              : "draining: \(running) match\(running == 1 ? "" : "es") under way may finish "
                + "within \(seconds) s (a second Ctrl-C or SIGTERM stops now); an unfinished "
                + "match resumes when the server starts again")
          fflush(nil)
        }
      }()
      while await iterator.next() != nil {
        logger.notice("asked again: stopping now; unfinished matches resume after a restart")
        server.endDrainNow()
      }
      try await drained
    } onGracefulShutdown: {
      request.yield(.zero)
    }
  }
}

/// Returns once standard input reaches its end (the parent of an `--ephemeral` server
/// closed it, or ended), or the group shuts down.
struct StandardInputClosed: Service {
  func run() async throws {
    let (ended, end) = AsyncStream<Never>.makeStream()
    Thread.detachNewThread {
      var byte: UInt8 = 0
      while read(0, &byte, 1) > 0 {}
      end.finish()
    }
    // Iterating ends when the stream does, or when the task is cancelled.
    await cancelWhenGracefulShutdown {
      for await _ in ended {}
    }
  }
}
