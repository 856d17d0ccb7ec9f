import Foundation
import PropertyBased
import RoshamboGame
import RoshamboProtocol
import Testing

/// The match record's format (docs/MATCH-RECORD.md) and the check anyone can run on it.
@Suite("Match records")
struct MatchRecordTests {
  /// A fair match of `weapons` (seat 1's, seat 2's per round) with real commitments,
  /// as the server would record it.
  static func fairMatch(_ weapons: [(Weapon, Weapon)], bestOf: Int = 3) -> FinishedMatch {
    let ruleset = Ruleset.classic
    var rounds: [RoundResult] = []
    var scores = [0, 0]
    for (index, pair) in weapons.enumerated() {
      let number = index + 1
      let nonces = (0..<2).map { _ in Commitment.makeNonce() }
      let commitments = Seat.allCases.map { seat in
        Commitment.digest(
          room: "duel-1", round: number, seat: seat,
          weapon: seat == .one ? pair.0 : pair.1, nonce: nonces[seat.rawValue - 1])
      }
      let (winner, rule) = ruleset.decide(pair.0, pair.1)
      if let winner { scores[winner.rawValue - 1] += 1 }
      rounds.append(
        RoundResult(
          round: number, weapons: [pair.0, pair.1], winner: winner, reason: rule?.sentence,
          commitments: commitments, nonces: nonces.map(Commitment.hex),
          at: 1_000 * Int64(number)))
    }
    let winner = scores[0] > scores[1] ? "Ann" : "Bob"
    return FinishedMatch(
      id: 7, room: "duel-1", finishedAt: 9_000, ruleset: "classic", bestOf: bestOf,
      players: ["Ann", "Bob"], scores: scores, winner: winner, forfeit: false, fair: true,
      rounds: rounds)
  }

  static let genuine = fairMatch([
    (.rock, .rock), (.rock, .scissors), (.paper, .scissors), (.paper, .rock),
  ])

  static func failures(_ match: FinishedMatch) -> [String] {
    RecordVerification(match).findings.compactMap {
      if case .fails(let text) = $0 { text } else { nil }
    }
  }

  @Test("a fair record anyone could have written after the match is called consistent only")
  func forgedAfterTheFact() {
    // Commitments made by whoever wrote the record, when they wrote it: all consistent.
    let forged = Self.fairMatch([(.paper, .rock), (.paper, .rock)])
    let lines = MatchRecordText.verification(RecordVerification(forged))
    let verdict = lines.drop { $0.hasPrefix("  ") }.joined(separator: " ")
    #expect(verdict.contains("cannot show that the weapons were committed"), "\(verdict)")
    #expect(!verdict.contains("Verified"), "\(verdict)")
    #expect(verdict.hasPrefix("Consistent"), "\(verdict)")
    #expect(verdict.contains("--compare"), "\(verdict)")
  }

