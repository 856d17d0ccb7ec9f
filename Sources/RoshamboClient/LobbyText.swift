import RoshamboGame

/// The lobby as plain lines for a terminal or a log (`roshambo who`, `roshambo lobby`):
/// who is here, the rooms with their scores, the leaderboard's top.
///
/// Invariant: pure; every name it prints is one the caller sanitized (``ServerMessage``'s
/// `sanitized()`), so the lines hold no control character from the server.
public enum LobbyText {
  public static func lines(_ view: LobbyView) -> [String] {
    var lines: [String] = []
    let people = view.peopleCount == 1 ? "1 person" : "\(view.peopleCount) people"
    let rooms = view.roomCount == 1 ? "1 room" : "\(view.roomCount) rooms"
    lines.append("lobby: \(people), \(rooms)")
    if !view.people.isEmpty { lines.append("people:") }
    for person in view.people {
      let doing =
        switch person.status {
        case .idle: "in the lobby"
        case .waiting: "waiting in \(person.room ?? "?")"
        case .playing: "playing in \(person.room ?? "?")"
        case .watching: "watching \(person.room ?? "?")"
        }
      lines.append("  \(person.name) \(doing)")
    }
    if view.people.count < view.peopleCount {
      lines.append("  … and \(view.peopleCount - view.people.count) more")
    }
    if !view.rooms.isEmpty { lines.append("rooms:") }
    for room in view.rooms { lines.append("  " + line(room)) }
    if view.rooms.count < view.roomCount {
      lines.append("  … and \(view.roomCount - view.rooms.count) more")
    }
    if let tournament = view.tournament { lines += Self.lines(tournament) }
    if !view.leaders.isEmpty {
      let rated = view.leaders.contains { $0.rating != nil }
      lines.append(rated ? "leaderboard (by rating):" : "leaderboard:")
    } else if !view.recent.isEmpty {
      lines.append(Self.nobodyListed)
    }
    lines += leaderboard(view.leaders)
    if !view.recent.isEmpty { lines.append("recent matches (roshambo replay NUMBER):") }
    for match in view.recent { lines.append("  " + line(match)) }
    return lines
  }

  /// "bob: 3 won, 1 lost", "bob: 3 won (1 by forfeit), 1 lost".
  public static func line(_ leader: LobbyView.Leader) -> String {
    "\(leader.name): \(leader.won) won"
      + (leader.wonByForfeit > 0 ? " (\(leader.wonByForfeit) by forfeit)" : "")
      + ", \(leader.lost) lost"
  }

  /// What stands for a leaderboard with nobody on it yet, once matches have been played.
  public static let nobodyListed =
    "leaderboard: nobody yet (rated matches against several different people list a player)"

  /// The leaderboard under its title: the settled ranked ("  1. 1623 ±48  bob: 3 won, 1
  /// lost"), then the new players apart, under a line that says why they are not ranked
  /// yet ("   · 1500?     ann: 1 won, 0 lost"), so that a settled 1449 above a new 1600
  /// reads right. The server sends them in that order (``LobbyView/Leader/ranksAbove(_:)``).
  public static func leaderboard(_ leaders: [LobbyView.Leader]) -> [String] {
    var ranked: [String] = []
    var new: [String] = []
    for (leader, line) in zip(leaders, leaderLines(leaders)) {
      if leader.rating?.isProvisional == true {
        new.append("   · " + line)
      } else {
        ranked.append("  \(ranked.count + 1). " + line)
      }
    }
    return ranked + (new.isEmpty ? [] : [newPlayersLine] + new)
  }

  /// What heads the new players, below the ranked ones.
  public static let newPlayersLine = "  new players, not ranked until their rating settles:"

  /// The leaderboard's lines, the rating first in a column as wide as the widest ("1623
  /// ±48  bob: 3 won, 1 lost", "1500?     ann: 1 won, 0 lost"), so a line cut to the
  /// screen's width keeps it; a leader an older server sent without one has none.
  public static func leaderLines(_ leaders: [LobbyView.Leader]) -> [String] {
    let ratings = leaders.map { $0.rating?.text }
    let column = ratings.map { $0?.count ?? 0 }.max() ?? 0
    return zip(leaders, ratings).map { leader, rating in
      guard let rating else { return line(leader) }
      return rating + String(repeating: " ", count: column - rating.count) + "  " + line(leader)
    }
  }

