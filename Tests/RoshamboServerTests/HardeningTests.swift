import Foundation
import GRDB
import Logging
import NIOCore
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboJournal
@testable import RoshamboServer

/// The server under attack and faults: each test makes one attack or fault happen for
/// real and checks that nobody is knocked off and nothing is lost.
@Suite("Server: attacks and faults", .serialized)
struct HardeningTests {
  @Test("a name of one character with 32,700 combining accents is refused; the room plays on")
  func craftedName() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      let attacker = try await TestClient.connect(port: server.port)
      let name = "a" + String(repeating: "\u{301}", count: 32_700)
      #expect(name.count == 1)
      attacker.send(
        .hello(
          protocol: WireProtocol.version, name: name, role: .player, room: nil, resume: nil, id: 5))
      let (error, re) = try await attacker.expectError(.badMessage)
      #expect(re == 5)
      #expect(error.message.contains("bytes"))
      for invisible in ["\u{3164}\u{3164}", "\u{2800}", "\u{200B}x", "  ", "a\u{202E}b"] {
        attacker.send(
          .hello(
            protocol: WireProtocol.version, name: invisible, role: .player, room: nil, resume: nil,
            id: 6))
        #expect(try await attacker.expectError(.badMessage).re == 6)
      }
      // A decomposed name is stored composed (NFC).
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Zoe\u{308}", room: "nfc")
      #expect(try await carol.nextState().view.player(.one)?.name == "Zo\u{EB}")
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    }
  }

  @Test("a huge value in any field is never echoed whole: every error frame stays small")
  func hugeFieldsAreCut() async throws {
    try await withServer { server in
      let client = try await TestClient.connect(port: server.port)
      let huge = String(repeating: "R", count: 65_400)
      let texts = [
        #"{"type":"hello","protocol":1,"name":"Al","role":"\#(huge)","id":1}"#,
        #"{"type":"\#(huge)","id":2}"#,
        #"{"type":"hello","protocol":1,"name":"\#(huge)","id":3}"#,
        #"{"type":"hello","protocol":1,"name":"Al","room":"\#(huge)","id":4}"#,
        #"{"type":"hello","protocol":1,"name":"Al","resume":"\#(huge)","id":5}"#,
        #"{"type":"choose","round":1,"weapon":"\#(huge)","id":6}"#,
      ]
      for (index, text) in texts.enumerated() {
        client.sendRaw(ByteBufferFrames.frame(text))
        let message = try await client.next()
        guard case .error(_, let re) = message else {
          Issue.record("expected an error, got \(message)")
          continue
        }
        #expect(re == index + 1)
      }
      let largest = client.inbox.frames.map(\.count).max() ?? 0
      #expect(largest < 1_000, "the largest error frame has \(largest) bytes")
    }
  }

  @Test("a room takes at most 100 spectators; the rest are told so and other rooms play on")
  func spectatorCap() async throws {
    try await withServer { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      var crowd: [TestClient] = []
      for _ in 0..<RoomState.maxSpectators {
        let watcher = try await TestClient.connect(port: server.port)
        try await watcher.hello(name: "W", room: "den", role: .spectator)
        crowd.append(watcher)
      }
      let late = try await TestClient.connect(port: server.port)
      let refused = try await late.hello(name: "Late", room: "den", role: .spectator)
      guard case .error(let error, _) = refused else {
        Issue.record("expected a refusal, got \(refused)")
        return
      }
      #expect(error.code == .roomFull && error.message.contains("spectators"))
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      for watcher in crowd { await watcher.close() }
    }
  }

  @Test("history from a tampered journal: names quoted and escaped, no forged report line")
  func tamperedHistory() async throws {
    let data = temporaryDataDirectory()
    try await withServer(dataDirectory: data) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 2)
    }
    let database = try DatabaseQueue(path: data + "/roshambo.sqlite")
    try await database.write { db in
      try db.execute(
        sql: "UPDATE matches SET player1 = ?, winner = ?",
        arguments: [
          "\u{1B}[2J\u{1B}]0;pwned\u{07}Eve", "x\nLeaderboard (matches won, lost):\n  1. Eve",
        ])
    }
    try database.close()
    // History reads without writing: the file is the same byte for byte afterwards.
    let file = data + "/roshambo.sqlite"
    let before = try Data(contentsOf: URL(fileURLWithPath: file))
    let report = try MatchHistory(dataDirectory: data).report(limit: 5)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    #expect(!report.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    let lines = report.split(separator: "\n")
    #expect(lines.filter { $0.hasPrefix("Leaderboard") }.count == 1, "\(report)")
    #expect(!lines.contains { $0.hasPrefix("  1. Eve") }, "\(report)")
    #expect(lines.contains { $0.contains(#"winner: "x\u{a}Leaderboard"#) }, "\(lines)")
  }

  @Test("the message id is echoed as re whenever it can be read")
  func errorsEchoID() async throws {
    try await withServer { server in
      let client = try await TestClient.connect(port: server.port)
      let cases: [(String, ErrorCode)] = [
        (#"{"id":11}"#, .badMessage),
        (#"{"type":"dance","id":11}"#, .badMessage),
        (
          #"{"type":"hello","protocol":1,"name":"\#(String(repeating: "x", count: 30))","id":11}"#,
          .badMessage
        ),
        (#"{"type":"hello","protocol":1,"name":"Al","room":"no spaces","id":11}"#, .badMessage),
        (#"{"type":"choose","round":1,"weapon":"banana","id":11}"#, .invalidWeapon),
        (#"{"type":"choose","round":"one","id":11}"#, .badMessage),
      ]
      for (text, code) in cases {
        client.sendRaw(Array(ByteBufferFrames.frame(text)))
        #expect(try await client.expectError(code).re == 11, "\(text)")
      }
    }
  }

  @Test("a frame sent a byte at a time does not keep a connection open past the idle limit")
  func partialFrame() async throws {
    try await withServer(limits: { $0.idleTimeoutSeconds = 2 }) { server in
      let client = try await TestClient.connect(port: server.port)
      try await client.hello(name: "Slow", room: "slow")
      _ = try await client.nextState()
      client.sendRaw([0, 0, 0xFD, 0xE8])  // a 65,000-byte frame, started
      let started = ContinuousClock.now
      // A byte every 250 ms for up to 60 s: a limit that each byte restarted would never
      // close it; the idle limit (2 s) does, however loaded the machine.
      while !client.inbox.isClosed, ContinuousClock.now - started < .seconds(60) {
        client.sendRaw([0x20])
        try await Task.sleep(for: .milliseconds(250))
      }
      #expect(client.inbox.isClosed)
      #expect(try await client.expectError(.timeout).error.fatal)
    }
  }

  @Test("one address cannot take every slot: another address still gets in")
  func perAddressLimit() async throws {
    try await withServer(limits: { $0.maxConnectionsPerAddress = 3 }) { server in
      var held: [TestClient] = []
      for index in 0..<3 {
        let client = try await TestClient.connect(port: server.port)
        try await client.hello(name: "Hog\(index)", room: "hog\(index)")
        held.append(client)
      }
      let fourth = try await TestClient.connect(port: server.port)
      let (error, _) = try await fourth.expectError(.serverFull)
      #expect(error.fatal && error.message.contains("address"))
      let other = try await TestClient.connect(port: server.port, from: "127.0.0.2")
      let welcome = try await other.hello(name: "Guest", room: "guest")
      #expect(
        welcome
          == ServerMessage.welcome(room: "guest", seat: .one, token: other.token).announcing(
            .serverDefault))
    }
  }

  @Test(
    "a full disk: nothing unsaved is sent, the lobby rolls back, play resumes by itself",
    arguments: [
      ("commits on the hub's loop while quick", 1_000_000), ("on the journal's thread", 0),
    ]
  )
  func journalFailure(_: String, inlineCommitMicros: Int) async throws {
    let data = temporaryDataDirectory()
    var configuration = testConfiguration(dataDirectory: data)
    configuration.journalInlineCommitMicros = inlineCommitMicros
    configuration.journalRetryMillis = 50
    configuration.roomSettings = RoomState.Settings(bestOf: 99)
    // The server's log is kept, not printed: the failure it must report is expected here.
    let log = LogLines()
    let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: log) }
    let before = try await withServer(configuration, logger: logger) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      // The database may not grow: rows fill the pages it has, then a commit fails.
      try await server.withJournal { try $0.limitPagesToCurrent() }
      let refusal = try await drawUntilRefused(alice, bob, from: 1)
      let error = try #require(refusal, "the limited journal never refused a write")
      #expect(error.code == .unavailable && !error.fatal)
      #expect(log.text.contains("journal write failed"), "the operator is told: \(log.text)")
      // Everything sent before the refusal has arrived once a ping is answered.
      let seen = try await [alice, bob].asyncMap { try await $0.drainToPong() }.max()!
      // Nobody saw anything unsaved, and the lobby is back at exactly what was saved.
      let version = try #require(try await server.lobby().rooms["den"]?.version)
      #expect(version == seen)
      // While the disk is full, every action is answered and nothing changes.
      let current = try await server.lobby().rooms["den"]!.round
      let paused = try await pick(bob, round: current, .paper, id: 900)
      #expect(paused?.code == .unavailable)
      #expect(try await server.lobby().rooms["den"]?.version == version)
      // Space comes back: play resumes without a restart.
      try await server.withJournal { try $0.limitPages(1_000_000) }
      // (Bob's pick was refused in the open round, so he has not chosen in it; tries are
      // spaced to stay under the rate limit.)
      var resumed = false
      for _ in 0..<50 where !resumed {
        let open = try await server.lobby().rooms["den"]!.round
        let refused = try await pick(bob, round: open, .scissors, id: 1_000)
        #expect(refused == nil || refused?.code == .unavailable)
        resumed = refused == nil
        if !resumed { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(resumed)
      return try await server.lobby()
    }
    let after = try await withServer(configuration) { try await $0.lobby() }
    #expect(after.rooms["den"]?.history == before.rooms["den"]?.history)
    #expect(after.rooms["den"]!.version >= before.rooms["den"]!.version)
  }

  @Test("a corrupt journal row names the file and row; --recover moves the file aside")
  func corruptRow() async throws {
    let data = temporaryDataDirectory()
    try await withServer(dataDirectory: data, compactionInterval: 1_000) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
    }
    let database = try DatabaseQueue(path: data + "/roshambo.sqlite")
    try await database.write { db in
      let last = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal") ?? 0
      try db.execute(
        sql: "INSERT INTO journal (seq, action) VALUES (?, ?)",
        arguments: [last + 1, #"{"room":{"_0":"den","_1":{"explode":{}}}}"#])
    }
    try database.close()
    await #expect {
      try await withServer(dataDirectory: data) { _ in }
    } throws: { error in
      let text = "\(error)"
      return text.contains("roshambo.sqlite") && text.contains("row") && text.contains("--recover")
    }
    let said = try GameServer.recoverJournal(directory: data, defaults: .init())
    #expect(said.contains("damaged"))
    let kept = try FileManager.default.contentsOfDirectory(atPath: data)
    #expect(kept.contains { $0.hasPrefix("roshambo.sqlite.damaged-") })
    let lobby = try await withServer(dataDirectory: data) { try await $0.lobby() }
    #expect(lobby.rooms["den"]?.history.count == 1)
  }

  @Test("the data directory is private and holds no resume token")
  func secretsAtRest() async throws {
    let data = temporaryDataDirectory()
    let token = try await withServer(dataDirectory: data) { server in
      let (alice, _) = try await seatTwo(port: server.port)
      return try #require(alice.token)
    }
    let files = FileManager.default
    #expect(try files.attributesOfItem(atPath: data)[.posixPermissions] as? Int == 0o700)
    for name in try files.contentsOfDirectory(atPath: data) {
      let path = data + "/" + name
      #expect(
        try files.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600, "\(name)")
      let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
      #expect(bytes.range(of: Data(token.utf8)) == nil, "\(name) holds the token")
    }
    // The token still takes the seat back.
    try await withServer(dataDirectory: data) { again in
      let back = try await TestClient.connect(port: again.port)
      #expect(
        try await back.hello(name: "Alice", resume: token)
          == ServerMessage.welcome(room: "den", seat: .one, token: token).announcing(.serverDefault)
      )
    }
  }

  @Test("log fields cannot be forged, and are cut")
  func logFields() async throws {
    let lines = LogLines()
    let configuration = testConfiguration(dataDirectory: nil)
    try await withServer(
      configuration, logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
    ) { server in
      let client = try await TestClient.connect(port: server.port)
      try await client.hello(name: "x room=admin seat=9", room: "logroom")
      _ = try await client.nextState()
    }
    let joined = try #require(lines.text.split(separator: "\n").first { $0.contains("joined") })
    #expect(joined.contains(#"name=\"x room=admin seat=9\""#))
    #expect(!joined.contains("room=admin,"))
    #expect(LogText.quoted(String(repeating: "y", count: 60_000)).count < 100)
  }
}

