import Foundation
import Redux
import RoshamboGame

/// A player without a screen: it watches its session's view, picks with a strategy,
/// asks for rematches until it has played its matches, then leaves.
///
/// Invariant: it acts only through the session's store, like a person at the keys.
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

    /// "3 matches: 2 won, 1 lost; rounds: 5 won, 3 lost, 2 drawn".
    public var summary: String {
      "\(matches) matches: \(matchesWon) won, \(matchesLost) lost; rounds: "
        + "\(roundsWon) won, \(roundsLost) lost, \(roundsDrawn) drawn"
    }
  }

  public private(set) var tally = Tally()
  private let session: ClientSession
  private let strategy: BotStrategy
  private let matches: Int
  private let log: (String) -> Void
  private var player: StrategyPlayer
  private var subscription: Subscription?
  private var lies: Subscription?
  private var closing: Subscription?
  private var link: Subscription?
  /// Whether the session is between a lost connection and its replacement.
  private var reconnecting = false
  private var seenRounds = 0
  private var finished = false

  /// A bot that leaves once `tally` counts `matches` matches (it starts from `tally`, so
  /// bots playing one after another go on counting).
  /// Whether it asks for a rematch after a match it did not leave (not in a tournament,
  /// whose server pairs the next match itself).
  private let asksRematch: Bool

  public init(
    session: ClientSession, strategy: BotStrategy, matches: Int, tally: Tally = Tally(),
    asksRematch: Bool = true, log: @escaping (String) -> Void
  ) {
    self.asksRematch = asksRematch
    self.tally = tally
    self.session = session
    self.strategy = strategy
    self.player = StrategyPlayer(strategy: strategy, seed: UInt64.random(in: 0...UInt64.max))
    self.matches = matches
    self.log = log
  }

  public func start() {
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
    guard let me = view.you else { return }
    let name = { (seat: Seat) in view.player(seat)?.name ?? "seat \(seat.rawValue)" }
    if view.history.count < seenRounds { seenRounds = 0 }
    for round in view.history.dropFirst(seenRounds) {
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
    seenRounds = view.history.count
    switch view.phase {
    case .waiting:
      break
    case .choosing:
      finished = false
      if session.store.state.isMyMove {
        let weapon = player.nextPick(
          history: view.history, seat: me, ruleset: Ruleset.named(view.ruleset))
        session.store.dispatch(.choose(weapon))
      }
    case .over:
      guard !finished else { return }
      finished = true
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

  /// A bot's name when it is given none: "bot-" and four random hex digits, so that bots
  /// started alike are told apart (the leaderboard is kept by name).
  nonisolated public static func randomName() -> String {
    let digits = String(UInt16.random(in: 0...UInt16.max), radix: 16)
    return "bot-" + String(repeating: "0", count: 4 - digits.count) + digits
  }

  /// "3 matches: 2 won, 1 lost; rounds: 5 won, 3 lost, 2 drawn".
  public var summary: String { tally.summary }
}
