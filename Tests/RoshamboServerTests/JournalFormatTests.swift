import Foundation
import GRDB
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboServer

/// `lobby` as the journal loads it: journals written before tokens were hashed hold the
/// tokens themselves, which loading hashes.
func tokensHashed(_ lobby: LobbyState) -> LobbyState {
  var lobby = lobby
  for (name, room) in lobby.rooms {
    for (seat, held) in room.seats {
      lobby.rooms[name]!.seats[seat]!.token = ResumeToken.upgraded(held.token)
    }
  }
  return lobby
}

@Suite("Server: the journal's format")
struct JournalFormatTests {
  static let actions: [LobbyAction] = [
    .join(room: "den", name: "Zoë \"Z\" 🎲", token: "t\\1", at: 1),
    .join(room: nil, name: "tab\there", token: "t2", at: 2),
    .spectate(room: "den"),
    .room("den", .playerJoined(name: "new\nline", token: "t3", at: 3)),
    .room("den", .spectatorJoined), .room("den", .spectatorLeft),
    .room("den", .chose(seat: .one, round: 4, weapon: .spock, at: 4)),
    .room("den", .disconnected(seat: .two, at: 5)), .room("den", .reconnected(seat: .two, at: 6)),
    .room("den", .left(seat: .one, at: 7)), .room("den", .deadlinePassed(round: 2, at: 8)),
    .room("den", .graceExpired(seat: .two, at: 9)),
    .room("den", .rematchRequested(seat: .one, at: Int64.max)),
  ]

  @Test("every hand-written action reads back through its Codable conformance")
  func handWrittenMatchesCodable() throws {
    for action in Self.actions {
      var json = JSONText()
      json.lobbyAction(action)
      #expect(try JSONDecoder().decode(LobbyAction.self, from: Data(json.bytes)) == action)
    }
  }