/// Plays drawn rounds from round `from` until a pick is refused (or 2,000 rounds pass);
/// returns the refusal.
func drawUntilRefused(_ alice: TestClient, _ bob: TestClient, from first: Int) async throws
  -> ProtocolError?
{
  for round in first..<first + 2_000 {
    if let refusal = try await pick(alice, round: round, .rock, id: round) { return refusal }
    if let refusal = try await pick(bob, round: round, .rock, id: round) { return refusal }
  }
  return nil
}

/// Sends a pick and reads until the server took it (a state shows it, or the round moved
/// on) or refused it; returns the refusal.
func pick(_ client: TestClient, round: Int, _ weapon: Weapon, id: Int) async throws
  -> ProtocolError?
{
  client.send(.choose(round: round, weapon: weapon, id: id))
  while true {
    switch try await client.next() {
    case .state(_, let view):
      if view.round > round || view.phase != .choosing
        || view.player(client.seat!)?.chosen == true
      {
        return nil
      }
    case .error(let error, _): return error
    default: continue
    }
  }
}

extension TestClient {
  /// Reads until a pong answers a ping sent now; returns the highest `seq` received.
  func drainToPong() async throws -> Int {
    send(.ping(id: 4_242))
    while try await next() != .pong(id: 4_242) {}
    return inbox.messages.compactMap { message -> Int? in
      if case .state(let seq, _) = message { return seq }
      return nil
    }.max() ?? 0
  }
}

