import Foundation
import GRDB
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboJournal
@testable import RoshamboServer

/// A match's end committed beside its action and written to `matches` right after, off the
/// path of the states its commit lets the hub send.
@Suite("Finished matches settling from their actions' rows")
struct JournalSettlingTests {
  static let actions: [LobbyAction] = [
    .join(room: "den", name: "Ann", token: "a", at: 1),
    .join(room: "den", name: "Bob", token: "b", at: 2),
  ]

  /// Two rated matches, the second after the first (its ratings fold onto the first's).
  static var matches: [FinishedMatch] {
    var first = MatchRecordJournalTests.finished(
      "den", ["Ann", "Bob"], [(.rock, .scissors), (.paper, .rock)], at: 1_000)
    var second = MatchRecordJournalTests.finished(
      "den", ["Ann", "Bob"], [(.rock, .paper), (.rock, .paper)], at: 2_000)
    for index in [0, 1] {
      // Rated, as the hub judges a match between two keys: the ratings must move.
      first.rated = true
      second.rated = true
      first.identities[index] = index == 0 ? "ka" : "kb"
      second.identities[index] = index == 0 ? "ka" : "kb"
    }
    return [first, second]
  }

  /// What `matches` holds, without ids, and the kept ratings.
  static func kept(_ journal: Journal) throws -> ([FinishedMatch], [String: Glicko2Rating]) {
    var matches = try journal.recentMatches(limit: 10)
    for index in matches.indices { matches[index].id = nil }
    let ratings = try journal.keptRatings()
    return (matches, ["Ann": ratings["Ann"], "Bob": ratings["Bob"]])
  }

  @Test("settled later, the matches are kept exactly as a direct commit keeps them")
  func sameAsDirect() throws {
    let direct = try Journal(directory: temporaryDataDirectory())
    try direct.append(Self.actions, matches: Self.matches)
    let later = try Journal(directory: temporaryDataDirectory())
    try later.append(Self.actions, matches: Self.matches, settleLater: true)
    // Committed with the action, not yet in `matches`.
    #expect(try later.recentMatches(limit: 10).isEmpty)
    #expect(later.hasUnsettledMatches)
    let row = try later.database.read {
      try String.fetchOne($0, sql: "SELECT finished FROM journal WHERE seq = 2")
    }
    #expect(row != nil)
    try later.settleMatches()
    #expect(!later.hasUnsettledMatches)
    let (directMatches, directRatings) = try Self.kept(direct)
    let (laterMatches, laterRatings) = try Self.kept(later)
    #expect(laterMatches == directMatches)
    #expect(laterMatches.count == 2 && laterMatches.allSatisfy(\.rated))
    #expect(laterRatings == directRatings)
    #expect(laterRatings["Ann"]?.rating != 1_500 && laterRatings["Ann"] != laterRatings["Bob"])
    #expect(later.matchCount == 2 && later.unfoldedMatches == 2)
    let emptied = try later.database.read {
      try Int.fetchOne($0, sql: "SELECT count(*) FROM journal WHERE finished IS NOT NULL")
    }
    #expect(emptied == 0)
    // Settling again writes nothing more.
    try later.settleMatches()
    #expect(try later.recentMatches(limit: 10).count == 2)
  }

  /// A journal in a new directory whose process ended with the matches still in their
  /// row (its connections closed, nothing settled); `change` runs on it before it goes.
  static func leftUnsettled(_ change: (Journal) throws -> Void = { _ in }) throws -> String {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    try journal.append(actions, matches: matches, settleLater: true)
    #expect(journal.hasUnsettledMatches)
    try change(journal)
    return directory
  }

  @Test("a process that ended before settling loses nothing: the next opening settles them")
  func settledAtOpening() throws {
    let directory = try Self.leftUnsettled()
    let reopened = try Journal(directory: directory)
    #expect(!reopened.hasUnsettledMatches)
    let direct = try Journal(directory: temporaryDataDirectory())
    try direct.append(Self.actions, matches: Self.matches)
    let (matches, ratings) = try Self.kept(reopened)
    #expect(matches == (try Self.kept(direct)).0)
    #expect(ratings == (try Self.kept(direct)).1)
    // The rows replay as before: the column is beside the action, not in it.
    #expect(try reopened.load(defaults: .init()).lobby.rooms["den"]?.seats.count == 2)
  }

  @Test("a row whose matches cannot be read is said at loading, naming the row")
  func unreadableRow() throws {
    let directory = try Self.leftUnsettled {
      try $0.writer.run("UPDATE journal SET finished = '[{\"rated\":' WHERE seq = 2")
    }
    let reopened = try Journal(directory: directory)
    #expect(throws: JournalError.self) { try reopened.load(defaults: .init()) }
    guard case .badRow(_, let seq, let problem) = reopened.badUnsettled else {
      Issue.record("no bad row: \(String(describing: reopened.badUnsettled))")
      return
    }
    #expect(seq == 2)
    #expect(problem.contains("the matches it finished cannot be read"), "\(problem)")
  }
}
