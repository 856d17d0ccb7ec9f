import Foundation
import GRDB
import RoshamboGame
import RoshamboHub
import RoshamboProtocol
import RoshamboServer

/// Finished matches and the leaderboard, read from a server's journal, as text.
///
/// Invariant: read-only: it opens the file read-only, never migrates it and never
/// writes, so it may run beside a server using the same journal.
public struct MatchHistory {
  private let database: DatabaseQueue
  private let path: String

  /// Opens `roshambo.sqlite` in `dataDirectory` read-only. A journal that an older
  /// release wrote and no server has brought up to date since is refused, saying so.
  public init(dataDirectory: String) throws {
    (database, path) = try Journal.openReadOnly(dataDirectory: dataDirectory)
  }

  /// Which matches a history lists: by a player, finished within a time.
  public struct Filter: Sendable, Equatable, Codable {
    public var player: String?
    /// Finished at or after this (ms since 1970).
    public var since: Int64?
    /// Finished before this (ms since 1970).
    public var until: Int64?
    public var limit: Int

    public init(player: String? = nil, since: Int64? = nil, until: Int64? = nil, limit: Int = 20) {
      self.player = player
      self.since = since
      self.until = until
      self.limit = limit
    }
  }

  /// The kept matches `filter` lets through, newest first, with their rounds.
  public func matches(_ filter: Filter) throws -> [FinishedMatch] {
    try database.read { try Self.matches($0, filter) }
  }

  /// The kept matches `filter` lets through, newest first, with their rounds, read on `db`.
  static func matches(_ db: Database, _ filter: Filter) throws -> [FinishedMatch] {
    try Journal.matches(
      db,
      Journal.MatchFilter(
        player: filter.player, since: filter.since, until: filter.until, limit: filter.limit))
  }

  /// The kept match numbered `id`, or nil.
  public func match(id: Int64) throws -> FinishedMatch? {
    try database.read { try Journal.match($0, id: id) }
  }

  /// Recent matches, newest first, then the leaderboard.
  public func report(limit: Int) throws -> String { try report(Filter(limit: limit)) }

  /// The matches `filter` lets through, newest first (each with its number, for
  /// `history ID`), then the leaderboard. The host sees every player on it, also those
  /// the lobby does not list yet (rated against too few different opponents).
  public func report(_ filter: Filter) throws -> String {
    try database.read { try Self.report($0, path: path, filter, timeZone: .current) }
  }

  /// ``report(_:)`` read on `db` (the journal at `path`), in `timeZone`'s time.
  static func report(_ db: Database, path: String, _ filter: Filter, timeZone: TimeZone) throws
    -> String
  {
    let matches = try Self.matches(db, filter)
    let board = try Journal.leaderboard(db, path: path, limit: 10, listedOpponents: 0)
    return report(matches: matches, board: board, timeZone: timeZone)
  }

  /// Matches, newest first, then a leaderboard, as `history` prints them (a journal's, or
  /// a shared history's), at the local time of `timeZone` with its offset from UTC.
  public static func report(
    matches: [FinishedMatch], board: [LobbyView.Leader],
    timeZone: TimeZone = .current
  ) -> String {
    var lines = ["Recent matches (newest first):"]
    if matches.isEmpty { lines.append("  none yet") }
    // Names and rooms come from players (or from whoever could write the file): quoted
    // and escaped, so none can draw on the terminal or pass for a line of this report.
    let quoted = { (text: String) in LogText.quoted(text) }
    for match in matches {
      // The host's own time, with its offset from UTC.
      let when = MatchRecordText.localTime(match.finishedAt, timeZone: timeZone)
      let score =
        "\(quoted(match.players[0])) \(match.scores[0])–\(match.scores[1]) "
        + quoted(match.players[1])
      lines.append(
        "  #\(match.id ?? 0)  \(when)  "
          + "\(quoted(match.room))  \(score)  winner: "
          + quoted(match.winner)
          + (match.forfeit ? " by forfeit" : "")
          + (match.rated ? "" : "  not rated")
          + (match.fair ? "  fair: every round committed and revealed" : ""))
    }
    lines.append("")
    // The lobby and the board list a player only once rated against enough different
    // opponents; the host sees everyone rated, and is told so.
    lines.append(
      "Leaderboard (everyone rated, also those the lobby does not list yet; rating ±"
        + " deviation, ? while provisional; matches won, lost):")
    if board.isEmpty { lines.append("  none yet") }
    // The ratings in a column as wide as the widest ("1623 ±48", "1500?").
    let ratings = board.map { $0.rating?.text ?? "unrated" }
    let column = ratings.map(\.count).max() ?? 0
    for (rank, (entry, rating)) in zip(board, ratings).enumerated() {
      let forfeits = entry.wonByForfeit > 0 ? " (\(entry.wonByForfeit) by forfeit)" : ""
      let padded = rating + String(repeating: " ", count: column - rating.count)
      lines.append(
        "  \(rank + 1). \(padded)  \(quoted(entry.name))  \(entry.won) won\(forfeits), "
          + "\(entry.lost) lost")
    }
    return lines.joined(separator: "\n")
  }
}

extension Journal {
  /// `roshambo.sqlite` in `dataDirectory`, opened read-only (see ``MatchHistory``). A
  /// journal an older release wrote, that no server has brought up to date since, is
  /// refused, saying so.
  static func openReadOnly(dataDirectory: String) throws -> (
    database: DatabaseQueue, path: String
  ) {
    let path = (dataDirectory as NSString).appendingPathComponent("roshambo.sqlite")
    var configuration = Configuration()
    configuration.readonly = true
    let database: DatabaseQueue
    let current: Bool
    do {
      database = try DatabaseQueue(path: path, configuration: configuration)
      current = try database.read { try JournalSchema.migrator.hasCompletedMigrations($0) }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      throw JournalError.inUse(path: path)
    }
    guard current else { throw JournalError.olderRelease(path: path) }
    return (database, path)
  }
}
