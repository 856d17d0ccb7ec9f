import Foundation
import Logging
import ProcessFixtures
import RoshamboGame
import RoshamboOperations
import RoshamboProtocol
import Testing

@testable import RoshamboHistory
@testable import RoshamboJournal
@testable import RoshamboServer

/// Finished matches shipped to a real PostgreSQL (Debian's, started by the test in a
/// temporary directory): each arrives once, none is lost while the database is away or
/// when the server is killed, and servers sharing one database share one leaderboard.
@Suite("A shared history in PostgreSQL", .serialized, .enabled(if: PostgresProcess.available))
struct SharedHistoryTests {
  func configuration(data: String, history: String) throws -> ServerConfiguration {
    var configuration = testConfiguration(dataDirectory: data)
    configuration.roomSettings = RoomState.Settings(bestOf: 1)
    configuration.historyAddress = try HistoryAddress(parsing: history)
    // Keyless players from one address: nobody is rated; the board lists who played.
    configuration.listedOpponents = 0
    return configuration
  }

  /// Waits (up to 30 s: the shipper's longest pause between tries) until `condition`
  /// (a query may fail until the shipper has made the tables).
  func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
    for _ in 0..<300 {
      if try await condition() { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("never: \(what)")
  }

  /// Alice and Bob play `matches` one-round matches in `room` (Alice always wins).
  func play(port: Int, room: String, matches: Int, alice: String = "Alice", bob: String = "Bob")
    async throws
  {
    let first = try await TestClient.connect(port: port)
    try await first.hello(name: alice, room: room)
    _ = try await first.nextState()
    let second = try await TestClient.connect(port: port)
    try await second.hello(name: bob, room: room)
    for match in 1...matches {
      _ = try await first.state { $0.phase == .choosing }
      _ = try await second.state { $0.phase == .choosing }
      first.send(.choose(round: 1, weapon: .rock, id: nil))
      second.send(.choose(round: 1, weapon: .scissors, id: nil))
      _ = try await first.state { $0.phase == .over }
      _ = try await second.state { $0.phase == .over }
      if match < matches {
        first.send(.rematch(id: nil))
        second.send(.rematch(id: nil))
      }
    }
  }

  @Test("a match played over TLS arrives once, with its rounds, and counts once")
  func arrivesOnce() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let data = temporaryDataDirectory()
    try await withServer(try configuration(data: data, history: postgres.url)) { server in
      try await play(port: server.port, room: "den", matches: 2)
      try await eventually("both matches in PostgreSQL") {
        postgres.storedMatches == "2"
      }
      try await eventually("the outbox empty") {
        try await server.withJournal { try $0.unshippedCount() } == 0
      }
      #expect(
        try await blocking {
          try postgres.psql("SELECT name, won, lost FROM roshambo_standings ORDER BY name")
        }
          == "Alice|2|0\nBob|0|2")
      #expect(
        try await blocking {
          try postgres.psql(
            "SELECT player1, winner, jsonb_array_length(rounds), rounds->0->>'reason' "
              + "FROM roshambo_matches ORDER BY match_id LIMIT 1")
        }
          == "Alice|Alice|1|rock crushes scissors")
      let serverID = try await server.withJournal { try $0.serverID() }
      #expect(serverID.count == 32)
      #expect(
        try await blocking { try postgres.psql("SELECT DISTINCT server_id FROM roshambo_matches") }
          == serverID)
    }
  }

  @Test("the same matches stored twice (a crash before the journal heard back) count once")
  func storedTwice() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let history = SharedHistory(
      address: try HistoryAddress(parsing: postgres.url), logger: Logger(label: "test"))
    try await history.migrate()
    try await history.migrate()  // a second server starting: nothing to do
    let matches = (1...3).map { id in
      FinishedMatch(
        id: Int64(id), room: "den", finishedAt: 1_000 * Int64(id), ruleset: "classic",
        bestOf: 1, players: ["Ann", "Bo"], scores: [1, 0], winner: "Ann", forfeit: false,
        fair: false, rounds: nil)
    }
    #expect(try await history.store(matches, serverID: "s1") == 3)
    #expect(try await history.store(matches, serverID: "s1") == 0)
    // The same numbers from another server are other matches.
    #expect(try await history.store(Array(matches.prefix(1)), serverID: "s2") == 1)
    #expect(try await history.count() == 4)
    let board = try await history.leaderboard(limit: 10, listedOpponents: 0)
    #expect(board.map(\.name) == ["Ann", "Bo"])
    #expect(board.map(\.won) == [4, 0] && board.map(\.lost) == [0, 4])
    #expect(try await history.recentMatches(limit: 2).map(\.id) == [3, 2])
    // Names are not unique: both seats may have the same. One row of standings, moved by
    // this match only, counted as the journal's own leaderboard counts it (each seat whose
    // name is the winner's won).
    let twins = FinishedMatch(
      id: 9, room: "den", finishedAt: 9_000, ruleset: "classic", bestOf: 1,
      players: ["Cy", "Cy"], scores: [1, 0], winner: "Cy", forfeit: false, fair: false)
    #expect(try await history.store([twins], serverID: "s1") == 1)
    #expect(
      try await blocking {
        try postgres.psql("SELECT won, lost FROM roshambo_standings WHERE name = 'Cy'")
      } == "2|0")
    #expect(
      try await blocking { try postgres.psql("SELECT max(version) FROM roshambo_schema") }
        == "\(SharedHistory.migrations.count)")
    // A win by forfeit is counted as a win, and as one by forfeit.
    var forfeit = twins
    (forfeit.id, forfeit.players, forfeit.winner, forfeit.forfeit) = (
      10, ["Bo", "Ann"], "Bo", true
    )
    #expect(try await history.store([forfeit], serverID: "s1") == 1)
    let after = try await history.leaderboard(limit: 10, listedOpponents: 0)
    #expect(after.first { $0.name == "Bo" }.map { [$0.won, $0.wonByForfeit] } == [1, 1])
    #expect(after.first { $0.name == "Ann" }.map { [$0.won, $0.wonByForfeit] } == [4, 0])
    await history.close()
  }

  @Test("PostgreSQL stopped during play: play goes on, and every match arrives once it is back")
  func databaseAway() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let data = temporaryDataDirectory()
    try await withServer(try configuration(data: data, history: postgres.url)) { server in
      try await play(port: server.port, room: "warmup", matches: 1)
      try await eventually("the first match in PostgreSQL") {
        postgres.storedMatches == "1"
      }
      try await blocking { try postgres.stop() }
      try await play(port: server.port, room: "den", matches: 3)
      // Kept in the journal meanwhile, and the shipper says it cannot reach the database.
      #expect(try await server.withJournal { try $0.unshippedCount() } == 3)
      try await eventually("a failure to ship counted") {
        let text = String(decoding: server.metrics.exposition(), as: UTF8.self)
        return (samples(text)["roshambo_history_failures_total"] ?? 0) >= 1
      }
      try await eventually("the gauge says three wait") {
        let text = String(decoding: server.metrics.exposition(), as: UTF8.self)
        return samples(text)["roshambo_history_matches_waiting"] == 3
      }
      try await blocking { try postgres.start() }
      try await eventually("all four matches in PostgreSQL") {
        postgres.storedMatches == "4"
      }
      try await eventually("the outbox empty") {
        try await server.withJournal { try $0.unshippedCount() } == 0
      }
      #expect(
        try await blocking {
          try postgres.psql("SELECT won FROM roshambo_standings WHERE name = 'Alice'")
        } == "4")
      let failures = samples(String(decoding: server.metrics.exposition(), as: UTF8.self))
      #expect((failures["roshambo_history_failures_total"] ?? 0) >= 1)
      #expect(failures["roshambo_history_matches_shipped_total"] == 4)
      #expect(failures["roshambo_history_matches_dropped_total"] == 0)
    }
  }

  @Test("two servers sharing one PostgreSQL show one leaderboard")
  func twoServers() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    try await withServer(
      try configuration(data: temporaryDataDirectory(), history: postgres.url)
    ) { first in
      try await withServer(
        try configuration(data: temporaryDataDirectory(), history: postgres.url)
      ) { second in
        try await play(port: first.port, room: "den", matches: 2)
        try await play(port: second.port, room: "den", matches: 1, bob: "Carol")
        try await eventually("three matches from two servers") {
          (try? postgres.psql(
            "SELECT count(DISTINCT server_id), count(*) FROM roshambo_matches")) == "2|3"
        }
        let history = SharedHistory(
          address: try HistoryAddress(parsing: postgres.url), logger: Logger(label: "test"))
        let board = try await history.leaderboard(limit: 10, listedOpponents: 0)
        await history.close()
        #expect(board.map(\.name) == ["Alice", "Carol", "Bob"])
        #expect(board.map(\.won) == [3, 0, 0])
        #expect(board.map(\.lost) == [0, 1, 2])
        // The second server's lobby shows the fleet's leaderboard: Bob never played there.
        let follower = try await TestClient.connect(port: second.port)
        follower.send(
          .hello(
            protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
            fair: nil, id: 1))
        var shown: [LobbyView.Leader] = []
        while shown.map(\.name) != ["Alice", "Carol", "Bob"] {
          guard case .lobby(_, let view) = try await follower.next() else { continue }
          shown = view.leaders
        }
        #expect(shown.map(\.won) == [3, 0, 0])
      }
    }
  }

  @Test("killed hard while shipping: after a restart every match is in PostgreSQL exactly once")
  func killedWhileShipping() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let data = temporaryDataDirectory()
    let arguments = [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", data, "--best-of", "1",
      "--cert", TestCertificates.files.serverCertificate,
      "--key", TestCertificates.files.serverKey, "--no-announce", "--hello-seconds", "60",
      "--log-level", "warning",
      "--history-url", postgres.url, "--drain-seconds", "0",
    ]
    let first = try ServerProcess(arguments)
    defer { kill(first.process.processIdentifier, SIGKILL) }
    let port = try await first.port
    // Matches finish while earlier ones ship; the kill lands wherever shipping is.
    try await play(port: port, room: "den", matches: 20)
    kill(first.process.processIdentifier, SIGKILL)
    _ = await first.finish()
    let second = try ServerProcess(arguments)
    defer { kill(second.process.processIdentifier, SIGKILL) }
    _ = try await second.port
    try await eventually("all 20 matches in PostgreSQL") {
      postgres.storedMatches == "20"
    }
    second.process.terminate()
    await #expect(second.finish().0 == 0)
    let journal = try Journal(directory: data)
    #expect(try journal.unshippedCount() == 0)
    #expect(
      try await blocking {
        try postgres.psql("SELECT count(*), count(DISTINCT match_id) FROM roshambo_matches")
      }
        == "20|20")
    #expect(
      try await blocking { try postgres.psql("SELECT sum(won), sum(lost) FROM roshambo_standings") }
        == "20|20")
  }
  @Test(
    "a 100,000-character name and one with escape sequences in the shared history: every lobby still gets views, and neither name is shown or printed"
  )
  func brokenNamesLeftOut() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let lines = LogLines()
    let history = SharedHistory(
      address: try HistoryAddress(parsing: postgres.url),
      logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
    try await history.migrate()
    let good = FinishedMatch(
      id: 1, room: "den", finishedAt: 1_000, ruleset: "classic", bestOf: 1,
      players: ["Alice", "Bob"], scores: [1, 0], winner: "Alice", forfeit: false, fair: false)
    #expect(try await history.store([good], serverID: "s1") == 1)
    // Written past the servers, straight into the database, above everyone else.
    _ = try postgres.psql(
      """
      INSERT INTO roshambo_standings (player, name, won, lost) VALUES
        ('n:' || repeat('A', 100000), repeat('A', 100000), 1000, 0),
        (E'n:\\x1b]52;c;aGk=\\x07\\x1b[2JMallory', E'\\x1b]52;c;aGk=\\x07\\x1b[2JMallory', 999, 0);
      INSERT INTO roshambo_matches (server_id, match_id, room, finished_at, ruleset, best_of,
        player1, player2, score1, score2, winner, forfeit, fair) VALUES
        ('s9', 1, 'den', 9000, 'classic', 1, repeat('A', 100000), 'Bob', 1, 0,
          repeat('A', 100000), false, false),
        ('s9', 2, 'den', 9001, 'classic', 1, E'\\x1b]52;c;aGk=\\x07\\x1b[2JMallory', 'Bob',
          1, 0, 'Bob', false, false)
      """)
    // The board stays full: the rows after the broken ones fill it.
    #expect(
      try await history.leaderboard(limit: 2, listedOpponents: 0).map(\.name) == ["Alice", "Bob"])
    #expect(try await history.recentMatches(limit: 1).map(\.id) == [1])
    // Said once a name, escaped and cut, however often the rows are read.
    _ = try await history.leaderboard(limit: 2, listedOpponents: 0)
    _ = try await history.recentMatches(limit: 1)
    let said = lines.text
    #expect(said.components(separatedBy: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").count - 1 == 1)
    #expect(said.components(separatedBy: "Mallory").count - 1 == 1)
    #expect(!said.contains("\u{1B}") && !said.contains(String(repeating: "A", count: 100)))
    await history.close()

    // A server of the fleet: its lobby shows the fleet's board without them.
    let data = temporaryDataDirectory()
    try await withServer(try configuration(data: data, history: postgres.url)) { server in
      let follower = try await TestClient.connect(port: server.port)
      follower.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          fair: nil, id: 1))
      var shown: [LobbyView.Leader] = []
      while shown.map(\.name) != ["Alice", "Bob"] {
        guard case .lobby(_, let view) = try await follower.next() else { continue }
        shown = view.leaders
        #expect(!view.leaders.contains { $0.name.contains("Mallory") || $0.name.count > 24 })
      }
    }
  }
}

