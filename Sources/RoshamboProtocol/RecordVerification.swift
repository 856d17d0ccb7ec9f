import RoshamboGame

/// What a match record shows when checked on its own, trusting nobody: each fair round's
/// reveals against their commitments (the digest ``Commitment`` documents), each round's
/// winner against the ruleset, the scores against the rounds and the match's winner
/// against the scores. `roshambo verify`, `roshambo replay --verify` and
/// `scripts/verify_record.py` check by the same rules.
///
/// Invariant: ``holds`` is true only if no finding failed; a record of an ordinary
/// (not fair) match can hold, but its weapons stay the host's word (``isProof`` is
/// false).
public struct RecordVerification: Sendable, Equatable {
  /// One thing checked.
  public enum Finding: Sendable, Equatable {
    case holds(String)
    case fails(String)
    /// What the record cannot show (rounds it does not hold; an ordinary match's picks).
    case unchecked(String)
  }

  public var findings: [Finding]

  /// Whether nothing checked failed.
  public var holds: Bool {
    !findings.contains { if case .fails = $0 { true } else { false } }
  }

  /// Whether everything the record could show was checked and holds: the match was fair
  /// and every round is in it. It is still only consistent: a record cannot show that
  /// its commitments came before its reveals (whoever writes one after the match can
  /// make them agree); a player's own record, compared with it, can.
  public var isProof: Bool {
    holds && !findings.contains { if case .unchecked = $0 { true } else { false } }
  }

  /// Checks `match`.
  public init(_ match: FinishedMatch) { findings = Self.findings(in: match) }

