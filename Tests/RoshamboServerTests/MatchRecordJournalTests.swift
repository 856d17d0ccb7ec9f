import Foundation
import GRDB
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboJournal
@testable import RoshamboServer

/// Match records in the journal: kept with their rounds, migrated from data directories
/// that kept none, listed by player and time; and the journal replayed up to a row.
@Suite("Match records in the journal")
struct MatchRecordJournalTests {
  /// A room whose match `weapons` (seat 1's, seat 2's per round) finished at `at`.
  static func finished(
    _ name: String, _ players: [String], _ weapons: [(Weapon, Weapon)], at: Int64
  )
    -> FinishedMatch
  {
    var room = RoomState(name: name, settings: .init(bestOf: 3))
    room.apply(.playerJoined(name: players[0], token: "a", at: at))
    room.apply(.playerJoined(name: players[1], token: "b", at: at))
    var ended: FinishedMatch?
    for (index, pair) in weapons.enumerated() {
      room.apply(.chose(seat: .one, round: index + 1, weapon: pair.0, at: at + 1))
      guard
        case .success(let events) = room.reduce(
          .chose(seat: .two, round: index + 1, weapon: pair.1, at: at + Int64(index) + 1))
      else { continue }
      for case .matchEnded(let match) in events { ended = match }
    }
    return ended!
  }

  @Test("a finished match keeps its rounds and reads back as its record, numbered")
  func keptWithRounds() throws {
    let journal = try Journal(directory: temporaryDataDirectory())
    let match = Self.finished(
      "den", ["Ann", "Bob"], [(.rock, .rock), (.rock, .paper), (.paper, .scissors)], at: 1_000)
    #expect(match.rounds?.count == 3 && match.winner == "Bob")
    try journal.append([], matches: [match])
    let kept = try #require(try journal.recentMatches(limit: 1).first)
    var numbered = match
    numbered.id = 1
    #expect(kept == numbered)
    #expect(RecordVerification(kept).holds)
  }

