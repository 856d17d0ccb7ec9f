import RoshamboGame
import RoshamboProtocol

/// What a client keeps to play a fair room and to check the server: its own secret for
/// the round (weapon, nonce, commitment), the opponent's commitment as it was first
/// shown, and a verdict for every resolved round. The client trusts nothing the server
/// says about a fair round that it cannot check against these.
///
/// Invariant: a secret is only ever revealed after the opponent's commitment for the
/// same round has been shown and recorded here, and at most one secret and one
/// recorded commitment per round are kept (rounds of the running match only).
public struct FairPlay: Equatable, Sendable {
  /// This client's commitment for a round and what it was made from.
  public struct Secret: Equatable, Sendable {
    public var weapon: Weapon
    /// 64 lower-case hex digits.
    public var nonce: String
    public var digest: String

    public init(weapon: Weapon, nonce: String, digest: String) {
      self.weapon = weapon
      self.nonce = nonce
      self.digest = digest
    }
  }

  /// What checking a resolved round found.
  public enum Verdict: Equatable, Sendable {
    /// Every reported weapon matches its commitment and the result follows the rules.
    case verified
    /// Nothing wrong, but not enough was shown to check (for example a round decided at
    /// the deadline before both commitments were in).
    case unverifiable(String)
    /// The server reported something the commitments prove false.
    case lie(String)
  }

  /// Everything needed to show that the server lied about a round.
  public struct Evidence: Equatable, Sendable {
    public var room: String
    public var round: Int
    /// The seat this client held, or nil for a spectator.
    public var seat: Seat?
    public var reason: String
    /// This client's secret for the round, if it committed.
    public var secret: Secret?
    /// The opponent's commitment as the server showed it before the reveals.
    public var opponentCommitmentShown: String?
    /// The round as the server reported it.
    public var reported: RoundResult
    /// Where the lie is about the whole match: what the server reported of it.
    public var reportedMatch: ReportedMatch?

    public init(
      room: String, round: Int, seat: Seat?, reason: String, secret: Secret?,
      opponentCommitmentShown: String?, reported: RoundResult,
      reportedMatch: ReportedMatch? = nil
    ) {
      self.room = room
      self.round = round
      self.seat = seat
      self.reason = reason
      self.secret = secret
      self.opponentCommitmentShown = opponentCommitmentShown
      self.reported = reported
      self.reportedMatch = reportedMatch
    }
  }

  /// A match as the server reported it: the scores (seat 1, seat 2) and the winner.
  public struct ReportedMatch: Equatable, Sendable {
    public var scores: [Int]
    public var winner: Seat?
  }

  var secrets: [Int: Secret] = [:]
  var opponentCommitments: [Int: String] = [:]
  /// For a spectator: both commitments of a round as first shown together.
  var shownToSpectator: [Int: [Seat: String]] = [:]
  var revealed: Set<Int> = []
  /// Rounds whose view showed this client's reveal as received.
  var acknowledged: Set<Int> = []
  /// The round whose reveal is to be sent now (set by one reduce only, which returns the
  /// reveal as an effect).
  public internal(set) var revealNow: Int?
  /// A verdict for each resolved round of this match, by round number.
  public internal(set) var verdicts: [Int: Verdict] = [:]
  /// Set once the server is caught lying; the session then stops.
  public internal(set) var evidence: Evidence?

  /// The rounds of this match checked and found true.
  public var verifiedRounds: Set<Int> {
    Set(verdicts.lazy.filter { $0.value == .verified }.map(\.key))
  }

  public init() {}

  /// This client's secret for `round`, if it committed.
  public func secret(for round: Int) -> Secret? { secrets[round] }

  /// A new match: nothing of the last one is kept but the evidence.
  mutating func startMatch() {
    secrets = [:]
    opponentCommitments = [:]
    shownToSpectator = [:]
    revealed = []
    acknowledged = []
    verdicts = [:]
    revealNow = nil
  }

  /// Checks a resolved fair round as a spectator sees it: both commitments as they were
  /// shown before the reveals, each reported weapon and nonce against its commitment, and
  /// the winner against the rules.
  public static func spectatorVerdict(
    of result: RoundResult, room: String, ruleset: Ruleset, shown: [Seat: String]
  ) -> Verdict {
    guard result.isFair else { return .lie("a fair room's round came without commitments") }
    guard shown.count == 2 else {
      return .unverifiable("the round ended before both commitments were shown")
    }
    let who = { (seat: Seat) in "player \(seat.rawValue)" }
    if let lie =
      commitmentLie(in: result, room: room, shown: shown, who: who, shownTo: "")
      ?? winnerLie(in: result, ruleset: ruleset, who: who)
    {
      return .lie(lie)
    }
    return .verified
  }