/// The fleet's ratings in PostgreSQL: rated in the order stored, whichever server stores,
/// equal to what folding the shared history again gives; a broken one is left out, stops
/// the store, and `--rate-again` mends it.
@Suite(
  "A shared history in PostgreSQL: ratings", .serialized,
  .enabled(if: PostgresProcess.available))
struct SharedRatingsTests {
  /// Matches numbered from `first` among a dozen players, drawn from `seed`.
  static func matches(_ count: Int, from first: Int64 = 1, seed: UInt64) -> [FinishedMatch] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { index in
      let one = "P\(Int.random(in: 0..<12, using: &generator))"
      let two = "P\((Int(one.dropFirst())! + Int.random(in: 1..<12, using: &generator)) % 12)"
      let winner = Bool.random(using: &generator) ? one : two
      return FinishedMatch(
        id: first + Int64(index), room: "den", finishedAt: Int64(index), ruleset: "classic",
        bestOf: 1, players: [one, two], scores: winner == one ? [1, 0] : [0, 1], winner: winner,
        forfeit: false, fair: false)
    }
  }

  static func history(_ postgres: PostgresProcess, lines: LogLines? = nil) throws
    -> SharedHistory
  {
    SharedHistory(
      address: try HistoryAddress(parsing: postgres.url),
      logger: Logger(label: "test") { _ in
        lines.map { CapturingLogHandler(lines: $0) } ?? CapturingLogHandler(lines: LogLines())
      })
  }

  /// Whether what PostgreSQL keeps is, bit for bit, what its rows folded in the order
  /// stored give, and what `expected` gives.
  static func expectKept(_ history: SharedHistory, equal expected: PlayerRatings) async throws {
    let (kept, recomputed) = try await history.ratings()
    #expect(!kept.ratings.isEmpty)
    #expect(RatingJournalTests.differences(kept, recomputed).isEmpty)
    // Keyless players, kept by their names' keys.
    var keyed = PlayerRatings()
    for (name, rating) in expected.ratings {
      keyed.set(SharedHistory.key(name: name, identity: nil), rating)
    }
    let differ = RatingJournalTests.differences(kept, keyed)
    #expect(differ.isEmpty, "\(differ.prefix(3))")
  }

  @Test("two servers storing at once: rated in the order stored, kept equal to recomputed")
  func orderStored() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let (one, two) = (try Self.history(postgres), try Self.history(postgres))
    try await one.migrate()
    try await two.migrate()
    let first = Self.matches(150, seed: 1)
    let second = Self.matches(150, seed: 2)
    // Each server ships its batches (of 1 to 7, some sent twice, as after a crash),
    // both at once.
    func ship(_ history: SharedHistory, _ matches: [FinishedMatch], _ server: String)
      async throws
    {
      var generator = SplitMix64(seed: UInt64(server.utf8.last!))
      var rest = matches[...]
      while !rest.isEmpty {
        let batch = Array(rest.prefix(Int.random(in: 1...7, using: &generator)))
        rest = rest.dropFirst(batch.count)
        #expect(try await history.store(batch, serverID: server) == batch.count)
        if Bool.random(using: &generator) {
          #expect(try await history.store(batch, serverID: server) == 0)
        }
      }
    }
    async let a: Void = ship(one, first, "s1")
    async let b: Void = ship(two, second, "s2")
    _ = try await (a, b)
    // The order they were stored in, as PostgreSQL numbered them.
    let order = try await blocking {
      try postgres.psql(
        "SELECT server_id, match_id FROM roshambo_matches ORDER BY rated_order"
      )
    }.split(separator: "\n").map { line in
      let parts = line.split(separator: "|")
      return (parts[0] == "s1" ? first : second)[Int(parts[1])! - 1]
    }
    #expect(order.count == 300)
    #expect(
      try await blocking {
        try postgres.psql("SELECT min(rated_order), max(rated_order) FROM roshambo_matches")
      }
        == "1|300")
    let expected = PlayerRatings.recomputed(from: order)
    try await Self.expectKept(one, equal: expected)
    // The board: ranked by rating, from the kept ratings.
    let board = try await two.leaderboard(limit: 10, listedOpponents: 0)
    #expect(
      board.map(\.rating)
        == LobbyView.Leader.ranked(
          expected.ratings.map { .init(name: $0, won: 0, lost: 0, rating: .init($1)) }
        ).prefix(10).map(\.rating))
    await one.close()
    await two.close()
  }

  @Test("a shared history from before ratings is ordered as stored and rated on upgrade")
  func upgradeRates() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    // Schema version 2, as the release before ratings left it, with matches stored one
    // after another (the latest stored first here, to show the order is the storing).
    let version2 = SharedHistory.migrations.prefix(2).joined(separator: ";\n")
    _ = try await blocking {
      try postgres.psql(
        "CREATE TABLE roshambo_schema (version integer NOT NULL);\n" + version2
          + ";\nINSERT INTO roshambo_schema VALUES (1), (2)")
    }
    let matches = Self.matches(40, seed: 3)
    for (index, match) in matches.enumerated() {
      _ = try postgres.psql(
        """
        INSERT INTO roshambo_matches (server_id, match_id, room, finished_at, ruleset, best_of,
          player1, player2, score1, score2, winner, forfeit, fair, stored_at) VALUES
          ('s1', \(match.id!), 'den', \(100 - index), 'classic', 1, '\(match.players[0])',
          '\(match.players[1])', \(match.scores[0]), \(match.scores[1]), '\(match.winner)',
          false, false, timestamp '2026-11-25 18:00:00' + interval '\(index) seconds');
        INSERT INTO roshambo_standings (name, won, lost) VALUES
          ('\(match.players[0])', \(match.scores[0]), \(match.scores[1])),
          ('\(match.players[1])', \(match.scores[1]), \(match.scores[0]))
          ON CONFLICT (name) DO UPDATE SET won = roshambo_standings.won + excluded.won,
            lost = roshambo_standings.lost + excluded.lost;
        """)
    }
    let history = try Self.history(postgres)
    try await history.migrate()
    #expect(
      try await blocking { try postgres.psql("SELECT max(version) FROM roshambo_schema") }
        == "\(SharedHistory.migrations.count)")
    try await Self.expectKept(history, equal: PlayerRatings.recomputed(from: matches))
    // The matches stored after the upgrade are rated on from there.
    let later = Self.matches(20, from: 41, seed: 4)
    #expect(try await history.store(later, serverID: "s1") == 20)
    try await Self.expectKept(history, equal: PlayerRatings.recomputed(from: matches + later))
    await history.close()
  }

  @Test(
    "a rating another program broke: left out of the board and said once; the next store of that player refused, naming it; --rate-again mends it"
  )
  func brokenRating() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let lines = LogLines()
    let history = try Self.history(postgres, lines: lines)
    try await history.migrate()
    let matches = Self.matches(60, seed: 5)
    #expect(try await history.store(matches, serverID: "s1") == 60)
    let top = try #require(try await history.leaderboard(limit: 1, listedOpponents: 0).first?.name)
    _ = try await blocking {
      try postgres.psql(
        "UPDATE roshambo_standings SET deviation = -3 WHERE name = '\(top)'")
    }
    let board = try await history.leaderboard(limit: 10, listedOpponents: 0)
    #expect(board.count == 10 && !board.contains { $0.name == top })
    _ = try await history.leaderboard(limit: 10, listedOpponents: 0)
    #expect(
      lines.text.components(separatedBy: "holds a rating that cannot be one").count - 1 == 1,
      "\(lines.text)")
    // A match of that player is not stored while the row is broken: it waits.
    let next = FinishedMatch(
      id: 61, room: "den", finishedAt: 61, ruleset: "classic", bestOf: 1,
      players: [top, "P99"], scores: [1, 0], winner: top, forfeit: false, fair: false)
    let refused = await #expect(throws: HistoryError.self) {
      try await history.store([next], serverID: "s1")
    }
    #expect(
      refused?.description.contains("roshambo_standings holds a rating for \"\(top)\"") == true,
      "\(String(describing: refused))")
    #expect(try await history.count() == 60)
    // Rated again from the matches, in the order stored: mended, and the match goes in.
    let server = try ServerProcess(["history", "--history-url", postgres.url, "--rate-again"])
    let (status, said) = await server.finish()
    #expect(status == 0 && said.contains("rated every match of the shared history"), "\(said)")
    try await Self.expectKept(history, equal: PlayerRatings.recomputed(from: matches))
    #expect(try await history.store([next], serverID: "s1") == 1)
    try await Self.expectKept(history, equal: PlayerRatings.recomputed(from: matches + [next]))
    #expect(
      try await history.leaderboard(limit: 10, listedOpponents: 0).contains { $0.name == top })
    await history.close()
  }
}

