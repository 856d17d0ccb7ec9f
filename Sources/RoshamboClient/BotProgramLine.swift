import RoshamboGame
import RoshamboJSON

/// A line `roshambo bot --exec` writes to its program's standard input: one JSON object
/// with a `"type"`, as docs/BOTS.md describes (protocol ``BotProgramLine/version``).
///
/// Invariant: ``text`` is one line of JSON (no newline inside; strings escaped), so a
/// program reading line by line always reads whole messages.
public enum BotProgramLine: Equatable, Sendable {
  /// A match starts.
  case start(Start)
  /// The program is asked for its pick for a round.
  case pick(Pick)
  /// A round was resolved.
  case result(Round, score: Score)
  /// The match is over.
  case end(Ending, score: Score, why: String?)
  /// `roshambo bot` needs the program no more; its standard input closes after this.
  case bye

  /// The version of this line protocol (docs/BOTS.md), in every `start` line.
  public static let version = 1

  /// What a program is told when a match starts.
  public struct Start: Equatable, Sendable {
    /// Counts the matches of this run of `roshambo bot`, from 1.
    public var match: Int
    public var ruleset: Ruleset
    public var bestOf: Int
    public var seat: Seat
    public var name: String
    public var opponent: String
    public var room: String
    public var limits: BotProgramSession.Limits

    public init(
      match: Int, ruleset: Ruleset, bestOf: Int, seat: Seat, name: String, opponent: String,
      room: String, limits: BotProgramSession.Limits
    ) {
      self.match = match
      self.ruleset = ruleset
      self.bestOf = bestOf
      self.seat = seat
      self.name = name
      self.opponent = opponent
      self.room = room
      self.limits = limits
    }
  }

  /// What a program is told when it is asked for a pick.
  public struct Pick: Equatable, Sendable {
    public var round: Int
    /// The match's resolved rounds (at most the latest 100), oldest first.
    public var history: [Round]
    public var score: Score
    /// How long the program has for this pick before its bank is drawn on.
    public var pick: Duration
    /// What is left of its bank for this match.
    public var bank: Duration

    public init(round: Int, history: [Round], score: Score, pick: Duration, bank: Duration) {
      self.round = round
      self.history = history
      self.score = score
      self.pick = pick
      self.bank = bank
    }
  }

  /// A resolved round in the program's own terms: its weapon, the opponent's, who won.
  public struct Round: Equatable, Sendable {
    public enum Winner: String, Sendable {
      case you, them, draw
    }
    public var round: Int
    /// nil: that seat let the room's round deadline pass without a pick.
    public var you: Weapon?
    public var them: Weapon?
    public var winner: Winner
    /// The rule that decided it ("rock crushes scissors"), if one did.
    public var reason: String?

    public init(round: Int, you: Weapon?, them: Weapon?, winner: Winner, reason: String?) {
      self.round = round
      self.you = you
      self.them = them
      self.winner = winner
      self.reason = reason
    }

    /// `result` as `seat` sees it.
    public init(_ result: RoundResult, seat: Seat) {
      self.init(
        round: result.round, you: result.weapon(of: seat), them: result.weapon(of: seat.opponent),
        winner: result.winner == nil ? .draw : result.winner == seat ? .you : .them,
        reason: result.reason)
    }
  }

  /// Rounds won by the program's seat and by the opponent's.
  public struct Score: Equatable, Sendable {
    public var you: Int
    public var them: Int

    public init(you: Int, them: Int) {
      self.you = you
      self.them = them
    }
  }

  /// How a match ended for the program.
  public enum Ending: String, Sendable {
    case won, lost
    /// The connection to the server ended for good before the match did.
    case unfinished
  }

