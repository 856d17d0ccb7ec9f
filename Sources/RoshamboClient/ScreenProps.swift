import RoshamboGame

/// One player's line on the screen.
public struct PlayerLine: Equatable, Sendable {
  public var seat: Seat
  public var name: String
  public var score: Int
  public var isYou: Bool
  /// "connected", "chosen", "away (connection lost)", "left", "did not come back".
  public var status: String
}

/// Everything a screen shows, as plain text without terminal codes: the renderer lays
/// it out, colours it and draws it.
///
/// Invariant: made only by ``makeProps(view:context:)``, a pure function, so the same
/// view and context always give the same screen.
public struct ScreenProps: Equatable, Sendable {
  /// "Room den · classic · best of 3".
  public var title: String
  public var players: [PlayerLine]
  /// "Round 2", or nil when no match is running.
  public var round: String?
  /// "12 s left", or nil when the round has no deadline.
  public var countdown: String?
  /// The main line: what is happening and what to do.
  public var status: String
  /// The weapons to choose from, when it is this player's move.
  public var prompt: String?
  /// The last resolved round: "Alice wins the round: rock crushes scissors".
  public var reveal: String?
  /// The big words: "PLAYER 1 WINS!" at the end of a match, "DRAW!" after a drawn round.
  public var banner: String?
  /// Resolved rounds, oldest first: "1. rock vs scissors: Alice".
  public var history: [String]
  /// The keys that do something now.
  public var keys: String
  public var notice: String?
  /// "reconnecting (attempt 3)…", or nil while connected.
  public var connection: String?
  /// "slow connection (ping 420 ms)" while connected over a slow link; nil when the
  /// link is fine or not up (a figure is never shown as healthy during an outage).
  public var latency: String? = nil
  /// "The server closes in 25 s: …" once the server said it is closing.
  public var closing: String? = nil
  /// The match's result alone, once it is over ("You win the match 2–1!"): what is left
  /// on the terminal after the program, without what to press (``lastWords``).
  public var result: String? = nil

  /// What stays on the terminal once the screen is put back: the big words, the last
  /// round and the result of a match that is over; nothing about keys that no longer do
  /// anything, and nothing of a match left unfinished (its state is stale once the
  /// program has ended).
  public var lastWords: [String] {
    guard let result else { return [] }
    return [banner, reveal, result].compactMap { $0 }
  }
}