  @Test("a journal in the first layout (AUTOINCREMENT) is migrated with its actions and matches")
  func migratesFirstLayout() throws {
    let directory = temporaryDataDirectory()
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let old = try DatabaseQueue(path: directory + "/roshambo.sqlite")
    let encoder = JSONEncoder()
    let journaled: [LobbyAction] = [
      .join(room: "den", name: "Alice", token: "a", at: 1),
      .join(room: "den", name: "Bob", token: "b", at: 2),
      .room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 3)),
    ]
    try old.write { db in
      try db.execute(
        sql: """
          CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
          INSERT INTO grdb_migrations VALUES ('v1');
          CREATE TABLE journal (seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL);
          CREATE TABLE snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL);
          CREATE TABLE matches (
            id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL, finished_at INTEGER NOT NULL,
            ruleset TEXT NOT NULL, best_of INTEGER NOT NULL, player1 TEXT NOT NULL,
            player2 TEXT NOT NULL, score1 INTEGER NOT NULL, score2 INTEGER NOT NULL,
            winner TEXT NOT NULL, forfeit INTEGER NOT NULL);
          INSERT INTO matches (room, finished_at, ruleset, best_of, player1, player2, score1,
            score2, winner, forfeit) VALUES ('old', 5, 'classic', 3, 'Ann', 'Ben', 2, 0, 'Ann', 0);
          """)
      for action in journaled {
        try db.execute(
          sql: "INSERT INTO journal (action) VALUES (?)",
          arguments: [String(decoding: try encoder.encode(action), as: UTF8.self)])
      }
    }
    try old.close()
    let journal = try Journal(directory: directory)
    var finished = RoomState(name: "new")
    finished.apply(.playerJoined(name: "Cy", token: "c", at: 1))
    finished.apply(.playerJoined(name: "Di", token: "d", at: 1))
    finished.apply(.left(seat: .two, at: 2))
    let later: LobbyAction = .room("den", .disconnected(seat: .two, at: 4))
    try journal.append([later], matches: [FinishedMatch(room: finished, at: 9)])
    #expect(try journal.recentMatches(limit: 5).map(\.room) == ["new", "old"])
    var expected = LobbyState(defaults: .init())
    for action in journaled + [later] { expected.apply(action) }
    let loaded = try journal.load(defaults: .init())
    #expect(loaded.actions == 4)
    #expect(loaded.lobby == tokensHashed(expected))
    #expect(try journal.leaderboard(limit: 5).map(\.name).sorted() == ["Ann", "Ben", "Cy", "Di"])
    #expect(loaded.lobby.rooms["den"]?.seats[.one]?.pick == .rock)
  }

  @Test("a snapshot written while later actions are journaled keeps those actions")
  func snapshotWhileAppending() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    let actions: [LobbyAction] = [
      .join(room: "den", name: "Alice", token: "a", at: 1),
      .join(room: "den", name: "Bob", token: "b", at: 2),
      .room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 3)),
      .room("den", .chose(seat: .two, round: 1, weapon: .paper, at: 4)),
      .room("den", .chose(seat: .one, round: 2, weapon: .scissors, at: 5)),
    ]
    var lobby = LobbyState(defaults: .init())
    for action in actions.prefix(3) { lobby.apply(action) }
    try journal.append(Array(actions.prefix(3)), matches: [])
    // The snapshot point: the lobby after row 3. Rows 4 and 5 are journaled while it
    // is written, one before its part and one between its part and its switch.
    var snapshot = journal.beginSnapshot(Journal.snapshotParts(lobby), through: 3)
    try journal.append([actions[3]], matches: [])
    #expect(try journal.writeNextPart(of: &snapshot))
    try journal.append([actions[4]], matches: [])
    for action in actions.suffix(2) { lobby.apply(action) }
    // Until the switch the journal loads as before (a crash here loses nothing).
    let midway = try Journal(directory: directory).load(defaults: .init())
    #expect(midway.actions == 5)
    #expect(midway.lobby == tokensHashed(lobby))
    while try journal.writeNextPart(of: &snapshot) {}
    let loaded = try Journal(directory: directory).load(defaults: .init())
    #expect(loaded.actions == 2)
    #expect(loaded.lobby == tokensHashed(lobby))
    // Numbers go on after the snapshot even when it took every row.
    let reopened = try Journal(directory: directory)
    try reopened.compact(lobby)
    #expect(reopened.lastSeq == 5)
    try reopened.append(
      [.room("den", .chose(seat: .two, round: 2, weapon: .rock, at: 6))], matches: [])
    lobby.apply(.room("den", .chose(seat: .two, round: 2, weapon: .rock, at: 6)))
    #expect(try Journal(directory: directory).load(defaults: .init()).lobby == tokensHashed(lobby))
  }

  @Test("checkpoints run on another connection every so many commits, not in the writer's")
  func checkpointsInBackground() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    let file = directory + "/roshambo.sqlite"
    func size() throws -> Int {
      try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
    }
    let empty = try size()
    let name = String(repeating: "n", count: 20)
    for index in 0..<(Journal.checkpointInterval - 1) {
      try journal.append([.join(room: "r\(index)", name: name, token: "t", at: 1)], matches: [])
    }
    journal.waitForCheckpoints()
    // Every commit is still in the WAL only: the writer never checkpoints itself.
    #expect(try size() == empty)
    try journal.append([.join(room: "last", name: name, token: "t", at: 1)], matches: [])
    journal.waitForCheckpoints()
    #expect(try size() > empty + 8 * 4096)
    let loaded = try Journal(directory: directory).load(defaults: .init())
    #expect(loaded.actions == Journal.checkpointInterval)
  }

  @Test("a snapshot larger than a part is written in parts and read back whole")
  func snapshotInParts() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    var lobby = LobbyState(defaults: .init())
    var actions: [LobbyAction] = []
    for index in 0..<600 {
      actions.append(
        .join(room: "room-\(index)", name: "Zoë \(index) 🎲", token: "a\(index)", at: 1))
      actions.append(.join(room: "room-\(index)", name: "Bob \(index)", token: "b\(index)", at: 2))
    }
    for action in actions { lobby.apply(action) }
    try journal.append(actions, matches: [])
    let parts = Journal.snapshotParts(lobby)
    #expect(parts.count > 1)
    // A part boundary may split a character: the parts are bytes, joined before decoding.
    try journal.compact(lobby)
    try journal.compact(lobby)
    let loaded = try Journal(directory: directory).load(defaults: .init())
    #expect(loaded.actions == 0)
    #expect(loaded.lobby == tokensHashed(lobby))
    let database = try DatabaseQueue(path: journal.path)
    let generations = try database.read {
      try Int.fetchAll($0, sql: "SELECT DISTINCT generation FROM snapshot_part")
    }
    #expect(generations == [2])
  }

  @Test("after the switch, the rows a snapshot includes are ignored, then dropped in batches")
  func cleanupInBatches() throws {
    let directory = temporaryDataDirectory()
    let journal = try Journal(directory: directory)
    var lobby = LobbyState(defaults: .init())
    let count = Journal.cleanupBatch * 2 + 10
    let actions: [LobbyAction] = (0..<count).map {
      .join(room: "r\($0 / 2)", name: "p\($0)", token: "t\($0)", at: Int64($0))
    }
    for action in actions { lobby.apply(action) }
    try journal.append(actions, matches: [])
    var snapshot = journal.beginSnapshot(
      Journal.snapshotParts(lobby), through: journal.lastSeq)
    for _ in snapshot.parts { #expect(try journal.writeNextPart(of: &snapshot)) }
    #expect(try journal.writeNextPart(of: &snapshot))  // the switch
    func rows() throws -> Int {
      try DatabaseQueue(path: journal.path).read {
        try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM journal") ?? -1
      }
    }
    #expect(try rows() == count)
    let switched = try Journal(directory: directory).load(defaults: .init())
    #expect(switched.actions == 0)
    #expect(switched.lobby == tokensHashed(lobby))
    #expect(try journal.writeNextPart(of: &snapshot))
    #expect(try rows() == count - Journal.cleanupBatch)
    var steps = 0
    while try journal.writeNextPart(of: &snapshot) { steps += 1 }
    #expect(try rows() == 0)
    #expect(steps >= 1)
  }

  @Test("the hand-written snapshot reads back through LobbyState's Codable conformance")
  func handWrittenSnapshot() throws {
    var lobby = LobbyState(
      defaults: .init(ruleset: .lizardSpock, bestOf: 5, roundMillis: 9_000, graceMillis: 1_000))
    let actions: [LobbyAction] = [
      .join(room: nil, name: "Quick \"Q\"", token: "q1", at: 1),
      .join(room: "den", name: "Zoë 🎲", token: "a", at: 1),
      .join(room: "den", name: "back\\slash\tTab", token: "b", at: 2),
      .spectate(room: "den"),
      .room("den", .chose(seat: .one, round: 1, weapon: .spock, at: 3)),
      .room("den", .chose(seat: .two, round: 1, weapon: .lizard, at: 4)),
      .room("den", .chose(seat: .one, round: 2, weapon: .rock, at: 5)),
      .room("den", .deadlinePassed(round: 2, at: 20_000)),
      .room("den", .chose(seat: .two, round: 3, weapon: .paper, at: 20_001)),
      .room("den", .disconnected(seat: .one, at: 20_002)),
      .join(room: "duel", name: "Ann", token: "c", at: 6),
      .join(room: "duel", name: "Ben", token: "d", at: 7),
      .room("duel", .left(seat: .two, at: 8)),
      .room("duel", .rematchRequested(seat: .one, at: 9)),
    ]
    for action in actions { lobby.apply(action) }
    #expect(lobby.rooms.count == 3)
    #expect(lobby.rooms["den"]?.seats[.one]?.graceEndsAt != nil)
    #expect(lobby.rooms["den"]?.history.contains { $0.weapons.contains(nil) } == true)
    var json = JSONText()
    json.lobby(lobby)
    #expect(try JSONDecoder().decode(LobbyState.self, from: Data(json.bytes)) == lobby)
    let joined = Journal.snapshotParts(lobby).flatMap { $0 }
    #expect(joined == json.bytes)
  }
}