  /// The line, without its newline.
  public var text: String {
    var json = JSONText(capacity: 128)
    json.raw("{")
    switch self {
    case .start(let start):
      json.key("type")
      json.string("start")
      json.comma()
      json.key("protocol")
      json.int(Self.version)
      json.comma()
      json.key("match")
      json.int(start.match)
      json.comma()
      json.key("ruleset")
      json.string(start.ruleset.id.rawValue)
      json.comma()
      json.key("weapons")
      json.raw("[")
      for (index, weapon) in start.ruleset.weapons.enumerated() {
        if index > 0 { json.comma() }
        json.string(weapon.rawValue)
      }
      json.raw("]")
      json.comma()
      json.key("beats")
      json.raw("{")
      for (index, weapon) in start.ruleset.weapons.enumerated() {
        if index > 0 { json.comma() }
        json.string(weapon.rawValue)
        json.raw(":[")
        let beaten = start.ruleset.rules.filter { $0.winner == weapon }.map(\.loser)
        for (index, loser) in beaten.enumerated() {
          if index > 0 { json.comma() }
          json.string(loser.rawValue)
        }
        json.raw("]")
      }
      json.raw("}")
      json.comma()
      json.key("bestOf")
      json.int(start.bestOf)
      json.comma()
      json.key("seat")
      json.int(start.seat.rawValue)
      json.comma()
      json.key("name")
      json.string(start.name)
      json.comma()
      json.key("opponent")
      json.string(start.opponent)
      json.comma()
      json.key("room")
      json.string(start.room)
      json.comma()
      json.key("pickMs")
      json.int(Self.millis(start.limits.pick))
      json.comma()
      json.key("bankMs")
      json.int(Self.millis(start.limits.bank))
    case .pick(let pick):
      json.key("type")
      json.string("pick")
      json.comma()
      json.key("round")
      json.int(pick.round)
      json.comma()
      json.key("pickMs")
      json.int(Self.millis(pick.pick))
      json.comma()
      json.key("bankMs")
      json.int(Self.millis(pick.bank))
      json.comma()
      Self.write(pick.score, into: &json)
      json.comma()
      json.key("history")
      json.raw("[")
      for (index, round) in pick.history.enumerated() {
        if index > 0 { json.comma() }
        json.raw("{")
        Self.write(round, into: &json)
        json.raw("}")
      }
      json.raw("]")
    case .result(let round, let score):
      json.key("type")
      json.string("result")
      json.comma()
      Self.write(round, into: &json)
      json.comma()
      Self.write(score, into: &json)
    case .end(let ending, let score, let why):
      json.key("type")
      json.string("end")
      json.comma()
      json.key("result")
      json.string(ending.rawValue)
      json.comma()
      Self.write(score, into: &json)
      if let why {
        json.comma()
        json.key("why")
        json.string(why)
      }
    case .bye:
      json.key("type")
      json.string("bye")
    }
    json.raw("}")
    return String(decoding: json.bytes, as: UTF8.self)
  }

  private static func write(_ round: Round, into json: inout JSONText) {
    json.key("round")
    json.int(round.round)
    json.comma()
    json.key("you")
    json.optionalString(round.you?.rawValue)
    json.comma()
    json.key("them")
    json.optionalString(round.them?.rawValue)
    json.comma()
    json.key("winner")
    json.string(round.winner.rawValue)
    json.comma()
    json.key("reason")
    json.optionalString(round.reason)
  }

  private static func write(_ score: Score, into json: inout JSONText) {
    json.key("score")
    json.raw("{")
    json.key("you")
    json.int(score.you)
    json.comma()
    json.key("them")
    json.int(score.them)
    json.raw("}")
  }

  /// Whole milliseconds, rounded down (what a program may still count on).
  static func millis(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return max(0, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
  }
}

/// What one line from a bot program means, read against the match's ruleset.
///
/// Invariant: only a weapon of the ruleset becomes ``pick(_:)``; every other line is
/// kept (cut to ``shownLength`` characters) so that what the program sent can be said.
public enum BotProgramAnswer: Equatable, Sendable {
  /// A weapon of the ruleset: `rock`, or `{"pick":"rock"}` (case and surrounding
  /// whitespace do not matter; other fields of the object are ignored).
  case pick(Weapon)
  /// A weapon, but not one of this ruleset (`lizard` in a classic room).
  case notInRuleset(Weapon, shown: String)
  /// Not a pick at all.
  case garbage(shown: String)
  /// An empty line (or only whitespace): ignored.
  case blank

  /// How many characters of a line a message about it shows.
  public static let shownLength = 80

  /// Reads `line` (without its newline).
  public init(_ line: String, ruleset: Ruleset) {
    let trimmed = line.trimmingWhitespace
    guard !trimmed.isEmpty else {
      self = .blank
      return
    }
    let word = trimmed.first == "{" ? Self.pickField(String(trimmed)) : String(trimmed)
    guard let word, let weapon = Weapon(rawValue: word.lowercased()) else {
      self = .garbage(shown: Self.shown(line))
      return
    }
    self = ruleset.allows(weapon) ? .pick(weapon) : .notInRuleset(weapon, shown: Self.shown(line))
  }

  /// Whether `line` holds nothing but whitespace.
  public static func isBlank(_ line: String) -> Bool { line.trimmingWhitespace.isEmpty }

  /// The `pick` field of a JSON object, if it is one and has a string there.
  private static func pickField(_ text: String) -> String? {
    let bytes = Array(text.utf8)
    return try? JSONReader.withBuffer(bytes) { buffer in
      try JSONReader.read(buffer) { reader -> String? in
        var pick: String?
        try reader.object { reader, key in
          if key == "pick", try reader.kind() == .string {
            pick = try reader.string()
          } else {
            try reader.skipValue()
          }
        }
        return pick
      }
    } ?? nil
  }

  /// `line` as a message shows it: quoted, cut to ``shownLength`` characters, and safe
  /// to print (``TerminalText``).
  public static func shown(_ line: String) -> String {
    let cut = line.count > shownLength ? line.prefix(shownLength) + "…" : line[...]
    return "\"" + TerminalText.sanitized(String(cut)) + "\""
  }
}

extension String {
  /// The string without leading and trailing spaces, tabs and carriage returns.
  fileprivate var trimmingWhitespace: Substring {
    let isSpace = { (c: Character) in c == " " || c == "\t" || c == "\r" || c == "\n" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return self[first...last]
  }
}