  @Test("a genuine fair match is proof: every reveal, every round, the scores, the winner")
  func genuineHolds() {
    let verification = RecordVerification(Self.genuine)
    #expect(verification.isProof, "\(verification.findings)")
    #expect(
      verification.findings == [
        .holds("4 rounds: each winner follows the classic rules"),
        .holds("8 reveals match their commitments"),
        .holds("the scores 2–1 count the rounds won"),
        .holds("Ann won 2 of best of 3"),
      ])
  }

  @Test("forgeries are refused, each saying what does not hold")
  func forgeries() {
    var weapon = Self.genuine
    weapon.rounds![1].weapons[1] = .paper
    // The changed weapon no longer opens its commitment, so it counts as no reveal: the
    // round still goes to Ann, but not by the rule the record gives.
    #expect(
      Self.failures(weapon) == [
        "round 2: Bob (seat 2)'s paper and nonce do not match the commitment",
        "round 2 says \"rock crushes scissors\", but no rule decided it (a seat played "
          + "nothing, or it was a draw)",
      ])
    var nonce = Self.genuine
    nonce.rounds![2].nonces.swapAt(0, 1)
    #expect(
      Self.failures(nonce).contains(
        "round 3: Ann (seat 1)'s paper and nonce do not match the commitment"))
    var winner = Self.genuine
    winner.winner = "Bob"
    #expect(
      Self.failures(winner) == [
        "the winner is said to be Bob; the rounds give the match to Ann (seat 1)"
      ])
    var removed = Self.genuine
    removed.rounds!.remove(at: 2)
    #expect(
      Self.failures(removed) == [
        "round 4 follows round 2: a round is missing or out of order",
        "the scores say 2–1; the rounds give 2–0",
      ])
    var roundWinner = Self.genuine
    roundWinner.rounds![0].winner = .two
    #expect(
      Self.failures(roundWinner).first
        == "round 1 is given to Bob (seat 2); its weapons give it to nobody (a draw)")
    var extra = Self.fairMatch([(.rock, .scissors), (.rock, .scissors), (.rock, .scissors)])
    extra.scores = [3, 0]
    #expect(Self.failures(extra).contains("rounds go on after round 2, where the match was won"))
  }

  @Test("an ordinary match can be consistent, never proof; a record without rounds is unchecked")
  func ordinary() {
    var match = Self.genuine
    match.fair = false
    match.rounds = match.rounds!.map {
      RoundResult(round: $0.round, weapons: $0.weapons, winner: $0.winner, reason: $0.reason)
    }
    let verification = RecordVerification(match)
    #expect(verification.holds && !verification.isProof)
    match.rounds = nil
    #expect(RecordVerification(match).findings.count == 1 && !RecordVerification(match).isProof)
  }

  @Test("records survive being written and read: random matches, any names")
  func roundTrip() async {
    let names = ["Ann", "Zoë", "a\"b\\c", "line\nbreak", "\u{1B}[2J", "🦎", ""]
    await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...110)) {
      numbers in
      var random = numbers.makeIterator()
      func next(_ bound: Int) -> Int { (random.next() ?? 0) % bound }
      let fair = next(2) == 1
      let count = min(numbers.count, FinishedMatch.roundLimit)
      let rounds = (0..<count).map { index -> RoundResult in
        let weapons = (0..<2).map { _ in next(4) == 0 ? nil : Weapon.allCases[next(5)] }
        let hex = { String(repeating: String("0123456789abcdef".randomElement()!), count: 64) }
        return RoundResult(
          round: index + 1 + next(3), weapons: weapons, winner: Seat(rawValue: next(3)),
          reason: next(2) == 0 ? nil : names[next(names.count)],
          commitments: fair ? [next(3) == 0 ? nil : hex(), hex()] : [],
          nonces: fair ? [hex(), next(3) == 0 ? nil : hex()] : [],
          at: next(2) == 0 ? nil : Int64(next(1 << 30)))
      }
      let match = FinishedMatch(
        id: next(2) == 0 ? nil : Int64(next(1 << 30)), room: "r-\(next(1000))",
        finishedAt: Int64(next(1 << 30)), ruleset: next(2) == 0 ? "classic" : "lizardSpock",
        bestOf: 2 * next(50) + 1, players: [names[next(names.count)], names[next(names.count)]],
        scores: [next(60), next(60)], winner: names[next(names.count)], forfeit: next(2) == 0,
        fair: fair, rounds: next(10) == 0 ? nil : rounds)
      let bytes = MatchRecord.encode(match)
      #expect(bytes.count <= MatchRecord.maxBytes)
      #expect((try? MatchRecord.decode(bytes)) == match)
    }
  }

  @Test(
    "documents that are not records are refused, naming what is wrong",
    arguments: [
      (#"{"format":2}"#, "the record is in format 2; this release reads format 1"),
      (#"{"room":"x"}"#, "not a match record: it has no \"format\""),
      (
        #"{"format":1,"room":"a b","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,0],"winner":"a","forfeit":true,"rounds":[]}"#,
        "\"room\" must be 1 to 32 of A-Z a-z 0-9 _ -"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a"],"scores":[0,0],"winner":"a","forfeit":true,"rounds":[]}"#,
        "a record has two players and two scores"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,0],"winner":"a","forfeit":true}"#,
        "a record needs room, finishedAt"
      ),
      ("[1,2]", "expected"),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a\u0000","b"],"scores":[0,1],"winner":"b","forfeit":true,"rounds":[]}"#,
        "a name in a record holds a control character"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,1],"winner":"b","forfeit":false,"rounds":[{"round":-5,"weapons":["rock","paper"],"winner":2,"reason":"paper covers rock"}]}"#,
        "a round's number is 1 to 2147483647; this record has round -5"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,1],"winner":"b","forfeit":false,"rounds":[{"round":1180591620717411303424,"weapons":["rock","paper"],"winner":2,"reason":"paper covers rock"}]}"#,
        "expected an integer"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":-1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,1],"winner":"b","forfeit":true,"rounds":[]}"#,
        "\"finishedAt\" is ms since 1970"
      ),
      (
        #"{"format":1,"room":"a","finishedAt":1,"ruleset":"classic","bestOf":1,"fair":false,"players":["a","b"],"scores":[0,-3],"winner":"b","forfeit":true,"rounds":[]}"#,
        "a score is a number of rounds won"
      ),
    ])
  func refused(document: String, reason: String) {
    #expect {
      try MatchRecord.decode(Array(document.utf8))
    } throws: { error in
      (error as? MatchRecord.Unreadable)?.reason.contains(reason) == true
    }
  }

  @Test("a record of more than 100 rounds, or of more than 256 KiB, is refused")
  func bounded() throws {
    var long = Self.genuine
    long.rounds = (1...101).map {
      RoundResult(round: $0, weapons: [.rock, .rock], winner: nil, reason: nil)
    }
    let error = #expect(throws: MatchRecord.Unreadable.self) {
      try MatchRecord.decode(MatchRecord.encode(long))
    }
    #expect(error?.reason.contains("at most 100 rounds") == true)
    let huge =
      Array(#"{"format":1,"pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 300_000)
      + Array(#""}"#.utf8)
    let big = #expect(throws: MatchRecord.Unreadable.self) { try MatchRecord.decode(huge) }
    #expect(big?.reason.hasPrefix("a record is at most 256 KiB") == true)
  }
}
