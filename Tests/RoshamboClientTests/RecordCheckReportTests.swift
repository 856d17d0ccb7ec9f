import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// What `roshambo verify` prints, as text at a terminal's width.
@Suite("roshambo verify's report")
struct RecordCheckReportTests {
  /// A fair match Bob wins 2–0, with real commitments, in a room whose name makes the
  /// heading longer than 80 columns.
  static let match: FinishedMatch = {
    let pairs: [(Weapon, Weapon)] = [(.rock, .paper), (.scissors, .rock)]
    var rounds: [RoundResult] = []
    for (index, pair) in pairs.enumerated() {
      let nonces = (0..<2).map { _ in Commitment.makeNonce() }
      let commitments = Seat.allCases.map { seat in
        Commitment.digest(
          room: "duel-12", round: index + 1, seat: seat,
          weapon: seat == .one ? pair.0 : pair.1, nonce: nonces[seat.rawValue - 1])
      }
      let (winner, rule) = Ruleset.classic.decide(pair.0, pair.1)
      rounds.append(
        RoundResult(
          round: index + 1, weapons: [pair.0, pair.1], winner: winner, reason: rule?.sentence,
          commitments: commitments, nonces: nonces.map(Commitment.hex),
          at: 1_000 * Int64(index + 1)))
    }
    return FinishedMatch(
      id: 42, room: "duel-12", finishedAt: 9_000, ruleset: "classic", bestOf: 3,
      players: ["alice", "bob"], scores: [0, 2], winner: "bob", forfeit: false, fair: true,
      rounds: rounds)
  }()

  @Test("at 80 columns, lines break between words: the winner's name stays whole")
  func wrapsBetweenWords() {
    let report = RecordCheckReport(Self.match, width: 80)
    #expect(report.holds)
    for line in report.lines {
      #expect(DisplayWidth.columns(of: line) <= 80, "\(line)")
    }
    // The heading is wider than 80 columns: its last line ends with the winner, whole.
    #expect(report.lines[1].hasSuffix(#""bob""#), "\(report.lines)")
    // Every word of every paragraph is on one line: the text rejoined reads as written.
    let words = report.lines.flatMap { $0.split(separator: " ") }
    let unwrapped = RecordCheckReport(Self.match, width: nil).lines
    #expect(words == unwrapped.flatMap { $0.split(separator: " ") })
  }

  @Test("once another record agreed, the verdict no longer says what a record alone cannot show")
  func agreedComparison() {
    let alone = RecordCheckReport(Self.match, width: 80).lines.joined(separator: " ")
    #expect(alone.contains("cannot show"), "\(alone)")
    var own = Self.match
    own.id = nil
    let compared = RecordCheckReport(Self.match, comparedWith: own, width: 80)
    let text = compared.lines.joined(separator: "\n")
    #expect(compared.holds)
    #expect(!text.contains("cannot show"), "\(text)")
    #expect(text.contains("Consistent: every reveal matches its commitment"), "\(text)")
    #expect(text.contains("The two records agree on every round"), "\(text)")
  }

  @Test("records that differ: the caveat stays, the differences are listed, it does not hold")
  func differingComparison() {
    var other = Self.match
    other.winner = "alice"
    other.scores = [2, 0]
    let compared = RecordCheckReport(Self.match, comparedWith: other, width: 80)
    let text = compared.lines.joined(separator: "\n")
    #expect(!compared.holds)
    #expect(text.contains("The two records differ:"), "\(text)")
    #expect(text.contains("cannot show"), "\(text)")
  }
}
