import Foundation
import Redux
import RoshamboGame

/// Where a bot's picks come from: a built-in strategy, asked in the same call, or a
/// program (`roshambo bot --exec`), asked with a line and answering later.
public enum PickSource: Sendable {
  case strategy(BotStrategy)
  case program(BotProgram)
}

/// A player without a screen: it watches its session's view, picks with a strategy or
/// a program, asks for rematches until it has played its matches, then leaves.
///
/// Invariant: it acts only through the session's store, like a person at the keys; a
/// program's pick is dispatched only while the round it was asked for is still open.
@MainActor
public final class Bot {
  /// What the bot has played.
  public struct Tally: Equatable, Sendable {
    public var matchesWon = 0
    public var matchesLost = 0
    public var roundsWon = 0
    public var roundsLost = 0
    public var roundsDrawn = 0
    public var matches: Int { matchesWon + matchesLost }

    public init() {}

    /// "3 matches: 2 won, 1 lost; rounds: 5 won, 3 lost, 2 drawn" ("1 match: …").
    public var summary: String {
      "\(matches) \(matches == 1 ? "match" : "matches"): \(matchesWon) won, \(matchesLost) lost; rounds: "
        + "\(roundsWon) won, \(roundsLost) lost, \(roundsDrawn) drawn"
    }
  }

  public private(set) var tally = Tally()
  private let session: ClientSession
  private let matches: Int
  private let log: (String) -> Void
  private var player: StrategyPlayer?
  private let program: BotProgram?
  /// With a program: whether it was told the running match started (and not its end).
  private var matchOpen = false
  /// With a program: the last round it was told the result of.
  private var toldRound = 0
  /// Whether the bot gave its match up because its program failed it: it has left the
  /// room, and the session ends.
  public private(set) var gaveUp = false

  /// Why the bot's program can play no more (it exited or was stopped), if it has one
  /// and so.
  public var programGone: String? { program?.session.gone }
  private var subscription: Subscription?
  private var lies: Subscription?
  private var closing: Subscription?
  private var link: Subscription?
  /// Whether the session is between a lost connection and its replacement.
  private var reconnecting = false
  /// The last round logged and counted in the tally.
  private var seenRound = 0
  private var finished = false

  /// A bot that leaves once `tally` counts `matches` matches (it starts from `tally`, so
  /// bots playing one after another go on counting).
  /// Whether it asks for a rematch after a match it did not leave (not in a tournament,
  /// whose server pairs the next match itself).
  private let asksRematch: Bool

  public convenience init(
    session: ClientSession, strategy: BotStrategy, matches: Int, tally: Tally = Tally(),
    asksRematch: Bool = true, log: @escaping (String) -> Void
  ) {
    self.init(
      session: session, picks: .strategy(strategy), matches: matches, tally: tally,
      asksRematch: asksRematch, log: log)
  }

  /// A bot whose picks come from `picks`; a program must have been started, and plays
  /// through one bot at a time (the bot of the session being played).
  public init(
    session: ClientSession, picks: PickSource, matches: Int, tally: Tally = Tally(),
    asksRematch: Bool = true, log: @escaping (String) -> Void
  ) {
    self.asksRematch = asksRematch
    self.tally = tally
    self.session = session
    switch picks {
    case .strategy(let strategy):
      self.player = StrategyPlayer(strategy: strategy, seed: UInt64.random(in: 0...UInt64.max))
      self.program = nil
    case .program(let program):
      self.player = nil
      self.program = program
    }
    self.matches = matches
    self.log = log
  }

