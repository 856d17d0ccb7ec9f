import Foundation
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

  @Test("the evidence always saves inside its folder, whatever the room is called")
  func evidenceNames() throws {
    let folder = NSTemporaryDirectory() + "roshambo-evidence-names-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for room in ["../../../tmp/PWNED", "sub/dir", String(repeating: "r", count: 4_000), "den", ""] {
      let evidence = FairPlay.Evidence(
        room: room, round: 2, seat: .one, reason: "a lie", secret: secret,
        opponentCommitmentShown: theirs, reported: result())
      let path = try EvidenceFile.write(evidence, in: folder)
      #expect(path.hasPrefix(folder + "/evidence-"), "\(path)")
      #expect(!path.dropFirst(folder.count + 1).contains("/"), "\(path)")
      #expect(FileManager.default.fileExists(atPath: path))
      let written = try String(contentsOfFile: path, encoding: .utf8)
      #expect(written.contains("\"reason\": \"a lie\""))
    }
    // Two in the same millisecond get two files.
    let evidence = FairPlay.Evidence(
      room: "den", round: 1, seat: .one, reason: "again", secret: nil,
      opponentCommitmentShown: nil, reported: result())
    let first = try EvidenceFile.write(evidence, in: folder)
    let second = try EvidenceFile.write(evidence, in: folder)
    #expect(first != second)
    #expect(EvidenceFile.fileName(room: "den", round: 3, stamp: 7) == "evidence-den-round3-7.json")
    #expect(
      EvidenceFile.fileName(room: "a/b", round: 3, stamp: 7).range(
        of: #"^evidence-room-[0-9a-f]{16}-round3-7\.json$"#, options: .regularExpression) != nil)
  }

  @Test("a reveal shown received, then reported missing, is a lie")
  func revealReportedMissing() {
    let missing = result(
      weapons: [nil, .scissors], winner: .two, nonces: [nil, Commitment.hex(theirNonce)])
    let acknowledged = FairPlay.verdict(
      of: missing, room: "r", me: .one, ruleset: .classic, secret: secret,
      opponentCommitmentShown: theirs, revealed: true, acknowledged: true)
    guard case .lie(let why) = acknowledged else {
      Issue.record("expected a lie, got \(acknowledged)")
      return
    }
    #expect(why.contains("showed your reveal as received"))
    // Not shown as received: it may have come late, which is not a lie.
    if case .lie = verdict(missing) { Issue.record("an unacknowledged reveal called a lie") }
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
    // The same checks as a player's, in a spectator's words.
    #expect(winner == "it gave the round to player 2; the revealed weapons give it to player 1")
    #expect(
      verdict(result(winner: .two))
        == .lie("it gave the round to your opponent; the revealed weapons give it to you"))
    #expect(
      verdict(result(), shown: secret.digest)
        == .lie("your opponent's commitment changed after it was shown to you"))
    #expect(weapon.contains("player 1 played paper"))
    #expect(swapped.contains("player 2's commitment changed"))
    guard case .unverifiable = judge(result(), [.one: secret.digest]) else {
      Issue.record("one commitment shown is not enough to check")
      return
    }
  }
}
