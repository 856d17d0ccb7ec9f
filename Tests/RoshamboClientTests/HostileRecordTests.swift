import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboClient

/// Records written to attack the terminal that replays them: text that would draw on it,
/// and times at the ends of their range.
@MainActor
@Suite("Replaying a hostile record")
struct HostileRecordTests {
  /// OSC 52 (a clipboard write), a screen clear, BEL, a right-to-left override and a C1
  /// CSI.
  static let hostile = "\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J\u{07}\u{202E}\u{9B}2J"

  static func match(at times: [Int64?] = [1_000, 2_000], scores: [Int] = [2, 0]) -> FinishedMatch {
    let rounds = times.enumerated().map { index, at in
      RoundResult(
        round: index + 1, weapons: [.rock, .scissors], winner: .one,
        reason: "rock crushes scissors" + hostile, at: at)
    }
    return FinishedMatch(
      room: "duel", finishedAt: 3_000, ruleset: "classic", bestOf: 3,
      players: ["eve" + hostile, "bob" + hostile], scores: scores, winner: "eve" + hostile,
      forfeit: false, fair: false, rounds: rounds)
  }

  /// The scalars a terminal acts on: C0 (ESC, BEL…), DEL, C1, and bidirectional
  /// overrides.
  static func unsafe(_ line: String) -> [String] {
    line.unicodeScalars.filter {
      $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value)
        || (0x2066...0x2069).contains($0.value)
    }.map { "U+" + String($0.value, radix: 16, uppercase: true) }
  }

  @Test("piped, and on the replay screen, a record's names and reasons are escaped")
  func textIsSanitized() throws {
    var replay = try #require(MatchReplay(Self.match()))
    for line in ReplayScreen.lines(for: replay) {
      #expect(Self.unsafe(line).isEmpty, "piped: \(Self.unsafe(line)) in \(line.debugDescription)")
    }
    for step in 0...replay.lastStep {
      replay.seek(to: step)
      var props = replay.state.props
      props.notice = ReplayScreen.position(of: replay, title: "x", playing: true)
      for line in ScreenRenderer(width: 200, height: 40, color: false).lines(for: props) {
        #expect(
          Self.unsafe(line).isEmpty,
          "step \(step): \(Self.unsafe(line)) in \(line.debugDescription)")
      }
    }
  }

  @Test("rounds at the ends of time, and scores at the ends of Int: no trap, a pause in range")
  func extremeValues() throws {
    let extremes: [[Int64?]] = [
      [.max, .min], [.min, .max], [.min, .min], [0, .min], [nil, .min],
    ]
    for times in extremes {
      for speed in [0.001, 1, 1000] {
        let pause = ReplayScreen.pause(from: times[0], to: times[1], speed: speed)
        #expect(pause >= .milliseconds(300) && pause <= .seconds(5), "\(times) at \(speed)×")
      }
    }
    for scores in [[Int.min, Int.min], [Int.max, Int.min], [Int.min, Int.max]] {
      var replay = try #require(MatchReplay(Self.match(at: [.max, .min], scores: scores)))
      replay.seek(to: replay.lastStep)
      #expect(!ReplayScreen.lines(for: replay).isEmpty)
    }
    var ancient = Self.match()
    ancient.finishedAt = .min
    #expect(MatchRecordText.heading(ancient).count == 2)
  }
}
