import RoshamboGame

/// What one seat's connection saw of a round: won, lost or drawn, from its own side.
///
/// Invariant: the two seats of one round see mirror images (won and lost, or both drawn).
public enum SeatOutcome: Sendable, Equatable {
  case won, lost, drawn
}

/// Rounds between the two bots of a pairing: the first bot's wins, the second's, draws.
///
/// Invariant: `rounds` is the sum of the three counts, each never negative.
public struct PairingTally: Sendable, Equatable {
  public var firstWins = 0
  public var secondWins = 0
  public var draws = 0

  public init(firstWins: Int = 0, secondWins: Int = 0, draws: Int = 0) {
    self.firstWins = firstWins
    self.secondWins = secondWins
    self.draws = draws
  }

  public var rounds: Int { firstWins + secondWins + draws }

  public static func + (a: PairingTally, b: PairingTally) -> PairingTally {
    PairingTally(
      firstWins: a.firstWins + b.firstWins, secondWins: a.secondWins + b.secondWins,
      draws: a.draws + b.draws)
  }
}

/// One bot's rounds as its own connections saw them.
///
/// Invariant: counts only what the bot's own connections reported, so two bots' tallies
/// of one pairing can be checked against each other.
public struct BotTally: Sendable, Equatable {
  public var wins = 0
  public var losses = 0
  public var draws = 0

  public init(wins: Int = 0, losses: Int = 0, draws: Int = 0) {
    self.wins = wins
    self.losses = losses
    self.draws = draws
  }
}

/// The two seats of a room said different things about one round.
///
/// Invariant: names the room's seat order and the round (counted in that room) where the
/// seats first disagreed.
public struct SeatsDisagree: Error, Sendable, Equatable, CustomStringConvertible {
  public var round: Int
  public var order: ArenaSchedule.SeatOrder

  public var description: String {
    "the two seats of a room saw round \(round) end differently; the server's views "
      + "contradict each other"
  }
}

/// Decides one pairing from the rounds its two rooms report: it counts the rounds in one
/// order fixed by the schedule, not by the network's timing (round 1 of the room where
/// the first bot holds seat 1, round 1 of the other room, round 2 of the first, …), feeds
/// each decisive one to the sequential test, and stops counting once the test has
/// decided or the round cap is reached.
///
/// Invariant: a round is counted only once both seats of its room reported it and
/// agreed, so what is counted depends on the bots' picks alone and one seed gives one
/// result however the rooms' play interleaves; nothing is counted after the verdict.
public struct PairingReferee: Sendable {
  public let pairing: ArenaSchedule.Pairing
  public let roundCap: Int
  public private(set) var test: SequentialTest
  /// The rounds counted in each seat order (indexed by ``ArenaSchedule/SeatOrder``).
  public private(set) var tallies = [PairingTally(), PairingTally()]
  /// The counted rounds as each bot's own connections saw them (the first bot's, the
  /// second's).
  public private(set) var seen = [BotTally(), BotTally()]
  /// Rounds played (as rooms' first seats reported them) but not counted: after the
  /// verdict, or not yet counted when the pairing ended (``close()``).
  public private(set) var uncounted = 0
  /// The rounds counted when the verdict was reached.
  public private(set) var decidedAfterRounds: Int?
  /// Reports waiting to be counted: [order][seat − 1], each a queue from `heads`.
  private var reports: [[[SeatOutcome]]] = [[[], []], [[], []]]
  private var heads = [[0, 0], [0, 0]]
  private var next = ArenaSchedule.SeatOrder.firstSeated

  public init(pairing: ArenaSchedule.Pairing, roundCap: Int, test: SequentialTest.Parameters) {
    self.pairing = pairing
    self.roundCap = roundCap
    self.test = SequentialTest(test)
  }

  public var counted: Int { tallies[0].rounds + tallies[1].rounds }
  public var total: PairingTally { tallies[0] + tallies[1] }

  /// Whether the pairing needs no more rounds: decided, or at its cap.
  public var isSettled: Bool { test.verdict != .undecided || counted >= roundCap }

  /// Rounds of `order`'s room both seats have reported and the referee has not counted
  /// yet (the room is this far ahead of the other).
  public func backlog(_ order: ArenaSchedule.SeatOrder) -> Int {
    let o = order.rawValue
    return min(reports[o][0].count - heads[o][0], reports[o][1].count - heads[o][1])
  }

  /// The seat `seat` of the room of `order` saw a round end so.
  public mutating func report(
    _ outcome: SeatOutcome, order: ArenaSchedule.SeatOrder, seat: Seat
  ) throws(SeatsDisagree) {
    guard !isSettled else {
      if seat == .one { uncounted += 1 }
      return
    }
    reports[order.rawValue][seat.rawValue - 1].append(outcome)
    while !isSettled, backlog(next) > 0 {
      try count(next)
      next = next.other
    }
  }

  /// Rounds left uncounted when the pairing ended, added to ``uncounted``: every round a
  /// room's first seat reported and the referee did not count (a room ahead of the other,
  /// or a round its second seat reported only after the pairing was settled).
  public mutating func close() {
    for order in ArenaSchedule.SeatOrder.allCases {
      uncounted += reports[order.rawValue][0].count - heads[order.rawValue][0]
      heads[order.rawValue] = [reports[order.rawValue][0].count, reports[order.rawValue][1].count]
    }
  }

  private mutating func count(_ order: ArenaSchedule.SeatOrder) throws(SeatsDisagree) {
    let o = order.rawValue
    let one = reports[o][0][heads[o][0]]
    let two = reports[o][1][heads[o][1]]
    heads[o][0] += 1
    heads[o][1] += 1
    let round = tallies[o].rounds + 1
    if heads[o][0] > 4_096 {
      reports[o][0].removeFirst(heads[o][0])
      heads[o][0] = 0
    }
    if heads[o][1] > 4_096 {
      reports[o][1].removeFirst(heads[o][1])
      heads[o][1] = 0
    }
    let firstSeat: Seat = order == .firstSeated ? .one : .two
    let (firstSaw, secondSaw) = firstSeat == .one ? (one, two) : (two, one)
    switch (firstSaw, secondSaw) {
    case (.won, .lost):
      tallies[o].firstWins += 1
      seen[0].wins += 1
      seen[1].losses += 1
      test.record(firstWon: true)
    case (.lost, .won):
      tallies[o].secondWins += 1
      seen[0].losses += 1
      seen[1].wins += 1
      test.record(firstWon: false)
    case (.drawn, .drawn):
      tallies[o].draws += 1
      seen[0].draws += 1
      seen[1].draws += 1
    default:
      throw SeatsDisagree(round: round, order: order)
    }
    if test.verdict != .undecided, decidedAfterRounds == nil { decidedAfterRounds = counted }
  }
}
