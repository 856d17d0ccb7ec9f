import Foundation
import Sysexits

/// `roshambo bot`: finds the server, then runs a ``BotPlay`` and exits as it ended.
///
/// Invariant: the server is asked of the fleet's allocator for the bot's room (or quick
/// match) when there is an allocator, so the bot lands where its room is.
public struct BotPlayer: Sendable {
  public var access: ServerAccess
  public var settings: BotPlay.Settings

  public init(access: ServerAccess, settings: BotPlay.Settings) {
    self.access = access
    self.settings = settings
  }

  public func run() async throws {
    let access = self.access
    let resolved = try await access.resolve(for: settings.room.map { .room($0) } ?? .quickMatch)
    let settings = self.settings
    let ending = try await MainActor.run {
      BotPlay(
        settings, connect: { try await access.connect(resolved) },
        reconnect: access.reconnector(resolved),
        say: { line in
          print(line)
          fflush(nil)
        }, complain: { StandardError.complain($0) })
    }.run()
    try CommandExit.unlessSuccess(ExitStatus.of(ending))
  }
}
