import RoshamboGame
import RoshamboProtocol

/// What the host's terminal is told as the party goes, in plain sentences ("alice
/// entered the tournament (3 of 8)"): the key=value log is for `--log-level`.
///
/// Invariant: pure; every name in a sentence is made printable first
/// (``UntrustedText/printable(_:)``), so none can draw on the host's terminal.
public enum HostNews {
  /// The sentence for a change of the tournament, now `tournament`; `players`: entries
  /// close at that many (0: by the timer only); `pauseSeconds`: between rounds.
  public static func tournament(
    _ event: LobbyEvent.TournamentEvent, _ tournament: Tournament?, players: Int,
    pauseSeconds: Int
  ) -> String? {
    let name = UntrustedText.printable
    let count = tournament?.entrants.count ?? 0
    switch event {
    case .opened:
      let kind = tournament?.kind.rawValue ?? "new"
      return "The \(kind) tournament is open: players press t in the lobby to enter."
    case .entered(let who):
      let of = players > 0 ? "\(count) of \(players)" : "\(count) entered"
      return "\(name(who)) entered the tournament (\(of))"
    case .withdrew(let who) where tournament?.phase == .running:
      return "\(name(who)) withdrew from the tournament: their opponents win their matches"
    case .withdrew(let who):
      return "\(name(who)) left the tournament (\(count) entered)"
    case .roundPaired(let round):
      let pairings = tournament?.rounds.last ?? []
      let matches = pairings.filter { !$0.isBye }.map {
        $0.players.map(name).joined(separator: " vs ")
      }
      let byes = pairings.filter(\.isBye).map { "\(name($0.players[0])) has a bye" }
      let of = tournament.map { " of \($0.roundCount)" } ?? ""
      let list = [matches.joined(separator: ", ")] + byes
      return "round \(round)\(of) paired: "
        + list.filter { !$0.isEmpty }.joined(separator: "; ")
    case .roundOver(let round):
      return "round \(round) over: round \(round + 1) is paired in \(pauseSeconds) s"
    case .finished(let champion):
      return "\(name(champion)) is the champion"
    }
  }

  /// "alice challenged bob: the match is on in duel-1".
  public static func challengeAccepted(from: String, to: String, room: String) -> String {
    let name = UntrustedText.printable
    return "\(name(to)) took \(name(from))'s challenge: the match is on in \(name(room))"
  }

  /// "bob lost the connection in duel-1: the seat waits 30 s for them".
  public static func connectionLost(_ who: String, room: String, graceSeconds: Int64) -> String {
    let name = UntrustedText.printable
    return "\(name(who)) lost the connection in \(name(room)): the seat waits \(graceSeconds) s "
      + "for them"
  }

  /// "bob is back in duel-1".
  public static func back(_ who: String, room: String) -> String {
    let name = UntrustedText.printable
    return "\(name(who)) is back in \(name(room))"
  }

  /// "bob was not back in duel-1 within 30 s: the seat is given up".
  public static func graceRanOut(_ who: String, room: String, graceSeconds: Int64) -> String {
    let name = UntrustedText.printable
    return "\(name(who)) was not back in \(name(room)) within \(graceSeconds) s: the seat is "
      + "given up"
  }

  /// "bob was away more than 30 s: their tournament entry is withdrawn".
  public static func entryWithdrawn(_ who: String, graceSeconds: Int64) -> String {
    "\(UntrustedText.printable(who)) was away more than \(graceSeconds) s: their tournament "
      + "entry is withdrawn"
  }

  /// "someone was refused the name alice: another player holds it" (or "…: someone here is
  /// called that").
  public static func nameRefused(_ wanted: String, heldByAnother: Bool) -> String {
    "someone was refused the name \(UntrustedText.printable(wanted)): "
      + (heldByAnother ? "another player holds it" : "someone here is called that")
  }

  /// "alice beat bob 2–1 in duel-1": the winner's score first; by forfeit, how it stood
  /// when the match was given up ("alice beat bob by forfeit in duel-1, with bob ahead
  /// 1–0", "…, at 0–0").
  public static func match(_ match: FinishedMatch) -> String? {
    guard match.players.count == 2, match.scores.count == 2,
      let winner = match.players.firstIndex(of: match.winner)
    else { return nil }
    let name = UntrustedText.printable
    let (won, lost) = (match.scores[winner], match.scores[1 - winner])
    let (winnerName, loserName) = (name(match.players[winner]), name(match.players[1 - winner]))
    guard match.forfeit else {
      return "\(winnerName) beat \(loserName) \(won)–\(lost) in \(name(match.room))"
    }
    let standing =
      won == lost
      ? "at \(won)–\(lost)"
      : won > lost
        ? "with \(winnerName) ahead \(won)–\(lost)" : "with \(loserName) ahead \(lost)–\(won)"
    return "\(winnerName) beat \(loserName) by forfeit in \(name(match.room)), \(standing)"
  }
}
