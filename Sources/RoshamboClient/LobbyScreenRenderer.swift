import RoshamboGame
import RoshamboProtocol

/// Lays the lobby screen out as lines for a terminal of a given size: who is here (the
/// selected person marked), the live rooms (the selected one marked), the leaderboard,
/// the challenges waiting, the last notice and the keys. Pure, so it is tested as text.
///
/// Invariant: no line is wider than `width` columns and there are at most `height`
/// lines; the title, the challenges waiting for an answer, the notice and the keys are
/// never cut: the lists are shortened first (around their selection).
public struct LobbyScreenRenderer: Sendable {
  public var width: Int
  public var height: Int
  public var color: Bool

  public init(width: Int, height: Int, color: Bool) {
    self.width = max(20, width)
    self.height = max(8, height)
    self.color = color
  }

  /// The keys line.
  /// (A challenge waiting says its own keys, a accept and d decline.)
  static let keys =
    "↑↓ select · Tab next list · c challenge · w watch · m quick match · t tournament · "
    + "r replay · q quit"

  public func lines(for state: LobbyScreenState) -> [String] {
    let paint = ScreenRenderer(width: width, color: color)
    func line(_ text: String, _ style: ScreenRenderer.Style = .plain) -> String {
      paint.paint(DisplayWidth.truncated(text, toColumns: width), style)
    }
    guard let view = state.view else {
      return [line("Roshambo lobby", .bold), "", line("Connecting…"), ""]
        + paint.wrap(Self.keys).map { paint.paint($0, .dim) }
    }
    let people = view.peopleCount == 1 ? "1 person" : "\(view.peopleCount) people"
    let rooms = view.roomCount == 1 ? "1 room" : "\(view.roomCount) rooms"
    let header = [
      line("Roshambo lobby · you are \(state.me) · \(people) · \(rooms)", .bold),
      line(String(repeating: "─", count: min(width, 60)), .dim),
    ]
    var footer: [String] = []
    for challenge in state.incoming {
      footer.append(
        line(
          "\(challenge.from) challenges you: \(terms(challenge)) · a accept, d decline · "
            + left(challenge, state.now), .accent))
    }
    for challenge in state.outgoing {
      footer.append(
        line("You challenged \(challenge.to): \(terms(challenge)) · " + left(challenge, state.now)))
    }
    if let closesAt = state.closesAt {
      footer.append(
        line("! " + closingLine(closesAt: closesAt, now: state.now, inMatch: false), .warning))
    }
    if let notice = state.notice { footer.append(line("! " + notice, .warning)) }
    footer += paint.wrap(Self.keys).map { paint.paint($0, .dim) }

    // Names need not be unique: only the first person of the selected name is marked.
    var marked = false
    let personLines = view.people.map { person -> (String, Bool) in
      let selected = state.pane == .people && person.name == state.selectedPerson && !marked
      marked = marked || selected
      let you = person.name == state.me ? " (you)" : ""
      let doing =
        switch person.status {
        case .idle: person.takesChallenges ? "in the lobby" : "looking at the lobby"
        case .waiting: "waiting in \(person.room ?? "?")"
        case .playing: "playing in \(person.room ?? "?")"
        case .watching: "watching \(person.room ?? "?")"
        }
      return ((selected ? "▸ " : "  ") + person.name + you + " · " + doing, selected)
    }
    let roomLines = view.rooms.map { room -> (String, Bool) in
      let selected = state.pane == .rooms && room.name == state.selectedRoom
      return ((selected ? "▸ " : "  ") + LobbyText.line(room), selected)
    }
    let recentLines = view.recent.map { match -> (String, Bool) in
      let selected = state.pane == .recent && match.id == state.selectedMatch
      return ((selected ? "▸ " : "  ") + LobbyText.line(match), selected)
    }
    let leaderLines = view.leaders.enumerated().map { place, leader in
      ("  \(place + 1). \(leader.name): \(leader.won) won, \(leader.lost) lost", false)
    }
    // What the lists may take: the rest of the screen. Each list shown gets its title
    // and up to 3 lines first, then the rest goes to people, rooms, leaders, recent
    // matches in turn.
    let available = height - header.count - footer.count
    let tournamentLines = view.tournament.map { tournament in
      LobbyText.lines(tournament).dropFirst().map { ($0, false) }
    }
    let tournamentTitle = view.tournament.map { LobbyText.lines($0)[0].capitalizedFirst }
    let sections: [(String, [(String, Bool)])] = [
      (state.pane == .people ? "People ◂" : "People", personLines),
      (
        state.pane == .rooms ? "Rooms ◂" : "Rooms",
        roomLines.isEmpty ? [("  (none yet)", false)] : roomLines
      ),
      (tournamentTitle ?? "", tournamentLines ?? []),
      ("Leaderboard", leaderLines),
      (state.pane == .recent ? "Recent matches ◂" : "Recent matches", recentLines),
    ]
    var rows = sections.map { _ in 0 }
    var left = available
    for (index, section) in sections.enumerated() where !section.1.isEmpty && left >= 2 {
      rows[index] = min(section.1.count, 3, left - 1)
      left -= 1 + rows[index]
    }
    for (index, section) in sections.enumerated() where rows[index] > 0 {
      let more = min(section.1.count - rows[index], left)
      rows[index] += more
      left -= more
    }
    var shown: [String] = []
    for (index, (title, items)) in sections.enumerated() where rows[index] > 0 {
      shown.append(line(title, .bold))
      shown += window(items, rows: rows[index]).map { line($0.0, $0.1 ? .bold : .plain) }
    }
    return Array((header + shown + footer).prefix(height))
  }

  /// At most `rows` of `items`, around the selected one.
  private func window(_ items: [(String, Bool)], rows: Int) -> [(String, Bool)] {
    guard items.count > rows else { return items }
    let selected = items.firstIndex { $0.1 } ?? 0
    let start = min(max(0, selected - rows / 2), items.count - rows)
    return Array(items[start..<start + rows])
  }

  private func terms(_ challenge: ChallengeNotice) -> String {
    "best of \(challenge.bestOf), \(challenge.ruleset.rawValue)" + (challenge.fair ? ", fair" : "")
  }

  private func left(_ challenge: ChallengeNotice, _ now: Int64) -> String {
    "\(max(0, (challenge.expires - now + 999) / 1_000)) s left"
  }
}

extension String {
  /// The text with its first letter upper-case.
  fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
