// Fuzz target 7: a match record as `roshambo verify`, `roshambo replay FILE` and a
// server's `record` message hand it over: anyone can craft one.
//
// Invariants: a decoded record encodes to a document that decodes to the same value;
// its check, its text and its replay (every step, forward and back) run without a trap;
// a check that holds never coexists with a count of rounds won that differs from the
// scores of a record holding every round; no line of its text holds a control character.
import FuzzDriver
import RoshamboClient
import RoshamboGame
import RoshamboProtocol

fuzz { bytes in
  guard let match = try? MatchRecord.decode(bytes) else { return }
  let again = try? MatchRecord.decode(MatchRecord.encode(match))
  require(again == match, "a record does not survive being written back")
  let verification = RecordVerification(match)
  if verification.holds, match.hasEveryRound, let rounds = match.rounds {
    let won = Seat.allCases.map { seat in rounds.filter { $0.winner == seat }.count }
    require(won == match.scores, "a record that holds has scores \(match.scores), rounds \(won)")
  }
  let lines =
    MatchRecordText.heading(match) + MatchRecordText.rounds(match)
    + MatchRecordText.verification(verification)
  for line in lines {
    require(
      !line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
      "a line holds a control character: \(line.debugDescription)")
  }
  guard var replay = MatchReplay(match.sanitized()) else { return }
  for step in 0...replay.lastStep { replay.seek(to: step) }
  replay.stepBack()
  _ = ReplayScreen.lines(for: replay)
}
