import Foundation
import GRDB
import RoshamboGame
import RoshamboServer
import Testing

@testable import RoshamboJournal

/// Ratings in the journal: what each commit keeps is what folding the kept matches again
/// gives, bit for bit, through folds, restarts and an upgrade; one that cannot be a
/// rating is a clear error, and `--recover` rates everyone again.
@Suite("Ratings in the journal")
struct RatingJournalTests {
  /// `count` one-round matches among `players` names, drawn from `seed`: a few are
  /// against oneself or have no winner among the players (they rate nothing).
  static func matches(_ count: Int, players: Int = 40, seed: UInt64) -> [FinishedMatch] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { index in
      let one = "P\(Int.random(in: 0..<players, using: &generator))"
      var two = "P\(Int.random(in: 0..<players, using: &generator))"
      if index % 97 != 0, two == one { two = "P\(players)" }
      let winner = index % 211 == 5 ? "?" : Bool.random(using: &generator) ? one : two
      return FinishedMatch(
        room: "den", finishedAt: Int64(index), ruleset: "classic", bestOf: 1,
        players: [one, two], scores: winner == one ? [1, 0] : [0, 1], winner: winner,
        forfeit: index % 13 == 0, fair: false)
    }
  }

  /// Commits `matches` a few at a time (one to five a commit), folding the standings
  /// whenever a fold is due and now and then before.
  static func commit(_ matches: [FinishedMatch], to journal: Journal, seed: UInt64) throws {
    var generator = SplitMix64(seed: seed)
    var rest = matches[...]
    while !rest.isEmpty {
      let batch = rest.prefix(Int.random(in: 1...5, using: &generator))
      rest = rest.dropFirst(batch.count)
      try journal.append([], matches: Array(batch))
      if journal.foldIsDue || Int.random(in: 0..<50, using: &generator) == 0 {
        try journal.foldStandings()
      }
    }
  }

  /// Every rating's bits, by name: equal only when every bit is.
  static func bits(_ ratings: PlayerRatings) -> [String: [UInt64]] {
    ratings.ratings.mapValues {
      [$0.rating.bitPattern, $0.deviation.bitPattern, $0.volatility.bitPattern]
    }
  }

  /// The players whose ratings differ in any bit between `one` and `other` (or who are in
  /// one only), a few of them with both ratings, for a failure's message.
  static func differences(_ one: PlayerRatings, _ other: PlayerRatings) -> [String] {
    let (a, b) = (bits(one), bits(other))
    return Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted().map {
      "\($0): \(one.ratings[$0].map { "\($0)" } ?? "none") against "
        + (other.ratings[$0].map { "\($0)" } ?? "none")
    }
  }

  /// What the journal keeps, holds in memory and recomputes are one and the same.
  static func expectAgree(_ journal: Journal, _ comment: String = "") throws {
    let kept = try journal.keptRatings()
    let recomputed = try journal.recomputedRatings()
    let recomputedDiffer = differences(kept, recomputed)
    #expect(recomputedDiffer.isEmpty, "\(comment) kept/recomputed: \(recomputedDiffer.prefix(3))")
    let memoryDiffers = differences(journal.ratings, kept)
    #expect(memoryDiffers.isEmpty, "\(comment) in memory/kept: \(memoryDiffers.prefix(3))")
  }

  @Test("after 3,000 matches, folded as they come, the kept ratings are the recomputed ones")
  func keptEqualsRecomputed() throws {
    let journal = try Journal(directory: temporaryDataDirectory(), keepMatches: 1_000_000)
    let matches = Self.matches(3_000, seed: 1)
    try Self.commit(matches, to: journal, seed: 2)
    #expect(journal.unfoldedMatches > 0, "some are not folded yet")
    #expect(journal.ratings.ratings.count == 41)
    try Self.expectAgree(journal)
    // Everything folded: every rating now comes from the standings.
    while try journal.foldStandings() {}
    try Self.expectAgree(journal, "all folded")
    // And the leaderboard is their top, in its order, with the counts beside them.
    let recomputed = PlayerRatings.recomputed(from: matches)
    // Counted as the journal counts: each seat whose name is the winner's won.
    let seats = matches.flatMap { match in match.players.map { ($0, $0 == match.winner) } }
    let top = LobbyView.Leader.ranked(
      recomputed.ratings.map { name, rating in
        let mine = seats.filter { $0.0 == name }
        return LobbyView.Leader(
          name: name, won: mine.count(where: \.1), lost: mine.count { !$0.1 },
          rating: LobbyView.Rating(rating))
      })
    let board = try journal.leaderboard(limit: 10)
    #expect(board.map(\.name) == top.prefix(10).map(\.name))
    #expect(board.map(\.rating) == top.prefix(10).map(\.rating))
    #expect(board.first?.rating?.isProvisional == false)
  }

  @Test("a server stopped between commits and started again rates on from what it kept")
  func acrossRestarts() throws {
    let directory = temporaryDataDirectory()
    let matches = Self.matches(1_200, seed: 3)
    for (part, slice) in [matches[..<400], matches[400..<700], matches[700...]].enumerated() {
      // Each start reads the ratings back: from the standings, or from the matches not
      // folded yet (the second start finds everything folded).
      let journal = try Journal(directory: directory, keepMatches: 1_000_000)
      try Self.expectAgree(journal, "after start \(part)")
      try Self.commit(Array(slice), to: journal, seed: UInt64(part))
      try Self.expectAgree(journal, "after the commits of start \(part)")
      if part == 0 { while try journal.foldStandings() {} }
    }
    let last = try Journal(directory: directory, keepMatches: 1_000_000)
    #expect(Self.differences(last.ratings, PlayerRatings.recomputed(from: matches)).isEmpty)
  }

  @Test("a journal from before ratings is rated on upgrade as its commits would have rated it")
  func upgradeRates() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory, keepMatches: 1_000_000)
    try Self.commit(Self.matches(1_500, seed: 5), to: journal, seed: 6)
    let rated = journal.ratings
    let board = try journal.leaderboard(limit: 10)
    journal.writer.close()
    try journal.database.close()
    let old = try DatabaseQueue(path: directory + "/roshambo.sqlite")
    try old.write { db in
      // As release v13 left it: no ratings, `match_results` as v13 made it.
      try MatchRecordJournalTests.withoutRatings(db)
      try db.execute(
        sql: """
          CREATE VIEW match_results AS
            SELECT id, player1 AS name, player1 = winner AS won,
              player1 = winner AND forfeit != 0 AS won_by_forfeit FROM matches
            UNION ALL SELECT id, player2, player2 = winner, player2 = winner AND forfeit != 0
              FROM matches
          """)
    }
    try old.close()
    let upgraded = try Journal(directory: directory, keepMatches: 1_000_000)
    try Self.expectAgree(upgraded)
    #expect(Self.differences(upgraded.ratings, rated).isEmpty)
    #expect(try upgraded.leaderboard(limit: 10) == board)
  }

  @Test("a rating another program broke stops the start, naming it; --recover rates again")
  func brokenRating() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory, keepMatches: 1_000_000)
    let matches = Self.matches(600, seed: 7)
    try Self.commit(matches, to: journal, seed: 8)
    while try journal.foldStandings() {}
    let folded = try #require(
      try journal.database.read {
        try String.fetchOne($0, sql: "SELECT name FROM standings ORDER BY name LIMIT 1")
      })
    try journal.database.write {
      try $0.execute(
        sql: "UPDATE standings SET rating = 9e9, deviation = -3 WHERE name = ?",
        arguments: [folded])
    }
    journal.writer.close()
    try journal.database.close()
    let reopened = try Journal(directory: directory)
    let error = #expect(throws: JournalError.self) { try reopened.load(defaults: .init()) }
    let said = error.map { "\($0)" } ?? ""
    #expect(said.contains(directory + "/roshambo.sqlite: the rating kept for \"\(folded)\""))
    #expect(said.contains("deviation -3.0") && said.contains("--recover"), "\(said)")
    // The history says so too, rather than printing a broken board.
    #expect(throws: JournalError.self) {
      try MatchHistory(dataDirectory: directory).report(limit: 5)
    }
    reopened.writer.close()
    try reopened.database.close()
    let recovery = try GameServer.recoverJournal(directory: directory, defaults: .init())
    #expect(recovery.contains("every player was rated again from the matches kept"), "\(recovery)")
    let recovered = try Journal(directory: directory)
    _ = try recovered.load(defaults: .init())
    try Self.expectAgree(recovered)
    #expect(Self.differences(recovered.ratings, PlayerRatings.recomputed(from: matches)).isEmpty)
  }
}