/// The screen for the latest view and this client's own context; in a fair room,
/// `verifiedRounds` are the rounds this client checked and found true.
public func makeProps(
  view: RoomView?, context: ClientContext, verifiedRounds: Set<Int> = []
) -> ScreenProps {
  let connection = connectionLine(context.connection)
  guard let view else {
    return ScreenProps(
      title: "Roshambo", players: [], round: nil, countdown: nil,
      status: connection ?? "Connecting…", prompt: nil, reveal: nil, banner: nil, history: [],
      keys: KeyBindings.quit, notice: context.notice, connection: connection,
      closing: context.closesAt.map { closingLine(closesAt: $0, now: context.now, inMatch: false) })
  }
  let ruleset = Ruleset.named(view.ruleset)
  let me = view.you.flatMap { view.player($0) }
  let opponent = view.opponent
  let names = Dictionary(view.players.map { ($0.seat, $0.name) }, uniquingKeysWith: { a, _ in a })
  func name(_ seat: Seat) -> String { names[seat] ?? "Player \(seat.rawValue)" }

  var status: String
  var prompt: String?
  var banner: String?
  var result: String?
  // A spectator's q stops watching; a player's quits (asking first during a match).
  var keys = me == nil ? KeyBindings.stopWatching : KeyBindings.quit
  switch view.phase {
  case .waiting:
    status = me == nil ? "Waiting for players…" : "Waiting for an opponent…"
  case .choosing:
    if let me {
      let mine = me.weapon ?? context.pendingPick
      let other = opponent.map(\.name) ?? "your opponent"
      if let mine, view.fair, me.chosen {
        // Committed: the server has only the digest until both are in.
        status =
          me.revealed
          ? "You revealed \(mine.rawValue). Waiting for \(other)…"
          : "You picked \(mine.rawValue), sealed. Waiting for \(other)…"
      } else if let mine {
        status =
          me.weapon == nil
          ? "You picked \(mine.rawValue) (sending…)"
          : "You picked \(mine.rawValue). Waiting for \(other)…"
      } else {
        status = opponent?.chosen == true ? "\(other) has chosen. Your move." : "Your move."
        prompt = KeyBindings.choosePrompt(ruleset)
        keys = KeyBindings.chooseHint(ruleset) + " · " + KeyBindings.quit
      }
    } else {
      let chosen = view.players.filter(\.chosen).map(\.name)
      status =
        chosen.isEmpty
        ? "Both players are choosing…"
        : "\(chosen.joined(separator: " and ")) has chosen."
    }
  case .over:
    let winner = view.winner ?? .one
    // Said once: to the winner in their own words; to the others, which seat and who.
    banner =
      view.you == winner
      ? "YOU WIN!" : "PLAYER \(winner.rawValue) WINS! \(name(winner)) wins."
    status = matchResult(view, winner: winner, name: name)
    result = status
    if let stage = view.tournament, let round = tournamentRound(of: view.room) {
      // A tournament's match: no rematch; what comes next, or the champion.
      let next = tournamentNext(
        stage, round: round, you: me.map { ($0.name, view.winner == $0.seat) },
        now: context.now)
      status += " " + next.status
      if let big = next.banner { banner = big }
      keys = me == nil ? KeyBindings.goBack : KeyBindings.backToLobby
    } else if me == nil {
      status += " Press q to go back."
      keys = KeyBindings.goBack
    } else if let me, let opponent {
      if opponent.left, LobbyState.isChallengeRoom(view.room) {
        // Nobody else is seated in a challenge's room: the match is over for good.
        status +=
          forfeiter(view, winner: winner) == nil
          ? " \(opponent.name) left: the match is over. Press q to go back."
          : " The match is over: press q to go back."
        keys = KeyBindings.goBack
      } else if opponent.left {
        status += " Waiting for a new opponent…"
      } else if view.rematch.contains(me.seat) {
        status += " Waiting for \(opponent.name) to accept the rematch…"
        keys = KeyBindings.quit
      } else if view.rematch.contains(opponent.seat) {
        status += " \(opponent.name) wants a rematch: press [n] to accept."
        keys = KeyBindings.rematch + " · " + KeyBindings.quit
      } else {
        status += " Press [n] for a rematch."
        keys = KeyBindings.rematch + " · " + KeyBindings.quit
      }
    }
  }

  var reveal: String?
  if let winner = view.winner, forfeiter(view, winner: winner) != nil {
    // The match did not end on a round: the last round's line would contradict it, and
    // the status line says who gave it up, how and when, in one line.
    reveal = nil
  } else if let last = view.history.last {
    reveal = roundSentence(last, you: view.you, name: name)
    if banner == nil, last.winner == nil, view.phase == .choosing { banner = "DRAW!" }
  }

  let cup = view.tournament.flatMap { stage in
    tournamentRound(of: view.room).map { round in
      // Only single elimination has a final: the last round of the others is a round.
      round >= stage.rounds && stage.kind == .singleElimination
        ? " · tournament final" : " · tournament, round \(round) of \(stage.rounds)"
    }
  }
  return ScreenProps(
    title: "Room \(view.room)\(cup ?? "") · \(view.ruleset.rawValue) · best of \(view.bestOf)"
      + (view.fair ? " · fair (commit–reveal)" : ""),
    players: view.players.map { player in
      PlayerLine(
        seat: player.seat, name: player.name, score: player.score,
        isYou: player.seat == view.you, status: playerStatus(player, in: view))
    },
    round: view.phase == .choosing ? "Round \(view.round)" : nil,
    countdown: countdown(deadline: view.deadline, now: context.now),
    status: status, prompt: prompt, reveal: reveal, banner: banner,
    history: view.history.map {
      historyRow($0, you: view.you, name: name)
        + (verifiedRounds.contains($0.round) ? "  ✓ verified" : "")
    },
    keys: keys, notice: context.notice, connection: connection,
    latency: context.connection == .connected ? context.roundTripMillis.flatMap(latencyLine) : nil,
    closing: context.closesAt.map {
      closingLine(
        closesAt: $0, now: context.now, inMatch: view.phase == .choosing && view.you != nil)
    }, result: result)
}