extension SharedRatingsTests {
  /// A rated match `winner` won against `loser`, each a name and the identity holding it.
  static func rated(
    _ id: Int64, _ winner: (String, String), _ loser: (String, String)
  ) -> FinishedMatch {
    var match = FinishedMatch(
      id: id, room: "den", finishedAt: id, ruleset: "classic", bestOf: 1,
      players: [winner.0, loser.0], scores: [1, 0], winner: winner.0, forfeit: false,
      fair: false, rated: true)
    match.identities = [winner.1, loser.1]
    return match
  }

  @Test("a name another identity uses on another server rates that identity, not the holder")
  func ratedByIdentity() async throws {
    let postgres = try await blocking { try PostgresProcess() }
    defer { postgres.remove() }
    let history = try Self.history(postgres)
    try await history.migrate()
    let (alice, mallory) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
    let others = (1...3).map { String(repeating: "\($0)", count: 64) }
    // Alice, on server 1, beats three people: settled enough to be listed.
    let honest = (1...3).map { Self.rated(Int64($0), ("Alice", alice), ("P\($0)", others[$0 - 1])) }
    #expect(try await history.store(honest, serverID: "s1") == 3)
    let before = try #require(try await history.leaderboard(limit: 10).first)
    #expect(before.name == "Alice" && before.won == 3)
    // Someone else's identity goes by "Alice" on server 2 and loses ten times.
    let losses = (1...10).map {
      Self.rated(Int64($0), ("P\($0 % 3 + 1)", others[$0 % 3]), ("Alice", mallory))
    }
    #expect(try await history.store(losses, serverID: "s2") == 10)
    let (kept, _) = try await history.ratings()
    let key = SharedHistory.key(name: "Alice", identity: alice)
    #expect(kept[key].rating == before.rating.map(\.points))
    #expect(kept[SharedHistory.key(name: "Alice", identity: mallory)].rating < 1400)
    let after = try await history.leaderboard(limit: 10, listedOpponents: 0)
    // Two rows under one name: the holder's, untouched, and the other identity's.
    #expect(after.filter { $0.name == "Alice" }.map(\.won).sorted() == [0, 3])
    try await Self.expectKeptEqualsRecomputed(history)
    await history.close()
  }

