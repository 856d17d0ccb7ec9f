import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol
import RoshamboServer

/// Recovery: a damaged journal moved aside, and a new one from its last good state.
extension Journal {
  /// Moves a damaged journal aside (renamed, never deleted) and starts a new one in the
  /// same directory from the last good state: the snapshot and the rows before the first
  /// bad one (empty rooms if the snapshot itself is bad). Finished matches and the
  /// leaderboard are copied over; when a kept rating could not be one, every player is
  /// rated again from the matches kept. Returns where the old file went and what was lost.
  static func recover(directory: String, defaults: RoomState.Settings, keepMatches: Int)
    throws -> (movedTo: String, lobby: LobbyState, problem: String?)
  {
    let old = try Journal(directory: directory, keepMatches: keepMatches)
    var lobby = LobbyState(defaults: defaults)
    var problem: String?
    do {
      let loaded = try old.load(defaults: defaults, stopAtBadRow: true)
      lobby = loaded.lobby
      problem = loaded.badRow.map { "\($0)" }
    } catch {
      problem = "\(error)"
    }
    let rerate = old.badRatings != nil
    if case .badRating(_, let holder, let wrong) = old.badRatings {
      let rated =
        "the rating kept for \(holder) could not be one (\(wrong)): every player was rated "
        + "again from the matches kept"
      problem = problem.map { $0 + "; " + rated } ?? rated
    }
    old.waitForCheckpoints()
    try old.database.close()
    old.writer.close()
    let stamp = Int64(Date().timeIntervalSince1970)
    let movedTo = old.path + ".damaged-\(stamp)"
    for suffix in ["", "-wal", "-shm"]
    where FileManager.default.fileExists(atPath: old.path + suffix) {
      try FileManager.default.moveItem(atPath: old.path + suffix, toPath: movedTo + suffix)
    }
    let fresh = try Journal(directory: directory, keepMatches: keepMatches)
    try fresh.compact(lobby)
    // What the old file still has of matches and standings comes along.
    try? fresh.database.writeWithoutTransaction { db in
      try db.execute(sql: "ATTACH DATABASE ? AS old", arguments: [movedTo])
      do {
        try db.execute(sql: "INSERT INTO matches SELECT * FROM old.matches")
      } catch {
        // An old file from before "v7" has no `fair` column: its matches were not fair.
        try? db.execute(
          sql: """
            INSERT INTO matches (id, room, finished_at, ruleset, best_of, player1, player2,
              score1, score2, winner, forfeit)
            SELECT id, room, finished_at, ruleset, best_of, player1, player2, score1, score2,
              winner, forfeit FROM old.matches
            """)
      }
      try? db.execute(sql: "INSERT OR REPLACE INTO standings SELECT * FROM old.standings")
      try? db.execute(
        sql: "INSERT OR IGNORE INTO rated_opponents SELECT * FROM old.rated_opponents")
      // The standings hold the old file's matches through its fold mark (all of them, in
      // a file from before "v8").
      do {
        try db.execute(
          sql: "UPDATE standings_folded SET through = (SELECT through FROM old.standings_folded)")
      } catch {
        try? db.execute(
          sql: "UPDATE standings_folded SET through = (SELECT COALESCE(MAX(id), 0) FROM matches)")
      }
      try db.execute(sql: "DETACH DATABASE old")
      if rerate {
        try db.inTransaction {
          try Journal.rateKeptMatches(db)
          return .commit
        }
      }
    }
    return (movedTo, lobby, problem)
  }
}