extension Array {
  fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var out: [T] = []
    for element in self { out.append(try await transform(element)) }
    return out
  }
}

@Suite("Server: handshake failures are summarized")
struct HandshakeFailureLogTests {
  @Test("a flood from one address logs one line per interval, then a count")
  func flood() {
    let lines = LogLines()
    let log = HandshakeFailureLog(
      logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) })
    let start = NIODeadline.now()
    struct Failure: Error {}
    for offset in 0..<3_000 {
      log.record(
        address: "10.0.0.1", error: Failure(), at: start + .milliseconds(Int64(offset)))
    }
    log.record(address: "10.0.0.2", error: Failure(), at: start)
    #expect(lines.text.split(separator: "\n").count == 2)
    log.record(address: "10.0.0.1", error: Failure(), at: start + .seconds(11))
    let text = lines.text
    #expect(text.contains("count=2999"), "\(text)")
    #expect(text.split(separator: "\n").count == 4)
  }
}

@Suite("Server: bounded state")
struct BoundedStateTests {
  @Test("endless draws keep a room's history at the view's limit")
  func endlessDraws() {
    var room = RoomState(name: "draws")
    room.apply(.playerJoined(name: "A", token: "a", at: 0))
    room.apply(.playerJoined(name: "B", token: "b", at: 0))
    for round in 1...1_000 {
      room.apply(.chose(seat: .one, round: round, weapon: .rock, at: 0))
      room.apply(.chose(seat: .two, round: round, weapon: .rock, at: 0))
    }
    #expect(room.round == 1_001)
    #expect(room.history.count == RoomView.historyLimit)
    #expect(room.history.last?.round == 1_000)
  }