  public func start() {
    if let program {
      program.picked = { [weak self] weapon, round in self?.programPicked(weapon, round: round) }
      program.gaveUp = { [weak self] in self?.giveUpMatch() }
    }
    // A frame the server kept refusing as too fast: said, for the match may wait on it.
    session.frameGivenUp = { [weak self] notice in self?.log(notice) }
    subscription = session.store.subscribe(select: \.view) { [weak self] view in
      guard let self, let view else { return }
      self.react(to: view)
    }
    closing = session.store.subscribe(select: \.context.closesAt) { [weak self] closesAt in
      guard let self, let closesAt else { return }
      let left = (max(0, closesAt - Int64(Date().timeIntervalSince1970 * 1000)) + 999) / 1_000
      log("the server is closing in \(left) s; an unfinished match resumes when it is back")
    }
    link = session.store.subscribe(select: \.context.connection) { [weak self] connection in
      guard let self else { return }
      switch connection {
      case .reconnecting where !reconnecting:
        reconnecting = true
        log("lost the connection; reconnecting…")
      case .connected where reconnecting:
        reconnecting = false
        log("back in the match")
      default:
        break
      }
    }
    lies = session.store.subscribe(select: \.fair.evidence) { [weak self] evidence in
      guard let self, let evidence else { return }
      // A lie about a round is said on that round's line; any other (a match's result, a
      // round broken off) gets a line of its own.
      let state = session.store.state
      let onRoundLine =
        state.view?.history.contains { $0.round == evidence.round } == true
        && state.fair.verdicts[evidence.round] == .lie(evidence.reason)
      if !onRoundLine { log("✗ THE SERVER LIED: \(evidence.reason)") }
    }
  }

  private func react(to view: RoomView) {
    guard !gaveUp, let me = view.you else { return }
    let name = { (seat: Seat) in view.player(seat)?.name ?? "seat \(seat.rawValue)" }
    if let program { tell(program, view, me: me) }
    // Rounds keep their numbers while a view's history (the latest 100) slides on; a
    // new match numbers them from 1 again.
    if (view.history.last?.round ?? 0) < seenRound { seenRound = 0 }
    for round in view.history where round.round > seenRound {
      let mine = round.weapon(of: me)?.rawValue ?? "nothing"
      let theirs = round.weapon(of: me.opponent)?.rawValue ?? "nothing"
      let outcome: String
      switch round.winner {
      case nil:
        outcome = "draw"
        tally.roundsDrawn += 1
      case me?:
        outcome = "win"
        tally.roundsWon += 1
      default:
        outcome = "loss"
        tally.roundsLost += 1
      }
      var check = ""
      switch session.store.state.fair.verdicts[round.round] {
      case .verified?: check = " ✓ verified"
      case .unverifiable(let why)?: check = " (not verified: \(why))"
      case .lie(let why)?: check = " ✗ THE SERVER LIED: \(why)"
      case nil: break
      }
      log("round \(round.round): \(mine) vs \(theirs) (\(name(me.opponent))): \(outcome)\(check)")
    }
    seenRound = view.history.last?.round ?? 0
    switch view.phase {
    case .waiting:
      break
    case .choosing:
      finished = false
      if session.store.state.isMyMove {
        if player != nil {
          let weapon = player!.nextPick(
            history: view.history, seat: me, ruleset: Ruleset.named(view.ruleset))
          session.store.dispatch(.choose(weapon))
        } else if let program {
          program.handle(
            .pickWanted(
              round: view.round, history: view.history.map { .init($0, seat: me) },
              score: Self.score(view, me: me), at: .now))
        }
      }
    case .over:
      guard !finished else { return }
      finished = true
      if Self.isCalledOff(view, me: me) {
        log("\(name(me.opponent)) left before the first round; waiting for another opponent")
        return
      }
      player?.matchOver(history: view.history, seat: me, ruleset: Ruleset.named(view.ruleset))
      if view.winner == me { tally.matchesWon += 1 } else { tally.matchesLost += 1 }
      log(
        "match \(tally.matches): \(view.winner == me ? "won" : "lost") against \(name(me.opponent))"
      )
      if tally.matches >= matches {
        session.store.dispatch(.quit)
      } else if asksRematch, view.player(me.opponent)?.left != true {
        session.store.dispatch(.rematch)
      }
    }
  }

