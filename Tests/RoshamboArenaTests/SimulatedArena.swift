import RoshamboArena
import RoshamboClient
import RoshamboGame

/// An arena played without a server: each room's two seats are `StrategyPlayer`s seeded
/// as the arena seeds them, matches of `bestOf` end as the server ends them, and the
/// rounds go to each pairing's real `PairingReferee` — seat by seat, the two rooms
/// interleaved in an order drawn from `interleaving` (the network's timing, which must
/// not matter).
struct SimulatedArena {
  var bots: [BotStrategy]
  var schedule: ArenaSchedule
  var test: SequentialTest.Parameters
  var bestOf = 9

  /// One room: its players, the current match's rounds and scores, the rounds played.
  private struct Room {
    var players: [StrategyPlayer]
    var history: [RoundResult] = []
    var scores = [0, 0]
    var played = 0

    mutating func playRound(bestOf: Int) -> Seat?? {
      let ruleset = Ruleset.classic
      let one = players[0].nextPick(history: history, seat: .one, ruleset: ruleset)
      let two = players[1].nextPick(history: history, seat: .two, ruleset: ruleset)
      let (winner, _) = ruleset.decide(one, two)
      history.append(
        RoundResult(round: history.count + 1, weapons: [one, two], winner: winner, reason: nil))
      played += 1
      if let winner {
        scores[winner.rawValue - 1] += 1
        if scores[winner.rawValue - 1] > bestOf / 2 {
          history = []
          scores = [0, 0]
        }
      }
      return .some(winner)
    }
  }

  func run(interleaving seed: UInt64) throws -> [PairingReferee] {
    var order = SplitMix64(seed: seed)
    var referees: [PairingReferee] = []
    for pairing in schedule.pairings {
      var referee = PairingReferee(pairing: pairing, roundCap: schedule.roundCap, test: test)
      for game in 0..<schedule.games where !referee.isSettled {
        var rooms = ArenaSchedule.SeatOrder.allCases.map { seatOrder in
          Room(
            players: Seat.allCases.map { seat in
              StrategyPlayer(
                strategy: bots[schedule.bot(in: seat, of: pairing, order: seatOrder)],
                seed: schedule.seed(pairing: pairing, game: game, order: seatOrder, seat: seat))
            })
        }
        while !referee.isSettled,
          rooms.contains(where: { $0.played < schedule.roundsPerGame })
        {
          // A room the network favours plays a few rounds ahead of the other.
          var index = Int(order.next() % 2)
          if rooms[index].played >= schedule.roundsPerGame { index = 1 - index }
          let winner = rooms[index].playRound(bestOf: bestOf)!
          let seatOrder = ArenaSchedule.SeatOrder(rawValue: index)!
          for seat in Seat.allCases.shuffled(using: &order) {
            let outcome: SeatOutcome = winner == nil ? .drawn : winner == seat ? .won : .lost
            try referee.report(outcome, order: seatOrder, seat: seat)
          }
        }
      }
      referee.close()
      referees.append(referee)
    }
    return referees
  }
}
