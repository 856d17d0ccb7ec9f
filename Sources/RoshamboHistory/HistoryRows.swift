import RoshamboGame
import RoshamboProtocol
import RoshamboServer

/// Rows read back from the shared history, checked as a client's `hello` is checked.
///
/// Every server of a fleet writes the shared history, and anyone with the database's
/// password can write it too, so a name read back is not known to keep the protocol's
/// rule: one row with a 100,000-character name would make every lobby view too big for a
/// frame, and a name with escape sequences would reach every follower's terminal. A row
/// whose name (or room) breaks the rule is left out, and said once.
///
/// Invariant: every name and room in ``kept`` keeps the protocol's rule
/// (``PlayerName/normalize(_:)``, ``ClientMessage/isValidRoom(_:)``), and ``kept`` has at
/// most the `limit` rows asked for.
struct HistoryRows<Row> {
  var kept: [Row]
  /// What broke the rule, each once, in the order met.
  var broken: [BrokenText]

  /// How many rows to read for `limit` kept ones: a few more, so that a bad row or two
  /// leave the board full.
  static func fetchCount(for limit: Int) -> Int { limit + max(10, limit / 4) }

  /// The rows of `rows` whose texts (`texts(row)`: names and rooms) all keep the rule,
  /// up to `limit`.
  init(_ rows: [Row], limit: Int, texts: (Row) -> [(text: String, isRoom: Bool)]) {
    kept = []
    broken = []
    var seen = Set<BrokenText>()
    for row in rows {
      var whole = true
      for (text, isRoom) in texts(row) {
        guard let problem = Self.problem(text, isRoom: isRoom) else { continue }
        whole = false
        let found = BrokenText(text: text, problem: problem)
        if seen.insert(found).inserted { broken.append(found) }
      }
      if whole, kept.count < limit { kept.append(row) }
    }
  }

  /// Why `text` breaks the protocol's rule for a name (or a room), or nil if it keeps it.
  static func problem(_ text: String, isRoom: Bool) -> String? {
    if isRoom {
      return ClientMessage.isValidRoom(text)
        ? nil : "a room's name has 1 to 32 letters, digits, '_' or '-'"
    }
    switch PlayerName.normalize(text) {
    case .success: return nil
    case .failure(let problem): return problem.description
    }
  }
}

/// A name or room read back that breaks the protocol's rule, with the reason in a sentence.
struct BrokenText: Hashable {
  var text: String
  var problem: String
}

extension HistoryRows where Row == LeaderboardLine {
  /// A leaderboard's rows, kept when the name keeps the rule.
  init(leaders rows: [Row], limit: Int) {
    self.init(rows, limit: limit) { [($0.name, false)] }
  }
}

extension HistoryRows where Row == FinishedMatch {
  /// Matches, kept when both players, the winner and the room keep the rule.
  init(matches rows: [Row], limit: Int) {
    self.init(rows, limit: limit) { match in
      [(match.room, true)] + match.players.map { ($0, false) } + [(match.winner, false)]
    }
  }
}
