import RoshamboGame
import RoshamboJSON

/// A finished match as a document: what `roshambo-server history --json` prints, what
/// the server's `record` message carries, what `roshambo --save-record` writes and what
/// `roshambo replay` and `roshambo verify` read. The format is documented in
/// `docs/MATCH-RECORD.md`; a round is the contract's round object.
///
/// Invariant: ``decode(_:)`` accepts exactly what ``encode(_:)`` can write (any
/// ``FinishedMatch`` whose rounds fit ``FinishedMatch/roundLimit``), plus unknown keys,
/// which it skips; it refuses anything larger than ``maxBytes``.
public enum MatchRecord {
  /// The version of the format this release writes and reads.
  public static let format = 1

  /// The largest record read: a hundred fair rounds with long names are about 50 kB.
  public static let maxBytes = 256 * 1024

  /// About how many bytes `match`'s record takes (a writer's first capacity).
  package static func estimatedBytes(_ match: FinishedMatch) -> Int {
    512 + (match.rounds?.count ?? 0) * 160
  }

  /// The record of `match` as one line of JSON (no newline).
  public static func encode(_ match: FinishedMatch) -> [UInt8] {
    var json = JSONText(capacity: estimatedBytes(match))
    json.matchRecord(match)
    return json.bytes
  }

  /// A match's rounds as the journal's `rounds` column holds them: a JSON array of the
  /// contract's round objects.
  public static func encode(rounds: [RoundResult]) -> [UInt8] {
    var json = JSONText(capacity: 2 + rounds.count * 160)
    json.rounds(rounds)
    return json.bytes
  }

  /// Reads a `rounds` column (see ``encode(rounds:)``): at most
  /// ``FinishedMatch/roundLimit`` rounds.
  public static func rounds(from bytes: some Collection<UInt8>) throws(Unreadable)
    -> [RoundResult]
  {
    try read(bytes) { try $0.rounds() }
  }

  /// The latest moment a record may name, ms since 1970 (2^53 - 1: what every JSON
  /// reader holds exactly).
  public static let latestMoment = 9_007_199_254_740_991
  /// The highest round number a record may hold (a match of draws goes on, but not for
  /// two billion rounds).
  public static let lastRound = Int(Int32.max)

  /// Whether `name` holds no control character (C0, DEL, C1).
  static func isPrintable(_ name: String) -> Bool {
    name.unicodeScalars.allSatisfy { $0.properties.generalCategory != .control }
  }

  /// Why a document is not a record this release can read.
  public struct Unreadable: Error, Equatable, CustomStringConvertible {
    /// What is wrong, and where (a byte offset), in words.
    public var reason: String
    public var description: String { reason }
  }

  /// Reads a record; the error names what is wrong and where.
  public static func decode(_ bytes: some Collection<UInt8>) throws(Unreadable) -> FinishedMatch {
    guard bytes.count <= maxBytes else {
      throw Unreadable(
        reason: "a record is at most \(maxBytes / 1024) KiB; this is \(bytes.count) bytes")
    }
    return try read(bytes) { try $0.matchRecord() }
  }

  /// `body` over the whole of `bytes`, its failure said as ``Unreadable``.
  private static func read<T>(
    _ bytes: some Collection<UInt8>, _ body: (inout JSONReader) throws -> T
  ) throws(Unreadable) -> T {
    do {
      return try JSONReader.withBuffer(bytes) { try JSONReader.read($0, body) }
    } catch let failure as JSONReader.Failure {
      throw Unreadable(reason: failure.description)
    } catch {
      throw Unreadable(reason: "\(error)")
    }
  }
}

extension JSONText {
  /// The record object of `match` (see ``MatchRecord``).
  package mutating func matchRecord(_ match: FinishedMatch) {
    raw("{")
    key("format"); int(MatchRecord.format); comma()
    key("id"); optionalInt(match.id); comma()
    key("room"); string(match.room); comma()
    key("finishedAt"); int(match.finishedAt); comma()
    key("ruleset"); string(match.ruleset); comma()
    key("bestOf"); int(match.bestOf); comma()
    key("fair"); bool(match.fair); comma()
    key("players"); raw("[")
    for (index, name) in match.players.enumerated() {
      if index > 0 { comma() }
      string(name)
    }
    raw("]"); comma()
    key("scores"); raw("[")
    for (index, score) in match.scores.enumerated() {
      if index > 0 { comma() }
      int(score)
    }
    raw("]"); comma()
    key("winner"); string(match.winner); comma()
    key("forfeit"); bool(match.forfeit); comma()
    key("rounds")
    if let rounds = match.rounds { self.rounds(rounds) } else { null() }
    raw("}")
  }

