import Foundation
import RoshamboGame

/// A match record as a person reads it: a heading, a line per round, and what a check
/// of it found. `roshambo-server history ID`, `roshambo verify` and `roshambo replay
/// --verify` print these.
///
/// Invariant: every name, room and reason is passed through ``UntrustedText`` first, so
/// no line from a record can draw on a terminal or pass for another line.
public enum MatchRecordText {
  /// "Match 42 in duel-3, finished 2026-11-25 18:01:02 +01:00: "ann" 2–1 "bob", won by
  /// "ann"", then the terms; the time is `timeZone`'s (the reader's own by default).
  public static func heading(_ match: FinishedMatch, timeZone: TimeZone = .current) -> [String] {
    let names = match.players.map { "\"\(UntrustedText.escaped($0))\"" }
    let when = localTime(match.finishedAt, timeZone: timeZone)
    let number = match.id.map { "Match \($0)" } ?? "A match (a player's own record)"
    return [
      "\(number) in \(UntrustedText.escaped(match.room)), finished \(when): "
        + "\(names[0]) \(match.scores[0])–\(match.scores[1]) \(names[1]), won by "
        + "\"\(UntrustedText.escaped(match.winner))\"\(match.forfeit ? " by forfeit" : "")",
      "\(UntrustedText.escaped(match.ruleset)), best of \(match.bestOf)"
        + (match.fair ? ", fair (every round committed, then revealed)" : ""),
    ]
  }

  /// One line per round: "round 2  rock – paper  "bob"  paper covers rock".
  public static func rounds(_ match: FinishedMatch) -> [String] {
    guard let rounds = match.rounds else {
      return ["(no rounds: this match was kept before the server kept rounds)"]
    }
    if rounds.isEmpty { return ["(no round was played)"] }
    var lines: [String] = []
    if let first = rounds.first, first.round > 1 {
      lines.append(
        "(rounds 1–\(first.round - 1) are not kept: a long match keeps its last \(FinishedMatch.roundLimit))"
      )
    }
    for round in rounds {
      let weapons = Seat.allCases.map { seat -> String in
        if let weapon = round.weapon(of: seat) { return weapon.rawValue }
        return round.commitment(of: seat) != nil ? "(no reveal)" : "(none)"
      }
      let winner =
        round.winner.map { "\"\(UntrustedText.escaped(match.players[$0.rawValue - 1]))\"" }
        ?? "draw"
      let reason = round.reason.map { "  " + UntrustedText.escaped($0, limit: 64) } ?? ""
      let label = "round \(round.round)".padding(toLength: 10, withPad: " ", startingAt: 0)
      lines.append("\(label)\(weapons[0]) – \(weapons[1])  \(winner)\(reason)")
    }
    return lines
  }

  /// The check's findings, one per line (✓ holds, ✗ fails, – not checked), then the
  /// verdict. `agreedWithAnother`: another record of the match agreed with this one on
  /// every round (`roshambo verify --compare`), so the verdict leaves out what a record
  /// alone cannot show.
  public static func verification(
    _ verification: RecordVerification, agreedWithAnother: Bool = false
  ) -> [String] {
    var lines = verification.findings.map { finding -> String in
      switch finding {
      case .holds(let text): "  ✓ " + text
      case .fails(let text): "  ✗ " + text
      case .unchecked(let text): "  – " + text
      }
    }
    let failures = verification.findings.filter { if case .fails = $0 { true } else { false } }
    if !failures.isEmpty {
      lines.append(
        "Refused: this record does not hold (\(failures.count) problem"
          + "\(failures.count == 1 ? "" : "s")).")
    } else if verification.isProof, agreedWithAnother {
      lines.append(
        "Consistent: every reveal matches its commitment and the result follows from the "
          + "rounds.")
    } else if verification.isProof {
      // A record cannot show when its commitments were made: whoever writes one after
      // the match can make them agree. Only the player's own record can be trusted.
      lines.append(
        "Consistent: every reveal matches its commitment and the result follows from the "
          + "rounds. A record alone cannot show that the weapons were committed before they "
          + "were revealed (one written after the match can agree as well); only a record "
          + "your own client saved (roshambo play --save-record), compared with --compare, "
          + "shows that this is the match you played.")
    } else {
      lines.append(
        "Consistent, not proven: what the record holds agrees, but see the lines marked –.")
    }
    return lines
  }

  /// "2026-11-25 18:01:02 +01:00": a moment (ms since 1970) at `timeZone`'s local time,
  /// with its offset from UTC.
  public static func localTime(_ millis: Int64, timeZone: TimeZone = .current) -> String {
    let format = DateFormatter()
    format.locale = Locale(identifier: "en_US_POSIX")
    format.timeZone = timeZone
    format.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
    return format.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
  }
}
