import RoshamboGame
import RoshamboProtocol

/// Lays the lobby screen out as lines for a terminal of a given size: who is here (the
/// selected person marked), the live rooms (the selected one marked), the leaderboard,
/// the challenges waiting, the last notice and the keys. Pure, so it is tested as text.
///
/// Invariant: no line is wider than `width` columns and there are at most `height`
/// lines; the title, the challenges waiting for an answer, the notice (wrapped between
/// words) and the keys are never cut: the lists are shortened first (around their
/// selection), and a list cut says how many more it holds ("… and 3 more"). During a
/// tournament its pairings and standings come first.
public struct LobbyScreenRenderer: Sendable {
  public var width: Int
  public var height: Int
  public var color: Bool

  public init(width: Int, height: Int, color: Bool) {
    self.width = max(20, width)
    self.height = max(8, height)
    self.color = color
  }

  /// How long a notice stays, ms (the lobby's tick clears it).
  public static let noticeLifetime: Int64 = 10_000

  /// The keys as lines of at most `width` columns, broken between keys (a key's words
  /// stay together when they fit).
  func keyLines(_ paint: ScreenRenderer) -> [String] {
    var lines: [String] = []
    for key in KeyBindings.lobbyHints {
      if let last = lines.last, DisplayWidth.columns(of: last + " · " + key) <= width {
        lines[lines.count - 1] = last + " · " + key
      } else {
        lines += paint.wrap(key)
      }
    }
    return lines.map { paint.paint($0, .dim) }
  }

  public func lines(for state: LobbyScreenState) -> [String] {
    let paint = ScreenRenderer(width: width, color: color)
    func line(_ text: String, _ style: ScreenRenderer.Style = .plain) -> String {
      paint.paint(DisplayWidth.truncated(text, toColumns: width), style)
    }
    guard let view = state.view else {
      return [line("Roshambo lobby", .bold), "", line("Connecting…"), ""]
        + keyLines(paint)
    }
    let people = view.peopleCount == 1 ? "1 person" : "\(view.peopleCount) people"
    let rooms = view.roomCount == 1 ? "1 room" : "\(view.roomCount) rooms"
    let header = [
      line(
        "Roshambo lobby" + (view.server.map { " on \($0)" } ?? "")
          + " · you are \(state.me) · \(people) · \(rooms)", .bold),
      line(String(repeating: "─", count: min(width, 60)), .dim),
    ]
    // What this person is told is wrapped between words, never cut (on a screen too
    // small for that, one line each).
    var footer = told(state, compact: false, paint) + keyLines(paint)
    if header.count + footer.count >= height {
      footer = told(state, compact: true, paint) + keyLines(paint)
    }

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
    let recentLines = state.recentMatches.map { match -> (String, Bool) in
      let selected = state.pane == .recent && match.id == state.selectedMatch
      return ((selected ? "▸ " : "  ") + LobbyText.line(match), selected)
    }
    var leaderLines = LobbyText.leaderboard(view.leaders).map { ($0, false) }
    if leaderLines.isEmpty, !view.recent.isEmpty {
      leaderLines = [("  nobody yet: rated matches with several people list you", false)]
    }
    // What the lists may take: the rest of the screen. Each list shown gets its title
    // and up to 3 lines first, then the rest goes to people, rooms, leaders, recent
    // matches in turn.
    let available = height - header.count - footer.count
    let tournamentLines = view.tournament.map { tournament in
      Self.yourPart(tournament, me: state.me, now: state.now).map { ("  " + $0, false) }
        + LobbyText.lines(tournament).dropFirst().map { ($0, false) }
    }
    let tournamentTitle = view.tournament.map { LobbyText.lines($0)[0].capitalizedFirst }
    // Lists with how many more they hold than they list (the server's lists are capped).
    let tournamentSection = (tournamentTitle ?? "", tournamentLines ?? [], 0)
    let during = view.tournament.map { $0.phase != .finished } ?? false
    var sections: [(String, [(String, Bool)], Int)] = [
      (
        state.pane == .people ? "People ◂" : "People", personLines,
        max(0, view.peopleCount - view.people.count)
      ),
      (
        state.pane == .rooms ? "Rooms ◂" : "Rooms",
        roomLines.isEmpty ? [("  (no rooms open now)", false)] : roomLines,
        max(0, view.roomCount - view.rooms.count)
      ),
      (
        view.leaders.contains { $0.rating != nil }
          ? "Leaderboard (by rating)"
          : "Leaderboard", leaderLines, 0
      ),
      (state.pane == .recent ? "Recent matches ◂" : "Recent matches", recentLines, 0),
    ]
    // During a tournament its pairings and standings come first, and take up to two
    // thirds of the room; after it, they come after the rooms.
    sections.insert(tournamentSection, at: during ? 0 : 2)
    var rows = sections.map { _ in 0 }
    var left = available
    for (index, section) in sections.enumerated() where !section.1.isEmpty && left >= 2 {
      let first = during && index == 0 ? max(3, available * 2 / 3 - 1) : 3
      rows[index] = min(section.1.count + section.2, first, left - 1)
      left -= 1 + rows[index]
    }
    for (index, section) in sections.enumerated() where rows[index] > 0 {
      let more = min(section.1.count + section.2 - rows[index], left)
      rows[index] += more
      left -= more
    }
    var shown: [String] = []
    for (index, (title, listed, hidden)) in sections.enumerated() where rows[index] > 0 {
      var items = listed
      // A leaderboard cut short never ends on the new players' heading, with none of them
      // under it: the first of them shows in its place (their lines are not numbered).
      if items.count + hidden > rows[index],
        items.firstIndex(where: { $0.0 == LobbyText.newPlayersLine }) == max(1, rows[index] - 1) - 1
      {
        items.removeAll { $0.0 == LobbyText.newPlayersLine }
      }
      shown.append(line(title, .bold))
      shown += window(items, rows: rows[index], hidden: hidden).map {
        line($0.0, $0.1 ? .bold : .plain)
      }
    }
    return Array((header + shown + footer).prefix(height))
  }

