import Foundation
import GRDB
import RoshamboGame
import RoshamboJSON
import RoshamboProtocol

/// Finished matches on the way to `matches`: a commit that ends a match on the hub's
/// path writes it in the row of the batch's last action (``append(_:matches:snapshotAfter:settleLater:)``
/// with `settleLater`), which is durable with the action and costs no page of its own;
/// the journal's thread then rates it and writes its row of `matches` (the standings'
/// players, the outbox) in a transaction of its own, and empties the column
/// (``settleMatches()``). A journal opened with such rows left (the process ended
/// between the two) settles them first, so a match is never lost between the two.
extension Journal {
  /// Whether matches wait in their actions' rows.
  var hasUnsettledMatches: Bool { !unsettled.isEmpty }

  /// Writes every match waiting in its action's row to `matches`, rated in the order
  /// they finished, and empties those rows' column, a few matches a transaction
  /// (``settleSomeMatches()``). Nothing is lost if it fails: they wait, and the next call
  /// writes them.
  func settleMatches() throws {
    while hasUnsettledMatches { try settleSomeMatches() }
  }

  /// Settles the matches of the first rows that wait, at most about ``settleBatch``
  /// matches (whole rows), in one transaction; the journal's thread runs one such step a
  /// task, so the commits asked meanwhile run in between.
  func settleSomeMatches() throws {
    var rows = 0
    var count = 0
    while rows < unsettled.count, count < Self.settleBatch {
      count += unsettled[rows].matches.count
      rows += 1
    }
    guard rows > 0 else { return }
    let first = unsettled[0].seq
    let through = unsettled[rows - 1].seq
    let matches = unsettled[..<rows].flatMap(\.matches)
    var written = MatchesWritten()
    try writer.transaction {
      try insert(matches, into: &written)
      // Only the rows since the first waiting one: a rows table holds every row since
      // the last snapshot, tens of thousands on a full server.
      for table in Self.rowTables {
        try writer.run(
          "UPDATE \(table) SET finished = NULL WHERE seq BETWEEN ? AND ? AND finished IS NOT NULL",
          .int(first), .int(through))
      }
    }
    unsettled.removeFirst(rows)
    keep(written, matches: matches.count)
  }

  /// Matches settled in one transaction, at most (about: a row's matches stay together).
  static let settleBatch = 8

  /// The matches rows hold, read when the journal opens (see ``settleMatches()``).
  func readUnsettledMatches() throws {
    unsettled = try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT seq, finished FROM journal WHERE finished IS NOT NULL
          UNION ALL SELECT seq, finished FROM journal_b WHERE finished IS NOT NULL
          ORDER BY seq
          """
      ).map { row in
        let seq: Int64 = row["seq"]
        let text: String = row["finished"]
        do {
          return (seq, try Self.unsettledMatches(from: Array(text.utf8)))
        } catch {
          throw JournalError.badRow(
            path: path, seq: seq, problem: "the matches it finished cannot be read: \(error)")
        }
      }
    }
  }

  /// `matches` as a row's `finished` column holds them: a JSON array of objects with each
  /// match's record (``MatchRecord``), whether it is rated and its seats' identities.
  static func unsettledText(_ matches: [FinishedMatch]) -> [UInt8] {
    var json = JSONText(capacity: matches.reduce(2) { $0 + MatchRecord.estimatedBytes($1) + 64 })
    json.raw("[")
    for (index, match) in matches.enumerated() {
      if index > 0 { json.comma() }
      json.raw("{")
      json.key("rated")
      json.bool(match.rated)
      json.comma()
      json.key("identities")
      json.raw("[")
      for (seat, identity) in match.identities.enumerated() {
        if seat > 0 { json.comma() }
        json.optionalString(identity)
      }
      json.raw("]")
      json.comma()
      json.key("record")
      json.matchRecord(match)
      json.raw("}")
    }
    json.raw("]")
    return json.bytes
  }

  /// The matches of a `finished` column (``unsettledText(_:)``).
  static func unsettledMatches(from bytes: [UInt8]) throws -> [FinishedMatch] {
    try JSONReader.withBuffer(bytes) { buffer in
      try JSONReader.read(buffer) { reader in
        try reader.array { reader in
          var rated = false
          var identities: [String?] = [nil, nil]
          var found: FinishedMatch?
          try reader.object { reader, key in
            switch key {
            case "rated": rated = try reader.bool()
            case "identities": identities = try reader.array { try $0.optionalString() }
            case "record": found = try reader.matchRecord()
            default: try reader.skipValue()
            }
          }
          guard var match = found, identities.count == 2 else {
            throw reader.failure("a finished match needs its record and two identities")
          }
          match.rated = rated
          match.identities = identities
          return match
        }
      }
    }
  }
}
