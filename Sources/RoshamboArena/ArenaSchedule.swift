import RoshamboGame

/// Who plays whom in an arena, how long, and each seat's seed: every pair of bots once,
/// each pairing `games` games in each seat order of `roundsPerGame` rounds, its two seat
/// orders played side by side.
///
/// Invariant: `pairings` holds each unordered pair of distinct bots exactly once, first
/// the lower index, and a seat's seed depends only on the arena's seed and where the
/// seat is in the schedule, so one seed replays one arena.
public struct ArenaSchedule: Sendable, Equatable {
  /// Two bots that play each other (indexes into the arena's bots; `first < second`).
  public struct Pairing: Sendable, Hashable {
    public var index: Int
    public var first: Int
    public var second: Int
  }

  /// Which bot of a pairing holds seat 1.
  public enum SeatOrder: Int, Sendable, CaseIterable {
    case firstSeated = 0
    case secondSeated = 1

    public var other: SeatOrder { self == .firstSeated ? .secondSeated : .firstSeated }
  }

  public var bots: Int
  public var roundsPerGame: Int
  public var games: Int
  public var seed: UInt64
  public var pairings: [Pairing]

  public init(bots: Int, roundsPerGame: Int, games: Int, seed: UInt64) {
    self.bots = bots
    self.roundsPerGame = roundsPerGame
    self.games = games
    self.seed = seed
    var pairings: [Pairing] = []
    for first in 0..<bots {
      for second in (first + 1)..<max(bots, first + 1) {
        pairings.append(Pairing(index: pairings.count, first: first, second: second))
      }
    }
    self.pairings = pairings
  }

  /// The most rounds a pairing plays: every game in both seat orders.
  public var roundCap: Int { 2 * games * roundsPerGame }

  /// The bot (index into the arena's bots) that holds `seat` in a pairing's room of
  /// seat order `order`.
  public func bot(in seat: Seat, of pairing: Pairing, order: SeatOrder) -> Int {
    (seat == .one) == (order == .firstSeated) ? pairing.first : pairing.second
  }

  /// The seed of the bot in `seat` of the room of `order`, in game `game` (from 0) of
  /// `pairing`.
  public func seed(pairing: Pairing, game: Int, order: SeatOrder, seat: Seat) -> UInt64 {
    let place =
      ((UInt64(pairing.index) &* UInt64(max(games, 1)) &+ UInt64(game)) << 2)
      | UInt64(order.rawValue << 1) | UInt64(seat.rawValue - 1)
    var generator = SplitMix64(seed: seed ^ (place &* 0xD1B5_4A32_D192_ED03))
    return generator.next()
  }
}