  /// Whether what PostgreSQL keeps is what its rows folded in the order stored give.
  static func expectKeptEqualsRecomputed(_ history: SharedHistory) async throws {
    let (kept, recomputed) = try await history.ratings()
    #expect(RatingJournalTests.differences(kept, recomputed).isEmpty)
  }
}

/// Rows read back from the shared history keep the protocol's rules, or are left out.
@Suite("Shared history: rows read back")
struct HistoryRowsTests {
  @Test("a leaderboard keeps only names that keep the name rule, filled from the extra rows")
  func leaders() {
    let long = String(repeating: "A", count: 100_000)
    let escape = "\u{1B}]52;c;aGk=\u{07}Mallory"
    let names = [long, "Alice", escape, "Bob", long, "Cy", "Di"]
    let rows = names.map { (LobbyView.Leader(name: $0, won: 1, lost: 0), Glicko2Rating.unrated) }
    let checked = HistoryRows(leaders: rows, limit: 3)
    #expect(checked.kept.map(\.0.name) == ["Alice", "Bob", "Cy"])
    #expect(checked.broken.map(\.text) == [long, escape])
    #expect(checked.broken[0].problem.contains("at most"))
    #expect(checked.broken[1].problem.contains("U+1B"))
    #expect(HistoryRowsTests.fetches(limit: 10) > 10)
  }