  /// The first of the round's commitments that is not the one `shown` (by seat) before
  /// the reveals, or whose reported weapon and nonce do not hash to it, in the reader's
  /// words (`who` names a seat; `shownTo` ends "shown", as " to you"); nil if none.
  private static func commitmentLie(
    in result: RoundResult, room: String, shown: [Seat: String], who: (Seat) -> String,
    shownTo: String
  ) -> String? {
    for seat in Seat.allCases {
      guard let commitment = shown[seat] else { continue }
      guard result.commitment(of: seat) == commitment else {
        return "\(who(seat))'s commitment changed after it was shown\(shownTo)"
      }
      if let weapon = result.weapon(of: seat),
        !revealHolds(result, seat: seat, commitment: commitment, room: room)
      {
        return "it reported that \(who(seat)) played \(weapon.rawValue), which does not match "
          + "the commitment shown\(shownTo)"
      }
    }
    return nil
  }

  /// The round's winner, when the rules give its reported weapons to another, in the
  /// reader's words; nil when they agree.
  private static func winnerLie(
    in result: RoundResult, ruleset: Ruleset, who: (Seat) -> String
  ) -> String? {
    let expected = expectedWinner(result, ruleset: ruleset)
    guard result.winner != expected else { return nil }
    return "it gave the round to \(result.winner.map(who) ?? "nobody"); the revealed weapons "
      + "give it to \(expected.map(who) ?? "nobody (a draw)")"
  }

  /// Whether the weapon reported for `seat`, if any, comes with a nonce that hashes to
  /// `commitment` with it.
  private static func revealHolds(
    _ result: RoundResult, seat: Seat, commitment: String, room: String
  ) -> Bool {
    guard let weapon = result.weapon(of: seat) else { return true }
    guard let nonce = result.nonce(of: seat) else { return false }
    return Commitment.verify(
      commitment, room: room, round: result.round, seat: seat, weapon: weapon, nonce: nonce)
  }

  /// What a fair room's view says of its match that the rounds it reports contradict,
  /// when they are all there (from round 1): each score must count the rounds its seat
  /// won, and a finished match must go to the seat that won enough rounds, or else to
  /// the opponent of a seat that left (either, once both have left). `me` names the seats
  /// as this client says them.
  public static func matchLie(in view: RoomView, me: Seat?) -> String? {
    guard (view.history.first?.round ?? view.round) == 1 else { return nil }
    func who(_ seat: Seat?) -> String {
      guard let seat else { return "nobody" }
      guard let me else { return "player \(seat.rawValue)" }
      return seat == me ? "you" : "your opponent"
    }
    var wins: [Seat: Int] = [.one: 0, .two: 0]
    for result in view.history {
      if let winner = result.winner { wins[winner, default: 0] += 1 }
    }
    for player in view.players where player.score != wins[player.seat] {
      return "it gave \(who(player.seat)) a score of \(player.score); the rounds it reported "
        + "give \(wins[player.seat] ?? 0)"
    }
    guard view.phase == .over else { return nil }
    let winsNeeded = view.bestOf / 2 + 1
    let gone = view.players.filter(\.left).map(\.seat)
    // A forfeit: the winner is the other of the one who left; once both have left (a
    // tournament's room keeps its result), either may have been first.
    if gone.count == 2, !Seat.allCases.contains(where: { wins[$0, default: 0] >= winsNeeded }) {
      return nil
    }
    let expected =
      Seat.allCases.first { wins[$0, default: 0] >= winsNeeded } ?? gone.first?.opponent
    guard view.winner == expected else {
      return "it gave the match to \(who(view.winner)); the rounds it reported give it to "
        + (expected.map(who) ?? "nobody yet")
    }
    return nil
  }

  /// The winner the rules give for the round's reported weapons.
  private static func expectedWinner(_ result: RoundResult, ruleset: Ruleset) -> Seat? {
    ruleset.decide(result.weapon(of: .one), result.weapon(of: .two)).winner
  }

  /// Checks a resolved fair round against what this client saw before it resolved:
  /// `revealed` says whether it sent its reveal, `acknowledged` whether a view then showed
  /// the reveal as received.
  public static func verdict(
    of result: RoundResult, room: String, me: Seat, ruleset: Ruleset, secret: Secret?,
    opponentCommitmentShown shown: String?, revealed: Bool, acknowledged: Bool = false
  ) -> Verdict {
    let opponent = me.opponent
    guard result.isFair else { return .lie("a fair room's round came without commitments") }
    if let secret {
      if result.commitment(of: me) != secret.digest {
        return .lie("it reported a commitment for you that you did not make")
      }
      if let mine = result.weapon(of: me), mine != secret.weapon {
        return .lie(
          "it reported that you played \(mine.rawValue); you committed to \(secret.weapon.rawValue)"
        )
      }
    }
    guard let shown else {
      return .unverifiable("the round ended before both commitments were in")
    }
    let who = { (seat: Seat) in seat == me ? "you" : "your opponent" }
    if let lie = commitmentLie(
      in: result, room: room, shown: [opponent: shown], who: who, shownTo: " to you")
    {
      return .lie(lie)
    }
    if secret != nil, revealed, result.weapon(of: me) == nil {
      if acknowledged {
        return .lie("it showed your reveal as received, then reported your weapon as missing")
      }
      return .unverifiable("your reveal did not count (it may have come after the deadline)")
    }
    if let lie = winnerLie(in: result, ruleset: ruleset, who: who) { return .lie(lie) }
    return .verified
  }
}