  @Test("old matches are pruned past the limit; the leaderboard keeps every total")
  func matchRetention() throws {
    let journal = try Journal(directory: temporaryDataDirectory(), keepMatches: 5)
    // Totals are the subject: everyone is listed, whoever they played.
    journal.listedOpponents = 1
    var room = RoomState(name: "den", settings: .init(bestOf: 1))
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 0))
    room.apply(.chose(seat: .two, round: 1, weapon: .scissors, at: 0))
    for at in 0..<40 {
      try journal.append([], matches: [FinishedMatch(room: room, at: Int64(at))])
    }
    // Before the standings are folded, every match is kept and counted.
    #expect(try journal.recentMatches(limit: 100).count == 40)
    #expect(try journal.leaderboard(limit: 10).first { $0.name == "Alice" }?.won == 40)
    #expect(try journal.foldStandings() == false)
    #expect(try journal.recentMatches(limit: 100).count == 5)
    let board = try journal.leaderboard(limit: 10)
    #expect(board.first { $0.name == "Alice" }?.won == 40)
    #expect(board.first { $0.name == "Bob" }?.lost == 40)
  }

  @Test("matches not folded into the standings when the server stopped are counted, then folded")
  func unfoldedAcrossRestart() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    var room = RoomState(name: "den", settings: .init(bestOf: 1))
    room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
    room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 0))
    room.apply(.chose(seat: .two, round: 1, weapon: .scissors, at: 0))
    try journal.append([], matches: [FinishedMatch(room: room, at: 1)])
    try journal.foldStandings()
    try journal.append(
      [], matches: [FinishedMatch(room: room, at: 2), FinishedMatch(room: room, at: 3)])
    // Stopped before the fold: reopened, the two are still waiting and still counted.
    let reopened = try Journal(directory: directory)
    reopened.listedOpponents = 1
    #expect(reopened.unfoldedMatches == 2)
    let before = try reopened.leaderboard(limit: 10)
    #expect(before.map(\.name) == ["Alice", "Bob"])
    #expect(before.map(\.won) == [3, 0] && before.map(\.lost) == [0, 3])
    #expect(try reopened.foldStandings() == false)
    #expect(reopened.unfoldedMatches == 0)
    #expect(try reopened.leaderboard(limit: 10).map(\.won) == [3, 0])
  }

  @Test("a flood of new names keeps the leaderboard bounded, and its top right")
  func standingsBounded() throws {
    let journal = try Journal(directory: temporaryDataDirectory())
    journal.listedOpponents = 1
    func match(_ winner: String, _ loser: String) -> FinishedMatch {
      var room = RoomState(name: "den", settings: .init(bestOf: 1))
      room.apply(.playerJoined(name: winner, token: "a", at: 0))
      room.apply(.playerJoined(name: loser, token: "b", at: 0))
      room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 0))
      room.apply(.chose(seat: .two, round: 1, weapon: .scissors, at: 0))
      return FinishedMatch(room: room, at: 0)
    }
    try journal.append([], matches: (0..<3).map { _ in match("Champion", "Rival") })
    // Pairs of names never seen before, more than the leaderboard keeps.
    let flood = (Journal.keepStandings + Journal.standingsBatch) / 2 + 10
    for start in stride(from: 0, to: flood, by: 500) {
      try journal.append(
        [], matches: (start..<min(flood, start + 500)).map { match("w\($0)", "l\($0)") })
    }
    #expect(try journal.leaderboard(limit: 1).first?.won == 3)
    while try journal.foldStandings() {}
    let board = try journal.leaderboard(limit: 100_000)
    #expect(board.count < Journal.keepStandings + Journal.standingsBatch)
    #expect(board.first?.name == "Champion" && board.first?.won == 3)
    #expect(board.contains { $0.name == "Rival" } == false, "losers go first")
    // Those dropped are forgotten by the ratings a commit starts from too.
    #expect(try journal.ratings == journal.keptRatings())
    #expect(journal.ratings.ratings["Rival"] == nil)
    // The count the journal keeps matches the table after a reopen.
    let reopened = try Journal(
      directory: journal.path.replacingOccurrences(
        of: "/roshambo.sqlite", with: ""))
    reopened.listedOpponents = 1
    #expect(try reopened.leaderboard(limit: 100_000).count == board.count)
  }
}