  @Test("recent matches keep only rows whose players, winner and room keep the rules")
  func matches() {
    func match(_ id: Int64, room: String = "den", _ one: String, _ two: String) -> FinishedMatch {
      FinishedMatch(
        id: id, room: room, finishedAt: id, ruleset: "classic", bestOf: 1, players: [one, two],
        scores: [1, 0], winner: one, forfeit: false, fair: false)
    }
    let rows = [
      match(1, "Alice", "Bob"), match(2, "Bob", "\u{9B}31m"), match(3, room: "a b", "Cy", "Di"),
      match(4, "Di", "Cy"),
    ]
    let checked = HistoryRows(matches: rows, limit: 5)
    #expect(checked.kept.map(\.id) == [1, 4])
    #expect(checked.broken.map(\.text) == ["\u{9B}31m", "a b"])
  }

  static func fetches(limit: Int) -> Int {
    HistoryRows<LobbyView.Leader>.fetchCount(for: limit)
  }
}

extension PostgresProcess {
  /// How many matches the shared history holds, as psql prints it (nil until the tables
  /// exist).
  var storedMatches: String? { try? psql("SELECT count(*) FROM roshambo_matches") }
}

/// The journal's outbox while the shared history cannot be reached: bounded, counted,
/// and said.
@Suite("Shared history: the outbox while PostgreSQL is away")
struct HistoryOutboxTests {
  func match(at: Int64) -> FinishedMatch {
    FinishedMatch(
      id: nil, room: "den", finishedAt: at, ruleset: "classic", bestOf: 1,
      players: ["Ann", "Bo"], scores: [1, 0], winner: "Ann", forfeit: false, fair: false)
  }