/// The round of a tournament's room (`cup-N-R-M`), or nil for any other room.
func tournamentRound(of room: String) -> Int? {
  guard Tournament.isTournamentRoom(room) else { return nil }
  return Int(room.split(separator: "-")[2])
}

/// What comes after a tournament's match of `round` is over, for its player (`you`: their
/// name and whether they won) or a spectator (nil): the champion, being out, a bye, or
/// when the next round starts. Never a rematch, never "a new opponent".
func tournamentNext(
  _ stage: RoomView.TournamentStage, round: Int, you: (name: String, won: Bool)?, now: Int64
) -> (status: String, banner: String?) {
  if let champion = stage.champion {
    if champion == you?.name {
      return ("You are the tournament's champion. Congratulations!", "YOU ARE THE CHAMPION!")
    }
    return ("The tournament is over: \(champion) is the champion. Press q to go back.", nil)
  }
  guard let you else {
    // A spectator: once the next round is paired this room's players are in theirs.
    return stage.round > round
      ? (
        "This match is over and the tournament is on round \(stage.round): press q to go back "
          + "and follow it from the lobby.", nil
      ) : ("Press q to go back.", nil)
  }
  if stage.kind == .singleElimination, !you.won {
    return ("You are out of the tournament. Press q to go back to the lobby.", nil)
  }
  let next = round + 1
  // This screen hears nothing more once its room stops changing (a bye, the other
  // matches of the last round): what comes after is in the lobby.
  let lobby = "press q to follow the tournament in the lobby."
  if stage.round > round {
    guard stage.byes.contains(you.name) else {
      return ("Round \(stage.round) is paired: your match starts by itself.", nil)
    }
    return stage.round >= stage.rounds
      ? (
        "You have a bye in round \(stage.round), the last: it counts as a win. The champion "
          + "is named when its matches end; \(lobby)", nil
      )
      : (
        "You have a bye in round \(stage.round): it counts as a win. Your next match starts by "
          + "itself.", nil
      )
  }
  if round >= stage.rounds {
    return ("The champion is named when the last round's other matches end; \(lobby)", nil)
  }
  if let at = stage.startsAt {
    let left = (max(0, at - now) + 999) / 1_000
    if now - at > lateRoundMillis {
      // A match would have come by now: a bye, which only the lobby shows.
      return (
        "Round \(next) has started without a match for you here (a bye counts as a win); "
          + lobby, nil
      )
    }
    return (
      left > 0
        ? "Round \(next) starts in \(left) s: your match starts by itself."
        : "Round \(next) is starting: your match starts by itself.", nil
    )
  }
  return (
    "Round \(next) starts when round \(round)'s other matches end: your match starts by itself.",
    nil
  )
}

/// How long after the next round's start a player with no match in it is told it has
/// started without them (a bye), ms.
let lateRoundMillis: Int64 = 10_000

/// What the player is told once the server said it is closing: when, and what becomes of
/// a match under way.
func closingLine(closesAt: Int64, now: Int64, inMatch: Bool) -> String {
  let left = (max(0, closesAt - now) + 999) / 1_000
  let when = left > 0 ? "closes in \(left) s" : "is closing"
  return inMatch
    ? "The server \(when): finish this match; if it does not end in time, it resumes when "
      + "the server is back."
    : "The server \(when); no new match starts until it is back."
}

/// A round trip people would notice, in words: "slow connection (ping 420 ms)"; nil under
/// ``slowRoundTripMillis``.
func latencyLine(_ millis: Double) -> String? {
  guard millis >= slowRoundTripMillis else { return nil }
  return "slow connection (ping \(Int(millis.rounded())) ms)"
}

/// From this round trip on, the link is slow enough to say so.
let slowRoundTripMillis = 250.0

private func connectionLine(_ connection: ClientContext.Connection) -> String? {
  switch connection {
  case .connected: nil
  case .connecting: "connecting…"
  case .reconnecting(let attempt):
    "Lost the connection to the server; reconnecting (attempt \(attempt))…"
  case .closed(let why): why
  }
}

