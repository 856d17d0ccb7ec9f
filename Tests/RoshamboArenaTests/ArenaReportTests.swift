import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import Testing

@testable import RoshamboArena

@Suite(.cpuBound) struct ArenaReportTests {
  static func result(bots names: [String], strategies: [BotStrategy]) throws -> ArenaResult {
    let schedule = ArenaSchedule(bots: names.count, roundsPerGame: 200, games: 1, seed: 3)
    let test = SequentialTest.Parameters()
    let referees = try SimulatedArena(bots: strategies, schedule: schedule, test: test)
      .run(interleaving: 1)
    return ArenaResult(
      bots: names,
      settings: .init(
        roundsPerGame: 200, games: 1, seed: 3, test: test, jobs: 8, bestOf: 9,
        server: "a server of its own"),
      pairings: referees.map(ArenaResult.Pairing.init), seconds: 1.5,
      roundsPlayed: referees.reduce(0) { $0 + $1.counted + $1.uncounted },
      programPicks: ArenaResult.PickTimes(sortedMicros: [100, 200, 300]))
  }

  /// Every line fits 80 columns, with 12 bots and with 20 whose names are long programs.
  @Test(arguments: [12, 20])
  func everyLineFitsEightyColumns(count: Int) throws {
    let strategies = (0..<count).map { BotStrategy.allCases[$0 % BotStrategy.allCases.count] }
    let names = strategies.enumerated().map { index, strategy in
      index < BotStrategy.allCases.count
        ? strategy.rawValue : "exec:python3 /home/someone/bots/a-rather-long-name-\(index).py"
    }
    let report = ArenaReport(try Self.result(bots: names, strategies: strategies))
    let lines = report.lines
    for line in lines { #expect(line.count <= 80, "\(line.count): \(line)") }
    // The matrix holds every bot as a row, and every pairing has its line.
    for name in names.prefix(7) { #expect(lines.contains { $0.hasPrefix(String(name.prefix(9))) }) }
    #expect(
      lines.filter { $0.contains("undecided") || $0.contains("@") }.count >= count * (count - 1) / 2
    )
  }

  /// Two bots make one pairing, and the report says so in the singular.
  @Test func onePairingIsSingular() throws {
    let text = ArenaReport(
      try Self.result(bots: ["random", "rock"], strategies: [.random, .rock])
    )
    .lines.joined(separator: " ")
    #expect(text.contains("2 bots, 1 pairing,"))
    #expect(text.contains("of 1 pairing."))
    #expect(!text.contains("1 pairings"))
  }

  /// The pool's names that share a stem keep what tells them apart (the matrix printed
  /// `fre5` for frequency-20 and `fre6` for frequency-5).
  @Test func abbreviationsKeepTheDistinguishingDigits() {
    let names = ["frequency", "frequency-20", "frequency-5", "markov", "markov2", "markov3"]
    #expect(
      ArenaReport.abbreviate(names, to: 4) == ["freq", "fr20", "fre5", "mark", "mar2", "mar3"])
    #expect(ArenaReport.abbreviate(names, to: 10)[1...2] == ["frequenc20", "frequency5"])
    #expect(ArenaReport.abbreviate(["random", "random"], to: 4) == ["rand", "ran2"])
  }

  /// The JSON is one object holding the bots with ratings, every pairing (both seat
  /// orders, what each side saw), the test's parameters and the matrix.
  @Test func theJSONHoldsTheWholeResult() throws {
    let result = try Self.result(
      bots: ["rock", "paper", "exec:say \"hi\"\n"], strategies: [.rock, .paper, .markov])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.json.utf8)) as? [String: Any])
    let bots = try #require(object["bots"] as? [[String: Any]])
    #expect(bots.map { $0["name"] as? String } == ["rock", "paper", "exec:say \"hi\"\n"])
    #expect(bots.allSatisfy { $0["rating"] is Double || $0["rating"] is Int })
    let pairings = try #require(object["pairings"] as? [[String: Any]])
    #expect(pairings.count == 3)
    #expect(pairings[0]["verdict"] as? String == "second")
    #expect((pairings[0]["seatOrders"] as? [Any])?.count == 2)
    let test = try #require(object["test"] as? [String: Any])
    #expect(test["margin"] as? Double == 0.05)
    let matrix = try #require(object["matrix"] as? [[Any]])
    #expect(matrix.count == 3 && matrix[0][0] is NSNull)
    #expect(matrix[1][0] as? Double == 1 || matrix[1][0] as? Int == 1)
  }

  @Test func theProgressLineFitsAndEstimates() {
    let progress = ArenaProgress(
      pairings: 66, done: 10,
      running: (0..<8).map {
        .init(first: "frequency", second: "exec:python3 b\($0).py", played: 500)
      },
      roundsPlayed: 20_000, roundsPlayedByDone: 10_000, roundCap: 2_000, seconds: 10)
    for width in [40, 80, 120] { #expect(progress.line(width: width).count <= width) }
    // 48 pairings waiting at half their cap and 8 with 1,500 left, at 2,000 rounds/s.
    let left = progress.secondsLeft ?? 0
    #expect(abs(left - (48 * 1_000 + 8 * 1_500) / 2_000.0) < 1e-9, "\(left)")
  }
}