  @Test("past its bound the oldest leave the outbox, counted; the journal keeps every match")
  func bounded() throws {
    let journal = try Journal(
      directory: temporaryDataDirectory(), shipsHistory: true, maxOutbox: 10)
    for at in 1...25 { try journal.append([], matches: [match(at: Int64(at))]) }
    let waiting = try journal.unshippedCount()
    #expect((9...10).contains(waiting), "\(waiting)")
    #expect(journal.outboxLevel.waiting == waiting)
    #expect(journal.outboxLevel.dropped == 25 - waiting)
    // The newest wait; the oldest went.
    let next = try journal.database.read { try Journal.matches($0, inOutboxUpTo: 100) }
    #expect(next.map(\.finishedAt) == Array(Int64(26 - waiting)...25))
    #expect(try journal.recentMatches(limit: 100).count == 25)
    try journal.acknowledgeShipped(next.prefix(4).compactMap(\.id))
    #expect(journal.outboxLevel.waiting == waiting - 4)
  }

  @Test("the shipper says how many were dropped, once for each time, and scrapes show both")
  func saidAndCounted() async throws {
    let (journal, _) = try await JournalThread.open(
      directory: temporaryDataDirectory(), keepMatches: 100, quickCommitMicros: 0,
      shipsHistory: true, maxOutbox: 10
    ) { _ in () }
    for at in 1...12 { _ = try await journal.commit([], matches: [match(at: Int64(at))]).get() }
    let lines = LogLines()
    let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
    let prometheus = PrometheusMetrics(version: "test", protocolVersion: 1, commit: "test")
    // Nothing listens on port 1: every attempt fails at once.
    let shipper = HistoryShipper(
      history: SharedHistory(
        address: try HistoryAddress(parsing: "postgres://roshambo@127.0.0.1:1/roshambo"),
        logger: logger),
      journal: journal, context: HistoryContext(logger: logger, metrics: prometheus.server))
    // Outside a group: the task's cancellation stops it.
    let shipping = Task { try await shipper.run() }
    let deadline = ContinuousClock.now + .seconds(10)
    while !lines.text.contains("dropped"), ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    shipping.cancel()
    try await shipping.value
    let said = lines.text
    #expect(
      said.contains(
        "2 of the oldest finished matches waiting for the shared history were dropped from "
          + "the journal's outbox"), "\(said)")
    #expect(said.components(separatedBy: "were dropped").count == 2, "said once")
    let scraped = samples(String(decoding: prometheus.exposition(), as: UTF8.self))
    #expect(scraped["roshambo_history_matches_waiting"] == 10)
    #expect(scraped["roshambo_history_matches_dropped_total"] == 2)
    try await journal.close()
  }
}