  /// A match's rounds: an array of the contract's round objects.
  package mutating func rounds(_ rounds: [RoundResult]) {
    raw("[")
    for (index, round) in rounds.enumerated() {
      if index > 0 { comma() }
      roundResult(round)
    }
    raw("]")
  }
}

extension JSONReader {
  /// A match's rounds, at most ``FinishedMatch/roundLimit``.
  package mutating func rounds() throws -> [RoundResult] {
    var count = 0
    return try array(of: { reader in
      count += 1
      guard count <= FinishedMatch.roundLimit else {
        throw reader.failure("a match keeps at most \(FinishedMatch.roundLimit) rounds")
      }
      return try reader.roundResult()
    })
  }

  /// A record object (see ``MatchRecord``).
  package mutating func matchRecord() throws -> FinishedMatch {
    var format: Int?
    var id: Int?
    var room: String?
    var finishedAt: Int?
    var ruleset: String?
    var bestOf: Int?
    var fair: Bool?
    var players: [String]?
    var scores: [Int]?
    var winner: String?
    var forfeit: Bool?
    var rounds: [RoundResult]?
    var roundsGiven = false
    try object { reader, key in
      switch key {
      case "format": format = try reader.int()
      case "id": id = try reader.optionalInt()
      case "room": room = try reader.string()
      case "finishedAt": finishedAt = try reader.int()
      case "ruleset": ruleset = try reader.string()
      case "bestOf": bestOf = try reader.int()
      case "fair": fair = try reader.bool()
      case "players": players = try reader.array(of: { try $0.string() })
      case "scores": scores = try reader.array(of: { try $0.int() })
      case "winner": winner = try reader.string()
      case "forfeit": forfeit = try reader.bool()
      case "rounds":
        roundsGiven = true
        if try !reader.null() { rounds = try reader.rounds() }
      default: try reader.skipValue()
      }
    }
    guard let format else { throw failure("not a match record: it has no \"format\"") }
    guard format == MatchRecord.format else {
      throw failure(
        "the record is in format \(format); this release reads format \(MatchRecord.format)")
    }
    guard let room, let finishedAt, let ruleset, let bestOf, let fair, let players, let scores,
      let winner, let forfeit, roundsGiven
    else {
      throw failure(
        "a record needs room, finishedAt, ruleset, bestOf, fair, players, scores, winner, "
          + "forfeit and rounds")
    }
    guard ClientMessage.isValidRoom(room) else {
      throw failure("\"room\" must be 1 to 32 of A-Z a-z 0-9 _ -")
    }
    guard players.count == 2, scores.count == 2 else {
      throw failure("a record has two players and two scores, seat 1's first")
    }
    guard players.allSatisfy({ $0.utf8.count <= 256 }), winner.utf8.count <= 256 else {
      throw failure("a name in a record is at most 256 bytes")
    }
    // A name is text for people: a control character (a NUL, an escape) is no name.
    guard (players + [winner]).allSatisfy(MatchRecord.isPrintable) else {
      throw failure("a name in a record holds a control character")
    }
    guard (0...MatchRecord.latestMoment).contains(finishedAt) else {
      throw failure("\"finishedAt\" is ms since 1970, from 0 to \(MatchRecord.latestMoment)")
    }
    guard scores.allSatisfy({ (0...99).contains($0) }) else {
      throw failure("a score is a number of rounds won, 0 to 99")
    }
    if let rounds,
      let wrong = rounds.first(where: { !(1...MatchRecord.lastRound).contains($0.round) })
    {
      throw failure(
        "a round's number is 1 to \(MatchRecord.lastRound); this record has round \(wrong.round)")
    }
    return FinishedMatch(
      id: id.map(Int64.init), room: room, finishedAt: Int64(finishedAt), ruleset: ruleset,
      bestOf: bestOf, players: players, scores: scores, winner: winner, forfeit: forfeit,
      fair: fair, rounds: rounds)
  }
}