  /// "#42 duel-3: bob 2–1 ann, bob won (fair)", "… bob won by forfeit".
  public static func line(_ match: LobbyView.Recent) -> String {
    "#\(match.id) \(match.room): \(match.players[0]) \(match.scores[0])–\(match.scores[1]) "
      + "\(match.players[1]), \(match.players[match.winner.rawValue - 1]) won"
      + (match.forfeit ? " by forfeit" : "") + (match.fair ? " (fair)" : "")
  }

  /// The tournament: where it stands, this round's pairings, the standings.
  public static func lines(_ tournament: LobbyView.TournamentView) -> [String] {
    var lines: [String] = []
    let kind = tournament.kind.rawValue
    switch tournament.phase {
    case .entry:
      lines.append(
        "tournament (\(kind)): taking entries, \(tournament.standings.count) entered")
    case .running:
      lines.append("tournament (\(kind)): round \(tournament.round) of \(tournament.rounds)")
    case .finished:
      lines.append(
        "tournament (\(kind)): finished, \(tournament.champion ?? "?") is the champion")
    }
    if tournament.phase == .running {
      let withdrawn = Set(tournament.standings.filter(\.withdrawn).map(\.name))
      for pairing in tournament.pairings {
        let result = pairing.winner.map { " → \($0)" + how(pairing, won: $0, withdrawn) } ?? ""
        if pairing.isBye {
          lines.append("  \(pairing.players[0]) has a bye")
        } else {
          lines.append(
            "  \(pairing.room ?? "?"): \(pairing.players.joined(separator: " vs "))\(result)")
        }
      }
    }
    for (place, line) in tournament.standings.enumerated() where tournament.phase != .entry {
      let out =
        line.withdrawn
        ? ", withdrew" : tournament.kind == .singleElimination && !line.alive ? ", out" : ""
      lines.append(
        "  \(place + 1). \(line.name): \(line.wins) won, \(line.losses) lost "
          + "(rounds \(line.roundDifference >= 0 ? "+" : "")\(line.roundDifference))\(out)")
    }
    if tournament.phase == .entry, !tournament.standings.isEmpty {
      lines.append("  entered: " + tournament.standings.map(\.name).joined(separator: ", "))
    }
    return lines
  }

  /// How a match nobody played out was decided, after its winner: " (walkover: ann
  /// withdrew)", " (bob did not come back)"; nothing for one decided on its rounds or by
  /// leaving.
  private static func how(
    _ pairing: Tournament.Pairing, won winner: String, _ withdrawn: Set<String>
  ) -> String {
    guard let loser = pairing.players.first(where: { $0 != winner }) else { return "" }
    if pairing.graceRanOut { return " (\(loser) did not come back)" }
    if withdrawn.contains(loser), pairing.scores.allSatisfy({ $0 == 0 }) {
      return " (walkover: \(loser) withdrew)"
    }
    return ""
  }

  /// One room: its players and score, where the match is, who watches.
  static func line(_ room: LobbyView.Room) -> String {
    let players = room.players.map { $0 ?? "(free seat)" }
    let match =
      switch room.phase {
      case .waiting:
        "\(room.players.compactMap { $0 }.first ?? "nobody") waiting for an opponent"
      case .choosing:
        "\(players[0]) \(room.scores[0]) – \(room.scores[1]) \(players[1]), round \(room.round)"
      case .over:
        "\(players[0]) \(room.scores[0]) – \(room.scores[1]) \(players[1]), match over"
      }
    var details = "best of \(room.bestOf), \(room.ruleset.rawValue)"
    if room.fair { details += ", fair" }
    if room.spectators > 0 { details += ", \(room.spectators) watching" }
    return "\(room.name): \(match) (\(details))"
  }
}
