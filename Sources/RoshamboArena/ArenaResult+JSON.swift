import RoshamboJSON

extension ArenaResult {
  /// The whole result as one JSON object, for scripts (`roshambo arena --json`). Rates
  /// are fractions of the decisive rounds; ratings are on the Elo scale, centred on 0.
  public var json: String {
    var out = ArenaJSONWriter()
    out.object {
      $0.field("bots") {
        $0.array(bots.indices) { out, index in
          out.object {
            $0.field("name", string: bots[index])
            $0.field("rating", number: ratings.elo[index])
            $0.field("ratingError", number: ratings.eloErrors[index])
            $0.field(
              "ratingLow", number: ratings.elo[index] - WinRate.z95 * ratings.eloErrors[index])
            $0.field(
              "ratingHigh", number: ratings.elo[index] + WinRate.z95 * ratings.eloErrors[index])
          }
        }
      }
      $0.field("settings") { out in
        out.object {
          $0.field("rounds", int: settings.roundsPerGame)
          $0.field("games", int: settings.games)
          $0.field("seed", string: String(settings.seed))
          $0.field("jobs", int: settings.jobs)
          $0.field("bestOf", int: settings.bestOf)
          $0.field("server", string: settings.server)
        }
      }
      $0.field("test") { out in
        out.object {
          $0.field("kind", string: "SPRT, two one-sided tests on decisive rounds (Sobel-Wald)")
          $0.field("margin", number: settings.test.margin)
          $0.field("alpha", number: settings.test.alpha)
          $0.field("beta", number: settings.test.beta)
          $0.field("upperBound", number: settings.test.upperBound)
          $0.field("lowerBound", number: settings.test.lowerBound)
          $0.field(
            "expectedDecisiveRoundsEven", number: settings.test.expectedDecisiveRounds(at: 0.5))
          $0.field(
            "expectedDecisiveRoundsAtMargin",
            number: settings.test.expectedDecisiveRounds(at: 0.5 + settings.test.margin))
        }
      }
      $0.field("pairings") {
        $0.array(pairings.indices) { out, index in
          let pairing = pairings[index]
          let total = pairing.total
          let rate = pairing.winRate
          out.object {
            $0.field("first", string: bots[pairing.first])
            $0.field("second", string: bots[pairing.second])
            $0.field("rounds", int: total.rounds)
            $0.field("firstWins", int: total.firstWins)
            $0.field("secondWins", int: total.secondWins)
            $0.field("draws", int: total.draws)
            $0.field("firstWinRate", number: rate.rate)
            $0.field("firstWinRateLow", number: rate.low)
            $0.field("firstWinRateHigh", number: rate.high)
            $0.field("verdict", string: pairing.verdict.rawValue)
            $0.field("decidedAfterRounds", int: pairing.decidedAfterRounds)
            $0.field("decidedAfterDecisiveRounds", int: pairing.decidedAfterDecisive)
            $0.field("uncountedRounds", int: pairing.uncounted)
            $0.field("seatOrders") {
              $0.array([0, 1]) { out, order in
                let tally = pairing.bySeatOrder[order]
                out.object {
                  $0.field("seat1", string: bots[order == 0 ? pairing.first : pairing.second])
                  $0.field("rounds", int: tally.rounds)
                  $0.field("firstWins", int: tally.firstWins)
                  $0.field("secondWins", int: tally.secondWins)
                  $0.field("draws", int: tally.draws)
                }
              }
            }
            $0.field("seenBy") {
              $0.array([0, 1]) { out, side in
                let tally = pairing.seen[side]
                out.object {
                  $0.field("bot", string: bots[side == 0 ? pairing.first : pairing.second])
                  $0.field("wins", int: tally.wins)
                  $0.field("losses", int: tally.losses)
                  $0.field("draws", int: tally.draws)
                }
              }
            }
          }
        }
      }
      $0.field("matrix") {
        $0.array(bots.indices) { out, row in
          out.array(bots.indices) { out, column in
            out.number(winRate(row, against: column)?.rate)
          }
        }
      }
      $0.field("seconds", number: seconds)
      $0.field("roundsPlayed", int: roundsPlayed)
      $0.field("roundsCounted", int: roundsCounted)
      $0.field("roundsPerSecond", number: roundsPerSecond)
      if let programPicks {
        $0.field("programPicks") { out in
          out.object {
            $0.field("picks", int: programPicks.picks)
            $0.field("p50Micros", number: programPicks.p50)
            $0.field("p99Micros", number: programPicks.p99)
            $0.field("processes", int: programPicks.starts)
            $0.field("firstPickP50Micros", number: programPicks.firstP50)
          }
        }
      }
    }
    return out.text
  }
}

/// A JSON text built in order (strings escaped by ``JSONText``); numbers that are not
/// finite are written as null.
struct ArenaJSONWriter {
  private(set) var text = ""
  private var needsComma = [false]

  mutating func object(_ body: (inout ArenaJSONWriter) -> Void) {
    separate()
    text += "{"
    needsComma.append(false)
    body(&self)
    needsComma.removeLast()
    text += "}"
  }

  mutating func array<C: Collection>(_ items: C, _ body: (inout ArenaJSONWriter, C.Element) -> Void)
  {
    separate()
    text += "["
    needsComma.append(false)
    for item in items { body(&self, item) }
    needsComma.removeLast()
    text += "]"
  }

  mutating func field(_ key: String, _ value: (inout ArenaJSONWriter) -> Void) {
    separate()
    text += Self.quoted(key) + ":"
    needsComma[needsComma.count - 1] = false
    value(&self)
    needsComma[needsComma.count - 1] = true
  }

  mutating func field(_ key: String, string: String) { field(key) { $0.string(string) } }
  mutating func field(_ key: String, int: Int?) { field(key) { $0.int(int) } }
  mutating func field(_ key: String, number: Double?) { field(key) { $0.number(number) } }

  mutating func string(_ value: String) {
    separate()
    text += Self.quoted(value)
  }

  mutating func int(_ value: Int?) {
    separate()
    text += value.map(String.init) ?? "null"
  }

  mutating func number(_ value: Double?) {
    separate()
    text += Self.numberText(value)
  }

  /// How a number is written: whole numbers without a fraction, others as Swift prints a
  /// `Double` (the shortest text that reads back as the same value), null if not finite.
  static func numberText(_ value: Double?) -> String {
    guard let value, value.isFinite else { return "null" }
    return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }

  private mutating func separate() {
    if needsComma[needsComma.count - 1] { text += "," }
    needsComma[needsComma.count - 1] = true
  }

  private static func quoted(_ value: String) -> String {
    var json = JSONText()
    json.string(value)
    return String(decoding: json.bytes, as: UTF8.self)
  }
}
