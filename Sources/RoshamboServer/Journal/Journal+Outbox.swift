import GRDB
import RoshamboGame

/// The outbox of a shared history: each match committed while the server ships history
/// has a row in `history_outbox`, written in the same transaction as the match, and keeps
/// it (and its match, which pruning then skips) until the shared history has it
/// (``acknowledgeShipped(_:)``). A crash between the two sends the match again, which the
/// history takes once (its key is this journal's id and the match's).
extension Journal {
  /// The id that names this journal's matches in a shared history, made when the journal
  /// was created (or first opened by a version that ships history).
  func serverID() throws -> String {
    try database.read { db in
      try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'server_id'") ?? ""
    }
  }

  /// How many matches wait to be shipped.
  func unshippedCount() throws -> Int {
    try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM history_outbox") ?? 0 }
  }

  /// The shared history has these matches: they leave the outbox.
  func acknowledgeShipped(_ ids: [Int64]) throws {
    guard !ids.isEmpty else { return }
    try writer.transaction {
      for id in ids { try writer.run("DELETE FROM history_outbox WHERE match_id = ?", .int(id)) }
    }
  }
}
