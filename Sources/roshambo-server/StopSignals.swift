import Foundation
import Logging
import RoshamboServer
import ServiceLifecycle
import UnixSignals

/// The host's ways to stop the server: SIGTERM and SIGINT, trapped before the "listening
/// on" line is printed (``announce``), and Agones setting the GameServer to `Shutdown`
/// (as a SIGTERM). Each is a request to stop (``GameServer/requestStop(drainingWithin:started:)``):
/// the first drains for `drainLimit(signal)`, a later one ends the drain at once. It runs
/// beside the server's parts and stops after them, so a second signal is heard all
/// through the drain.
struct StopSignals: Service {
  let server: GameServer
  /// One element when Agones sets the GameServer to `Shutdown`.
  let fleetShutdown: AsyncStream<Void>
  /// How long a drain started by this signal may last.
  let drainLimit: @Sendable (UnixSignal) -> Duration
  /// Prints the "listening on" line and how players join.
  let announce: @Sendable () -> Void

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
    announce()
    let (server, fleetShutdown) = (self.server, self.fleetShutdown)
    let drainLimit = self.drainLimit
    @Sendable func stop(_ signal: UnixSignal) {
      let limit = drainLimit(signal)
      server.requestStop(drainingWithin: limit) { running in
        let seconds = Int(limit.components.seconds)
        print(
          running == 0
            ? "stopping: no match is under way; saving and closing connections"
            : "draining: \(running) match\(running == 1 ? "" : "es") under way may finish "
              + "within \(seconds) s (a second Ctrl-C or SIGTERM stops now); an unfinished "
              + "match resumes when the server starts again")
        fflush(nil)
      }
    }
    await cancelWhenGracefulShutdown {
      await withDiscardingTaskGroup { group in
        // Agones setting the GameServer to Shutdown drains as SIGTERM does.
        group.addTask {
          for await _ in fleetShutdown { stop(.sigterm) }
        }
        for await signal in signals { stop(signal) }
        group.cancelAll()
      }
    }
  }
}

/// Asks the server to stop, without a drain, once standard input reaches its end (the
/// parent of an `--ephemeral` server closed it, or ended).
struct StandardInputClosed: Service {
  let server: GameServer

  func run() async throws {
    let (ended, end) = AsyncStream<Never>.makeStream()
    Thread.detachNewThread {
      var byte: UInt8 = 0
      while read(0, &byte, 1) > 0 {}
      end.finish()
    }
    // Iterating ends when the stream does, or when the shutdown reaches this part.
    await cancelWhenGracefulShutdown {
      for await _ in ended {}
    }
    guard !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
    server.requestStop(drainingWithin: .zero)
    try? await gracefulShutdown()
  }
}