  /// The tournament from this person's side, first under its title: how to enter and
  /// when entries close, when the next round starts, their bye, their crown.
  static func yourPart(_ tournament: LobbyView.TournamentView, me: String, now: Int64)
    -> [String]
  {
    let seconds = tournament.startsAt.map { "in \((max(0, $0 - now) + 999) / 1_000) s" }
    switch tournament.phase {
    case .entry:
      let entered = tournament.standings.contains { $0.name == me }
      let when = [seconds, tournament.startsWith.map { "at \($0) entrants" }].compactMap { $0 }
      return [
        entered ? "You are in: your matches start by themselves" : "Press t to enter",
        when.isEmpty
          ? "It starts once a second player is in" : "It starts " + when.joined(separator: " or "),
      ]
    case .running:
      var lines: [String] = []
      if tournament.standings.contains(where: { $0.name == me && $0.withdrawn }) {
        lines.append("You withdrew: your matches go to your opponents")
      }
      if tournament.pairings.contains(where: { $0.isBye && $0.players == [me] }) {
        lines.append("You have a bye in round \(tournament.round): it counts as a win")
      }
      if let seconds, tournament.round < tournament.rounds {
        lines.append("Round \(tournament.round + 1) starts \(seconds)")
      }
      return lines
    case .finished:
      return tournament.champion == me ? ["You are the champion! Congratulations!"] : []
    }
  }

  /// What this person is told under the lists: the challenges, the server closing, the
  /// notice; wrapped between words, or `compact`, one line each.
  private func told(_ state: LobbyScreenState, compact: Bool, _ paint: ScreenRenderer)
    -> [String]
  {
    func said(_ text: String, _ style: ScreenRenderer.Style = .plain) -> [String] {
      let lines = compact ? [DisplayWidth.truncated(text, toColumns: width)] : paint.wrap(text)
      return lines.map { paint.paint($0, style) }
    }
    var lines: [String] = []
    for challenge in state.incoming {
      lines += said(
        "\(challenge.from) challenges you: \(terms(challenge)) · \(KeyBindings.challengeHint) · "
          + left(challenge, state.now) + " · " + KeyBindings.blockHint(challenge.from),
        .accent)
    }
    for challenge in state.outgoing {
      lines += said(
        "You challenged \(challenge.to): \(terms(challenge)) · " + left(challenge, state.now))
    }
    if let closesAt = state.closesAt {
      lines += said(
        "! " + closingLine(closesAt: closesAt, now: state.now, inMatch: false), .warning)
    }
    if let notice = state.notice { lines += said("! " + notice, .warning) }
    return lines
  }

  /// At most `rows` of `items`, around the selected one; when some are left out (or
  /// `hidden` more were not listed at all), the last row says how many ("… and 3 more"),
  /// or a single row ends with it.
  private func window(_ items: [(String, Bool)], rows: Int, hidden: Int) -> [(String, Bool)] {
    guard items.count + hidden > rows else { return items }
    let selected = items.firstIndex { $0.1 } ?? 0
    let fit = max(1, rows - 1)
    let start = min(max(0, selected - fit / 2), max(0, items.count - fit))
    let kept = Array(items[start..<min(items.count, start + fit)])
    let more = items.count + hidden - kept.count
    guard rows > 1 || kept.isEmpty else {
      return [(kept[0].0 + " (and \(more) more)", kept[0].1)]
    }
    return kept + [("  … and \(more) more", false)]
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