  private static func findings(in match: FinishedMatch) -> [Finding] {
    var findings: [Finding] = []
    let names = match.players.map { UntrustedText.escaped($0) }
    func seatName(_ seat: Seat) -> String { "\(names[seat.rawValue - 1]) (seat \(seat.rawValue))" }
    guard let rulesetID = Ruleset.ID(rawValue: match.ruleset) else {
      findings.append(
        .fails(
          "the ruleset \"\(UntrustedText.escaped(match.ruleset))\" is not one this release knows"))
      return findings
    }
    let ruleset = Ruleset.named(rulesetID)
    guard match.bestOf >= 1, match.bestOf <= 99, match.bestOf % 2 == 1 else {
      findings.append(.fails("best of \(match.bestOf) is not a match length (odd, 1 to 99)"))
      return findings
    }
    guard let rounds = match.rounds else {
      findings.append(
        .unchecked("the record has no rounds (the match was kept before rounds were)"))
      return findings
    }
    let winsNeeded = match.bestOf / 2 + 1
    var wins: [Seat: Int] = [.one: 0, .two: 0]
    var reveals = 0
    var roundsHold = true
    var reachedAt: Int?
    for (index, round) in rounds.enumerated() {
      let label = "round \(round.round)"
      if index > 0, round.round != rounds[index - 1].round + 1 {
        findings.append(
          .fails(
            "\(label) follows round \(rounds[index - 1].round): a round is missing or out of order")
        )
        roundsHold = false
      }
      guard round.weapons.count == 2 else {
        findings.append(.fails("\(label) has \(round.weapons.count) weapons; a round has two"))
        roundsHold = false
        continue
      }
      if let unknown = round.weapons.compactMap({ $0 }).first(where: { !ruleset.allows($0) }) {
        findings.append(
          .fails("\(label) has \(unknown.rawValue), which \(ruleset.id.rawValue) does not play"))
        roundsHold = false
        continue
      }
      if match.fair != round.isFair {
        findings.append(
          .fails(
            match.fair
              ? "\(label) of a fair match has no commitments"
              : "\(label) has commitments, but the match is not fair"))
        roundsHold = false
        continue
      }
      var expected: Seat?
      var rule: Ruleset.Rule?
      if match.fair {
        var revealed: [Weapon?] = [nil, nil]
        for seat in Seat.allCases {
          guard let weapon = round.weapon(of: seat) else { continue }
          guard let commitment = round.commitment(of: seat) else {
            findings.append(
              .fails("\(label): \(seatName(seat)) played \(weapon.rawValue) without a commitment"))
            roundsHold = false
            continue
          }
          guard let nonce = round.nonce(of: seat),
            Commitment.verify(
              commitment, room: match.room, round: round.round, seat: seat, weapon: weapon,
              nonce: nonce)
          else {
            findings.append(
              .fails(
                "\(label): \(seatName(seat))'s \(weapon.rawValue) and nonce do not match the "
                  + "commitment"))
            roundsHold = false
            continue
          }
          revealed[seat.rawValue - 1] = weapon
          reveals += 1
        }
        if revealed == [nil, nil] {
          // The commit stage's deadline: a seat that committed beats one that did not.
          let committed = Seat.allCases.map { round.commitment(of: $0) != nil }
          expected = committed[0] == committed[1] ? nil : committed[0] ? .one : .two
        } else {
          (expected, rule) = ruleset.decide(revealed[0], revealed[1])
        }
      } else {
        (expected, rule) = ruleset.decide(round.weapons[0], round.weapons[1])
      }
      if round.winner != expected {
        findings.append(
          .fails(
            "\(label) is given to \(round.winner.map(seatName) ?? "nobody (a draw)"); "
              + "its weapons give it to \(expected.map(seatName) ?? "nobody (a draw)")"))
        roundsHold = false
      } else if round.reason != rule?.sentence {
        let said =
          "\(label) says \"\(UntrustedText.escaped(round.reason ?? "nothing", limit: 64))\""
        findings.append(
          .fails(
            rule.map { "\(said); the rule is \"\($0.sentence)\"" }
              ?? "\(said), but no rule decided it (a seat played nothing, or it was a draw)"))
        roundsHold = false
      }
      if let winner = round.winner {
        wins[winner, default: 0] += 1
        if wins[winner]! == winsNeeded, reachedAt == nil { reachedAt = index }
      }
    }
    if roundsHold {
      findings.append(
        .holds(
          "\(rounds.count) round\(rounds.count == 1 ? "" : "s"): each winner follows the "
            + "\(ruleset.id.rawValue) rules"))
    }
    if match.fair {
      if roundsHold {
        findings.append(
          .holds(
            "\(reveals) reveal\(reveals == 1 ? "" : "s") match\(reveals == 1 ? "es" : "") their commitments"
          ))
      }
    } else {
      findings.append(
        .unchecked(
          "not a fair match: the weapons are the host's word (a fair match's commitments would prove them)"
        ))
    }
    guard match.hasEveryRound else {
      findings.append(
        .unchecked(
          "the record starts at round \(rounds.first?.round ?? 0) (a long match keeps its last "
            + "\(FinishedMatch.roundLimit) rounds): the scores cannot be counted"))
      return findings
    }
    let counted = [wins[.one]!, wins[.two]!]
    if counted == match.scores {
      findings.append(.holds("the scores \(counted[0])–\(counted[1]) count the rounds won"))
    } else {
      findings.append(
        .fails(
          "the scores say \(match.scores[0])–\(match.scores[1]); the rounds give "
            + "\(counted[0])–\(counted[1])"))
    }
    let champion = Seat.allCases.first { wins[$0]! >= winsNeeded }
    if let reachedAt, reachedAt != rounds.count - 1 {
      findings.append(
        .fails("rounds go on after round \(rounds[reachedAt].round), where the match was won"))
    }
    let winnerName = UntrustedText.escaped(match.winner)
    if let champion {
      if match.forfeit {
        findings.append(
          .fails("the match is called a forfeit, yet \(seatName(champion)) won it outright"))
      } else if match.winner == match.players[champion.rawValue - 1] {
        findings.append(.holds("\(winnerName) won \(winsNeeded) of best of \(match.bestOf)"))
      } else {
        findings.append(
          .fails(
            "the winner is said to be \(winnerName); the rounds give the match to \(seatName(champion))"
          ))
      }
    } else if match.forfeit {
      if match.players.contains(match.winner) {
        findings.append(
          .holds("\(winnerName) won by forfeit (the rounds left nobody with \(winsNeeded) wins)"))
      } else {
        findings.append(.fails("the winner \(winnerName) did not play this match"))
      }
    } else {
      findings.append(
        .fails("nobody won \(winsNeeded) rounds, and the match is not called a forfeit"))
    }
    return findings
  }
}