  /// Tells the program what `view` shows that it has not been told: a match starting,
  /// rounds resolved, the match over (a pick wanted is asked in `react`, after these).
  private func tell(_ program: BotProgram, _ view: RoomView, me: Seat) {
    if !matchOpen, view.phase == .choosing, let opponent = view.opponent {
      matchOpen = true
      toldRound = view.history.first.map { $0.round - 1 } ?? 0
      program.handle(
        .matchStarted(
          .init(
            match: tally.matches + 1, ruleset: Ruleset.named(view.ruleset), bestOf: view.bestOf,
            seat: me, name: view.player(me)?.name ?? "", opponent: opponent.name, room: view.room,
            limits: program.session.limits)))
      guard !gaveUp else { return }
    }
    guard matchOpen else { return }
    let told = view.history.filter { $0.round > toldRound }
    if !told.isEmpty {
      // The score after each round: the view's, less what the rounds after it won.
      var score = Self.score(view, me: me)
      score.you -= told.count { $0.winner == me }
      score.them -= told.count { $0.winner == me.opponent }
      for round in told {
        if round.winner == me { score.you += 1 }
        if round.winner == me.opponent { score.them += 1 }
        program.handle(.roundResolved(.init(round, seat: me), score: score))
        toldRound = round.round
      }
    }
    if view.phase == .over {
      matchOpen = false
      if Self.isCalledOff(view, me: me) {
        let opponent = view.player(me.opponent)?.name ?? "the opponent"
        program.handle(
          .matchCalledOff(why: "\(opponent) left before the first round; no match was played"))
      } else {
        program.handle(
          .matchEnded(view.winner == me ? .won : .lost, score: Self.score(view, me: me)))
      }
    }
  }

  /// Whether `view` is a quick match that ended before a round of it was resolved, its
  /// opponent gone: nothing was played, so it is not counted (toward `--matches`, or in
  /// the tally) and the bot waits where it is for quick match's next opponent. So it
  /// goes when quick match moves a player whose match just ended into the bot's room as
  /// they leave, their own last match played.
  nonisolated static func isCalledOff(_ view: RoomView, me: Seat) -> Bool {
    view.phase == .over && view.history.isEmpty && view.winner == me
      && view.player(me.opponent)?.left == true && LobbyState.isQuickMatchRoom(view.room)
  }

  private static func score(_ view: RoomView, me: Seat) -> BotProgramLine.Score {
    .init(you: view.player(me)?.score ?? 0, them: view.player(me.opponent)?.score ?? 0)
  }

  /// The program picked `weapon` for `round`: dispatched if that round is still open.
  private func programPicked(_ weapon: Weapon, round: Int) {
    let state = session.store.state
    guard !gaveUp, state.view?.round == round, state.isMyMove else { return }
    session.store.dispatch(.choose(weapon))
  }

  /// The program failed its match (what was wrong has been said): the match is given up
  /// by leaving the room, and counted as lost.
  private func giveUpMatch() {
    guard !gaveUp else { return }
    gaveUp = true
    matchOpen = false
    tally.matchesLost += 1
    let opponent = session.store.state.view?.opponent?.name ?? "the opponent"
    log("match \(tally.matches): gave up against \(opponent)")
    session.store.dispatch(.quit)
  }

  /// A bot's name when it is given none: "bot-" and four random hex digits, so that bots
  /// started alike are told apart (the leaderboard is kept by name).
  nonisolated public static func randomName() -> String {
    let digits = String(UInt16.random(in: 0...UInt16.max), radix: 16)
    return "bot-" + String(repeating: "0", count: 4 - digits.count) + digits
  }

  /// "3 matches: 2 won, 1 lost; rounds: 5 won, 3 lost, 2 drawn".
  public var summary: String { tally.summary }
}
