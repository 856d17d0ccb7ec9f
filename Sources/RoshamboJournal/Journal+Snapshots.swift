import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboJournalFormat
import RoshamboProtocol
import RoshamboServer

/// Snapshots: the lobby written in parts, and the rows it includes dropped after.
extension Journal {
  /// Replaces snapshot and journal with one snapshot of `lobby`, which must be the
  /// lobby after every journaled action.
  func compact(_ lobby: LobbyState) throws {
    var snapshot = beginSnapshot(Self.snapshotParts(lobby), through: lastSeq)
    while try writeNextPart(of: &snapshot) {}
  }

  /// The most bytes of snapshot written in one transaction (8 pages): a commit asked
  /// while a part is written waits for it.
  static let snapshotPartSize = 32 * 1024

  /// A lobby as the snapshot stores it, in parts of at most ``snapshotPartSize`` bytes.
  /// Pure and `Sendable`, so the server encodes it away from the hub's loop: for
  /// thousands of rooms it takes tens of milliseconds.
  static func snapshotParts(_ lobby: LobbyState) -> [[UInt8]] {
    let bytes = JournalFormat.bytes(of: lobby)
    return stride(from: 0, to: bytes.count, by: snapshotPartSize).map {
      [UInt8](bytes[$0..<min($0 + snapshotPartSize, bytes.count)])
    }
  }

  /// A snapshot being written: the lobby after row `through`, in parts.
  struct PendingSnapshot: Sendable {
    let generation: Int64
    let through: Int64
    let parts: [[UInt8]]
    fileprivate var written = 0
    fileprivate var switched = false
    fileprivate var rowsLeft = true
  }

  /// Starts a snapshot of the lobby after row `through`, as `parts` made by
  /// ``snapshotParts(_:)``; ``writeNextPart(of:)`` writes it.
  func beginSnapshot(_ parts: [[UInt8]], through: Int64) -> PendingSnapshot {
    PendingSnapshot(generation: generation + 1, through: through, parts: parts)
  }

  /// Rows dropped per transaction once a snapshot has taken over (about 12 pages).
  static let cleanupBatch = 500

  /// Takes the snapshot's next step in one small transaction, and returns whether
  /// there are more: each part; then the switch (from here on loading starts from the
  /// new snapshot: until then it loads as before, so a crash in between loses
  /// nothing); then dropping the rows it includes and the old parts, a batch at a time
  /// (what a crash leaves of those is ignored, and dropped by the next snapshot).
  func writeNextPart(of snapshot: inout PendingSnapshot) throws -> Bool {
    if snapshot.written < snapshot.parts.count {
      try snapshot.parts[snapshot.written].withUnsafeBytes { bytes in
        try writer.transaction {
          try writer.run(
            "INSERT OR REPLACE INTO snapshot_part (generation, part, bytes) VALUES (?, ?, ?)",
            .int(snapshot.generation), .int(Int64(snapshot.written)), .blob(bytes))
        }
      }
      snapshot.written += 1
    } else if !snapshot.switched {
      try writer.transaction {
        try writer.run(
          """
          INSERT OR REPLACE INTO snapshot (id, state, through, generation) VALUES (1, '', ?, ?)
          """, .int(snapshot.through), .int(snapshot.generation))
      }
      generation = snapshot.generation
      snapshot.switched = true
    } else if snapshot.rowsLeft {
      snapshot.rowsLeft = try dropIncludedRows(through: snapshot.through)
    } else {
      try writer.transaction {
        try writer.run(
          """
          DELETE FROM snapshot_part WHERE rowid IN (
            SELECT rowid FROM snapshot_part WHERE generation != ? LIMIT 32)
          """, .int(snapshot.generation))
      }
      return writer.changes == 32
    }
    return true
  }

  /// One step of dropping the rows a snapshot through row `through` includes: a table
  /// holding only such rows is emptied at once; from a table that also holds later rows
  /// (after a snapshot that failed, or one taken without a turn of the tables) they go a
  /// batch at a time. Returns whether any may be left.
  private func dropIncludedRows(through: Int64) throws -> Bool {
    // A row that still holds finished matches is dropped only once they are in `matches`.
    try settleMatches()
    for table in Self.rowTables {
      let (first, last) = try writer.integers(
        "SELECT COALESCE(MIN(seq), 0), COALESCE(MAX(seq), 0) FROM \(table)")
      guard first != 0, first <= through else { continue }
      try writer.transaction {
        if last <= through {
          try writer.run("DELETE FROM \(table)")
        } else {
          try writer.run(
            """
            DELETE FROM \(table) WHERE seq IN (
              SELECT seq FROM \(table) WHERE seq <= ? ORDER BY seq LIMIT \(Self.cleanupBatch))
            """, .int(through))
        }
      }
      return true
    }
    return false
  }
}
