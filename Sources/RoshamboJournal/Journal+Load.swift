import Foundation
import GRDB
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboHub
import RoshamboJournalFormat
import RoshamboProtocol
import RoshamboServer

/// Loading: the lobby as saved, the snapshot with every journaled row folded onto it.
extension Journal {
  /// The lobby as saved: the snapshot with every journaled action folded onto it. A
  /// snapshot or row that cannot be read or replayed, or a kept rating that cannot be one,
  /// throws a ``JournalError`` naming it; with `stopAtBadRow` loading stops at a bad row
  /// instead and says where (for `--recover`, which also rates every player again).
  func load(defaults: RoomState.Settings, stopAtBadRow: Bool = false) throws -> (
    lobby: LobbyState, actions: Int, badRow: JournalError?
  ) {
    if let badRatings, !stopAtBadRow { throw badRatings }
    if let badUnsettled, !stopAtBadRow { throw badUnsettled }
    // What waits in the tail is saved too: written to the database first if it can be
    // (a full disk: folded on from memory, below).
    _ = try? applyTail()
    var loaded = try database.read { db in
      try Self.load(db, path: path, defaults: defaults, stopAtBadRow: stopAtBadRow)
    }
    for row in tail?.pendingRows ?? [] where loaded.badRow == nil && row.seq > loaded.lastRow {
      if let failure = Self.replay(row.action, seq: row.seq, onto: &loaded.lobby, path: path) {
        guard stopAtBadRow else { throw failure }
        loaded.badRow = failure
        break
      }
      loaded.actions += 1
      loaded.lastRow = row.seq
    }
    return (loaded.lobby, loaded.actions, loaded.badRow)
  }

  /// What ``load(_:path:defaults:stopAtBadRow:until:)`` rebuilt, and from what.
  struct Loaded {
    var lobby: LobbyState
    /// Rows folded onto the snapshot.
    var actions: Int
    var badRow: JournalError?
    /// The last row the snapshot holds (0: no snapshot).
    var snapshotThrough: Int64
    /// The last row folded (the snapshot's, if none was).
    var lastRow: Int64
  }

  /// The lobby read on `db` (any connection, read-only ones too): the snapshot, then
  /// each row after it (up to row `until`, if given) through the live server's own
  /// reducer.
  static func load(
    _ db: Database, path: String, defaults: RoomState.Settings, stopAtBadRow: Bool = false,
    until: Int64? = nil
  ) throws -> Loaded {
    var lobby = LobbyState(defaults: defaults)
    var through: Int64 = 0
    if let row = try Row.fetchOne(
      db, sql: "SELECT state, through, generation FROM snapshot WHERE id = 1")
    {
      let generation: Int64 = row["generation"]
      var bytes = Data()
      if generation == 0 {
        bytes = Data((row["state"] as String).utf8)
      } else {
        let parts = try Data.fetchCursor(
          db, sql: "SELECT bytes FROM snapshot_part WHERE generation = ? ORDER BY part",
          arguments: [generation])
        while let part = try parts.next() { bytes.append(part) }
      }
      do {
        lobby = try JournalFormat.lobby(from: bytes)
      } catch {
        throw JournalError.badSnapshot(path: path, problem: Self.describe(error))
      }
      through = row["through"]
    }
    lobby.defaults = defaults
    var count = 0
    var badRow: JournalError?
    var last = through
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT seq, action FROM journal WHERE seq > ?1 AND seq <= ?2
        UNION ALL SELECT seq, action FROM journal_b WHERE seq > ?1 AND seq <= ?2 ORDER BY seq
        """, arguments: [through, until ?? Int64.max])
    while let row = try rows.next() {
      let seq: Int64 = row["seq"]
      let text: String = row["action"]
      if let failure = replay(text.utf8, seq: seq, onto: &lobby, path: path) {
        guard stopAtBadRow else { throw failure }
        badRow = failure
        break
      }
      count += 1
      last = seq
    }
    Self.upgradeTokens(&lobby)
    return Loaded(
      lobby: lobby, actions: count, badRow: badRow, snapshotThrough: through, lastRow: last)
  }

  /// Folds row `seq` onto `lobby`; what is wrong with it, naming the row, if it cannot be.
  private static func replay(
    _ row: some Collection<UInt8>, seq: Int64, onto lobby: inout LobbyState, path: String
  ) -> JournalError? {
    do {
      try JournalFormat.replay(row, onto: &lobby)
      return nil
    } catch let refused as JournalFormat.RefusedRow {
      return .badRow(path: path, seq: seq, problem: refused.description)
    } catch {
      return error as? JournalError ?? .badRow(path: path, seq: seq, problem: describe(error))
    }
  }

  /// Seats saved before tokens were hashed hold the token itself: hash it.
  private static func upgradeTokens(_ lobby: inout LobbyState) {
    for (name, room) in lobby.rooms {
      for (seat, held) in room.seats where !held.token.hasPrefix(ResumeToken.prefix) {
        lobby.rooms[name]!.seats[seat]!.token = ResumeToken.upgraded(held.token)
      }
    }
  }

  /// A decoding error in one line.
  private static func describe(_ error: any Error) -> String {
    switch error {
    case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
      DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
      let path = context.codingPath.map(\.stringValue).joined(separator: ".")
      return "not a journal entry: \(context.debugDescription)"
        + (path.isEmpty ? "" : " at \(path)")
    default:
      return "\(error)"
    }
  }
}
