import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

@Suite("Checking a fair round")
struct FairPlayTests {
  let myNonce = [UInt8](repeating: 3, count: 32)
  let theirNonce = [UInt8](repeating: 4, count: 32)

  var secret: FairPlay.Secret {
    FairPlay.Secret(
      weapon: .rock, nonce: Commitment.hex(myNonce),
      digest: Commitment.digest(room: "r", round: 1, seat: .one, weapon: .rock, nonce: myNonce))
  }
  var theirs: String {
    Commitment.digest(room: "r", round: 1, seat: .two, weapon: .scissors, nonce: theirNonce)
  }

  func result(
    weapons: [Weapon?] = [.rock, .scissors], winner: Seat? = .one, commitments: [String?]? = nil,
    nonces: [String?]? = nil
  ) -> RoundResult {
    RoundResult(
      round: 1, weapons: weapons, winner: winner, reason: nil,
      commitments: commitments ?? [secret.digest, theirs],
      nonces: nonces ?? [secret.nonce, Commitment.hex(theirNonce)])
  }

  func verdict(_ result: RoundResult, shown: String? = nil) -> FairPlay.Verdict {
    FairPlay.verdict(
      of: result, room: "r", me: .one, ruleset: .classic, secret: secret,
      opponentCommitmentShown: shown ?? theirs, revealed: true)
  }

  @Test("an honest round is verified")
  func honest() {
    #expect(verdict(result()) == .verified)
  }

  @Test("each lie is named")
  func lies() {
    func reason(_ verdict: FairPlay.Verdict) -> String {
      if case .lie(let why) = verdict { return why }
      return "no lie found: \(verdict)"
    }
    #expect(reason(verdict(result(winner: .two))).contains("gave the round to your opponent"))
    #expect(reason(verdict(result(winner: nil))).contains("gave the round to nobody"))
    #expect(
      reason(verdict(result(weapons: [.paper, .scissors], winner: .two)))
        .contains("you played paper"))
    #expect(
      reason(verdict(result(commitments: [theirs, theirs]))).contains("you did not make"))
    #expect(
      reason(verdict(result(weapons: [.rock, .paper], winner: .two)))
        .contains("does not match the commitment"))
    let other = Commitment.digest(
      room: "r", round: 1, seat: .two, weapon: .paper, nonce: theirNonce)
    #expect(
      reason(verdict(result(weapons: [.rock, .paper], winner: .two), shown: other))
        .contains("changed after it was shown"))
    // A commitment bound to another round or seat does not pass for this one.
    let replayed = Commitment.digest(
      room: "r", round: 2, seat: .two, weapon: .scissors, nonce: theirNonce)
    #expect(
      reason(verdict(result(commitments: [secret.digest, replayed]), shown: replayed))
        .contains("does not match"))
  }

  @Test("what could not be checked is said, not called a lie")
  func unverifiable() {
    let early = FairPlay.verdict(
      of: result(weapons: [nil, nil], winner: .one, nonces: [nil, nil]), room: "r", me: .one,
      ruleset: .classic, secret: secret, opponentCommitmentShown: nil, revealed: false)
    guard case .unverifiable = early else {
      Issue.record("expected unverifiable, got \(early)")
      return
    }
  }

  @Test("a spectator checks both seats: an honest round verified, each lie named")
  func spectator() {
    let shown: [Seat: String] = [.one: secret.digest, .two: theirs]
    func judge(_ result: RoundResult, _ shown: [Seat: String]) -> FairPlay.Verdict {
      FairPlay.spectatorVerdict(of: result, room: "r", ruleset: .classic, shown: shown)
    }
    #expect(judge(result(), shown) == .verified)
    guard case .lie(let winner) = judge(result(winner: .two), shown),
      case .lie(let weapon) = judge(result(weapons: [.paper, .scissors], winner: .two), shown),
      case .lie(let swapped) = judge(result(), [.one: secret.digest, .two: secret.digest])
    else {
      Issue.record("a lie was not found")
      return
    }
    #expect(winner.contains("gave the round to player 2"))
    #expect(weapon.contains("player 1 played paper"))
    #expect(swapped.contains("player 2's commitment changed"))
    guard case .unverifiable = judge(result(), [.one: secret.digest]) else {
      Issue.record("one commitment shown is not enough to check")
      return
    }
  }
}
