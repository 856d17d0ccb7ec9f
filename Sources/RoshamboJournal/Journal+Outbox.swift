import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboServer

/// How many matches wait in a journal's history outbox, and how many left it unshipped
/// because it was full; kept by the journal's thread, read from any.
package final class OutboxLevel: Sendable {
  private let counts = NIOLockedValueBox((waiting: 0, dropped: 0))
  /// The most matches the outbox holds.
  package let bound: Int

  init(bound: Int) { self.bound = bound }

  /// Matches waiting to be shipped.
  package var waiting: Int { counts.withLockedValue { $0.waiting } }
  /// Matches dropped from the outbox since the journal was opened.
  package var dropped: Int { counts.withLockedValue { $0.dropped } }

  func set(waiting: Int, droppedMore: Int = 0) {
    counts.withLockedValue {
      $0.waiting = waiting
      $0.dropped += droppedMore
    }
  }
}

/// The outbox of a shared history: each match committed while the server ships history
/// has a row in `history_outbox`, written in the same transaction as the match, and keeps
/// it (and its match, which pruning then skips) until the shared history has it
/// (``acknowledgeShipped(_:)``). A crash between the two sends the match again, which the
/// history takes once (its key is this journal's id and the match's).
extension Journal {
  /// The id that names this journal's matches in a shared history, made when the journal
  /// was created (or first opened by a version that ships history).
  package func serverID() throws -> String {
    try database.read { db in
      try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'server_id'") ?? ""
    }
  }

  /// How many matches wait to be shipped.
  func unshippedCount() throws -> Int {
    try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM history_outbox") ?? 0 }
  }

  /// The shared history has these matches: they leave the outbox.
  package func acknowledgeShipped(_ ids: [Int64]) throws {
    guard !ids.isEmpty else { return }
    try writer.transaction {
      for id in ids { try writer.run("DELETE FROM history_outbox WHERE match_id = ?", .int(id)) }
    }
    // Some may have been dropped meanwhile: counted again rather than subtracted.
    outboxCount = try unshippedCount()
    outboxLevel.set(waiting: outboxCount)
  }

  /// Keeps the outbox, which holds `count` matches, within ``maxOutbox``, inside the
  /// commit that added to it: past the bound the oldest leave it, a tenth of the bound at
  /// once (so dropping, and saying so, happens seldom), down to 90 % of it; returns how
  /// many left. Their matches stay in the journal, kept and pruned as any others
  /// (``keepMatches``); only the shared history misses them.
  func trimOutbox(holding count: Int) throws -> Int {
    guard count > maxOutbox else { return 0 }
    let dropped = count - maxOutbox + max(1, maxOutbox / 10)
    try writer.run(
      """
      DELETE FROM history_outbox WHERE match_id IN
        (SELECT match_id FROM history_outbox ORDER BY match_id LIMIT ?)
      """, .int(Int64(dropped)))
    return dropped
  }
}