/// A player who left a match that ended on its rounds has only gone after it (back to
/// the lobby, or away); one who gave the match up "left", "did not come back" (their
/// grace ran out) or "withdrew" (from the tournament).
private func playerStatus(_ player: PlayerView, in view: RoomView) -> String {
  let phase = view.phase
  if player.left {
    let gaveUp = view.winner.flatMap { forfeiter(view, winner: $0) } == player.seat
    guard phase != .over || gaveUp else { return "gone after the match" }
    switch player.leftBy {
    case .timedOut: return "did not come back"
    case .withdrew: return "withdrew"
    case .left, nil: return "left"
    }
  }
  if !player.connected { return "away (connection lost)" }
  if phase == .choosing { return player.chosen ? "chosen" : "choosing" }
  return "connected"
}

/// The seat that gave the match up, when it ended by forfeit rather than on a round.
private func forfeiter(_ view: RoomView, winner: Seat) -> Seat? {
  guard view.phase == .over, view.player(winner.opponent)?.left == true,
    (view.player(winner)?.score ?? 0) < view.bestOf / 2 + 1
  else { return nil }
  return winner.opponent
}

private func matchResult(_ view: RoomView, winner: Seat, name: (Seat) -> String) -> String {
  if let loser = forfeiter(view, winner: winner) {
    // A grace that ran out is not giving up: the screens say which it was.
    let round = view.round
    let (what, by) =
      switch view.player(loser)?.leftBy {
      case .timedOut: ("did not come back in time (round \(round))", "forfeit")
      case .withdrew: ("withdrew from the tournament", "walkover")
      case .left, nil:
        (
          view.you == winner ? "gave up the match in round \(round)" : "gave up in round \(round)",
          "forfeit"
        )
      }
    return view.you == winner
      ? "\(name(loser)) \(what): you win by \(by)."
      : "\(name(loser)) \(what): \(name(winner)) wins by \(by)."
  }
  let scores = (view.player(winner)?.score ?? 0, view.player(winner.opponent)?.score ?? 0)
  let score = "\(scores.0)–\(scores.1)"
  return view.you == winner
    ? "You win the match \(score)!"
    : "\(name(winner)) wins the match \(score)."
}

/// "You win the round: rock crushes scissors", "Alice wins the round: …", from the side of
/// the reader (`you`, nil for a spectator).
func roundSentence(_ round: RoundResult, you: Seat?, name: (Seat) -> String) -> String {
  guard let winner = round.winner else {
    if let weapon = round.weapons.first ?? nil, round.weapons.allSatisfy({ $0 == weapon }) {
      return "Round \(round.round) is a draw: both chose \(weapon.rawValue)"
    }
    return "Round \(round.round) is a draw: nobody chose in time"
  }
  let wins = winner == you ? "You win" : "\(name(winner)) wins"
  if let reason = round.reason {
    return "\(wins) the round: \(reason)"
  }
  let late = winner.opponent == you ? "you" : name(winner.opponent)
  return "\(wins) the round: \(late) ran out of time"
}

/// "1. you rock, Bob scissors: you win": each pick said with whose it is.
private func historyRow(_ round: RoundResult, you: Seat?, name: (Seat) -> String) -> String {
  func who(_ seat: Seat) -> String { seat == you ? "you" : name(seat) }
  let picks = Seat.allCases.map { "\(who($0)) \(round.weapon(of: $0)?.rawValue ?? "—")" }
  let result = round.winner.map { $0 == you ? "you win" : "\(name($0)) wins" } ?? "draw"
  return "\(round.round). \(picks.joined(separator: ", ")): \(result)"
}

private func countdown(deadline: Int64?, now: Int64) -> String? {
  guard let deadline else { return nil }
  // The deadline is the server's, which may send any 64-bit number: nothing here may
  // overflow (the client fuzz target found `deadline - now` and the rounding up did).
  let (left, overflow) = deadline.subtractingReportingOverflow(now)
  guard !overflow else { return deadline < now ? "time's up" : "\(Int64.max / 1000) s left" }
  guard left > 0 else { return "time's up" }
  return "\(left / 1000 + (left % 1000 == 0 ? 0 : 1)) s left"
}

extension ClientState {
  /// The screen for this state.
  public var props: ScreenProps {
    makeProps(view: view, context: context, verifiedRounds: fair.verifiedRounds)
  }
}
