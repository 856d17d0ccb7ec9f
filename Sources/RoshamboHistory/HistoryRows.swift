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
/// (``PlayerName/normalize(_:)``, ``ClientMessage/isValidRoom(_:)``), every rating in it
/// can be one (``Glicko2Rating/problem``), and ``kept`` has at most the `limit` rows asked
/// for.
struct HistoryRows<Row> {
  var kept: [Row]
  /// What broke the rule, each once, in the order met.
  var broken: [BrokenText]

  /// How many rows to read for `limit` kept ones: a few more, so that a bad row or two
  /// leave the board full.
  static func fetchCount(for limit: Int) -> Int { limit + max(10, limit / 4) }

  /// The rows of `rows` with nothing wrong (`problems(row)` empty), up to `limit`.
  init(_ rows: [Row], limit: Int, problems: (Row) -> [BrokenText]) {
    kept = []
    broken = []
    var seen = Set<BrokenText>()
    for row in rows {
      let found = problems(row)
      for problem in found where seen.insert(problem).inserted { broken.append(problem) }
      if found.isEmpty, kept.count < limit { kept.append(row) }
    }
  }

  /// The rows of `rows` whose texts (`texts(row)`: names and rooms) all keep the rule,
  /// up to `limit`.
  init(_ rows: [Row], limit: Int, texts: @escaping (Row) -> [(text: String, isRoom: Bool)]) {
    self.init(rows, limit: limit) { row in Self.problems(texts(row)) }
  }

  /// What breaks the rule among `texts`.
  static func problems(_ texts: [(text: String, isRoom: Bool)]) -> [BrokenText] {
    texts.compactMap { text, isRoom in
      problem(text, isRoom: isRoom).map {
        BrokenText(text: text, problem: "breaks the protocol's rule (\($0))")
      }
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

/// A name or room read back that is wrong (it breaks the protocol's rule, or its rating
/// cannot be one), with what is wrong as the end of a sentence ("which breaks …").
struct BrokenText: Hashable {
  var text: String
  var problem: String
}

extension HistoryRows where Row == (LobbyView.Leader, Glicko2Rating) {
  /// A leaderboard's rows (with each rating as kept), kept when the name keeps the rule
  /// and the rating can be one.
  init(leaders rows: [Row], limit: Int) {
    self.init(rows, limit: limit) { leader, rating in
      Self.problems([(leader.name, false)])
        + (rating.problem.map {
          [BrokenText(text: leader.name, problem: "holds a rating that cannot be one (\($0))")]
        } ?? [])
    }
  }
}

extension HistoryRows where Row == FinishedMatch {
  /// Matches, kept when both players, the winner and the room keep the rule.
  init(matches rows: [Row], limit: Int) {
    self.init(
      rows, limit: limit,
      texts: { match in
        [(match.room, true)] + match.players.map { ($0, false) } + [(match.winner, false)]
      })
  }
}