  @Test("a data directory from before rounds were kept: its matches have no rounds, new ones do")
  func migratesFromV10() throws {
    let directory = temporaryDataDirectory()
    let path = try Journal(directory: directory).path
    let old = try DatabaseQueue(path: path)
    try old.write { db in
      // As release v10 left it: no `rounds` column, no ratings, one match kept.
      try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v11%'")
      try Self.withoutRatings(db)
      try db.execute(sql: "ALTER TABLE matches DROP COLUMN rounds")
      try db.execute(
        sql: """
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won FROM matches
            UNION ALL SELECT id, player2, player2 = winner FROM matches;
          INSERT INTO matches (room, finished_at, ruleset, best_of, player1, player2, score1,
            score2, winner, forfeit, fair) VALUES ('old', 5, 'classic', 3, 'Ann', 'Ben', 2, 0,
            'Ann', 0, 0);
          """)
    }
    try old.close()
    // Read-only history does not upgrade the file: it says what to do.
    #expect(throws: JournalError.self) { try MatchHistory(dataDirectory: directory) }
    let journal = try Journal(directory: directory)
    let match = Self.finished(
      "new", ["Cy", "Di"], [(.rock, .scissors), (.rock, .scissors)], at: 10)
    try journal.append([], matches: [match])
    let history = try MatchHistory(dataDirectory: directory)
    let listed = try history.matches(.init())
    #expect(listed.map(\.room) == ["new", "old"])
    #expect(listed.map(\.id) == [2, 1])
    #expect(listed[0].rounds == match.rounds && listed[1].rounds == nil)
    #expect(try history.match(id: 1)?.rounds == nil)
    #expect(
      RecordVerification(try #require(try history.match(id: 1))).findings == [
        .unchecked("the record has no rounds (the match was kept before rounds were)")
      ])
  }

  @Test("the leaderboard counts wins by forfeit, upgraded from v12, unfolded and folded")
  func forfeitsOnTheLeaderboard() throws {
    let directory = temporaryDataDirectory()
    let path = try Journal(directory: directory).path
    let old = try DatabaseQueue(path: path)
    try old.write { db in
      // As release v12 left it: standings without forfeits or ratings, two matches
      // folded into them (Ann beat Ben twice, once by forfeit).
      try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v13%'")
      try Self.withoutRatings(db)
      if try db.columns(in: "standings").contains(where: { $0.name == "won_by_forfeit" }) {
        try db.execute(sql: "ALTER TABLE standings DROP COLUMN won_by_forfeit")
      }
      try db.execute(
        sql: """
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won FROM matches
            UNION ALL SELECT id, player2, player2 = winner FROM matches;
          INSERT INTO matches (room, finished_at, ruleset, best_of, player1, player2, score1,
            score2, winner, forfeit, fair) VALUES
            ('duel-1', 5, 'classic', 3, 'Ann', 'Ben', 1, 0, 'Ann', 1, 0),
            ('duel-2', 6, 'classic', 3, 'Ben', 'Ann', 0, 2, 'Ann', 0, 0);
          INSERT INTO standings (name, won, lost) VALUES ('Ann', 2, 0), ('Ben', 0, 2);
          UPDATE standings_folded SET through = 2;
          """)
    }
    try old.close()
    func board(_ journal: Journal) throws -> [String] {
      try MatchHistory(dataDirectory: directory).report(limit: 1).split(separator: "\n").drop {
        !$0.hasPrefix("Leaderboard")
      }
      .dropFirst().map(String.init)
    }
    // The upgrade rates the two matches kept, in order (both still provisional).
    let journal = try Journal(directory: directory)
    #expect(
      try board(journal) == [
        #"  1. 1720?  "Ann"  2 won (1 by forfeit), 0 lost"#, #"  2. 1280?  "Ben"  0 won, 2 lost"#,
      ])
    #expect(try journal.keptRatings() == journal.recomputedRatings())
    // Ben wins one by forfeit: counted (and rated) before the fold, and after it.
    var forfeit = Self.finished(
      "duel-3", ["Ann", "Ben"], [(.rock, .paper), (.rock, .paper)], at: 20)
    forfeit.forfeit = true
    // Two rounds were played before it: rated, as the server judges it.
    forfeit.rated = true
    try journal.append([], matches: [forfeit])
    let expected = [
      #"  1. 1510?  "Ben"  1 won (1 by forfeit), 2 lost"#,
      #"  2. 1490?  "Ann"  2 won (1 by forfeit), 1 lost"#,
    ]
    #expect(try board(journal) == expected)
    try journal.foldStandings()
    #expect(try board(journal) == expected)
    #expect(try board(try Journal(directory: directory)) == expected)
  }

  /// Takes migration v14 back out of a journal made now, as an older release left it: no
  /// ratings in the matches or the standings, and `match_results` dropped (the test makes
  /// its own older one).
  static func withoutRatings(_ db: Database) throws {
    try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v14%'")
    try db.execute(sql: "DROP VIEW match_results")
    for column in ["rating", "deviation", "volatility"] {
      try db.execute(sql: "ALTER TABLE standings DROP COLUMN \(column)")
      for seat in 1...2 { try db.execute(sql: "ALTER TABLE matches DROP COLUMN \(column)\(seat)") }
    }
  }

  @Test("history filters by player and by time")
  func filters() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    try journal.append(
      [],
      matches: [
        Self.finished("a", ["Ann", "Bob"], [(.rock, .scissors), (.rock, .scissors)], at: 1_000),
        Self.finished("b", ["Cy", "Bob"], [(.rock, .scissors), (.rock, .scissors)], at: 2_000),
        Self.finished("c", ["Ann", "Cy"], [(.rock, .scissors), (.rock, .scissors)], at: 3_000),
      ])
    let history = try MatchHistory(dataDirectory: directory)
    #expect(try history.matches(.init(player: "Ann")).map(\.room) == ["c", "a"])
    #expect(try history.matches(.init(player: "Bob", since: 1_500)).map(\.room) == ["b"])
    #expect(try history.matches(.init(until: 2_500)).map(\.room) == ["b", "a"])
    #expect(try history.matches(.init(limit: 1)).map(\.room) == ["c"])
    #expect(try history.matches(.init(player: "Nobody")).isEmpty)
  }

  @Test("the journal replayed up to a row is the lobby as it stood then")
  func replayUntil() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    let actions: [LobbyAction] = [
      .join(room: "den", name: "Alice", token: "a", at: 1),
      .join(room: "den", name: "Bob", token: "b", at: 2),
      .room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 3)),
      .room("den", .chose(seat: .two, round: 1, weapon: .paper, at: 4)),
    ]
    try journal.append(actions, matches: [])
    let replay = try JournalReplay(dataDirectory: directory)
    let afterOne = try replay.report(until: 1)
    #expect(afterOne.contains("After row 1 "))
    #expect(afterOne.contains(#""den"  waiting, classic best of 3  seat 1 "Alice" 0 (connected)"#))
    // After the first pick: that a pick is in, never which.
    let afterThree = try replay.report(until: 3)
    #expect(afterThree.contains(#"seat 1 "Alice" 0 (connected, picked)"#), "\(afterThree)")
    #expect(!afterThree.contains("rock"))
    let last = try replay.report(until: nil)
    #expect(last.contains("After row 4 ") && last.contains(#"seat 2 "Bob" 1 (connected)"#))
    #expect(last.contains("round 2"))
    #expect(throws: JournalReplay.Unreachable.self) { try replay.report(until: 9) }
    // Rows a snapshot holds are gone: it says which row is the earliest it can show.
    var lobby = LobbyState(defaults: .init())
    for action in actions { lobby.apply(action) }
    try journal.compact(lobby)
    let error = #expect(throws: JournalReplay.Unreachable.self) {
      try JournalReplay(dataDirectory: directory).report(until: 2)
    }
    #expect(error?.description.contains("the earliest state it can show is after row 4") == true)
  }
}
