import Foundation
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import Testing

@testable import RoshamboHub
@testable import RoshamboJournal

/// What the host reads: the party's news in sentences, the history in local times and
/// "by forfeit".
@Suite("The host's words")
struct HostWordsTests {
  @Test("the tournament and the matches in plain sentences")
  func news() {
    var tournament = Tournament(kind: .swiss, settings: .init(bestOf: 1))
    #expect(
      HostNews.tournament(.opened, tournament, players: 8, pauseSeconds: 3)
        == "The swiss tournament is open: players press t in the lobby to enter.")
    tournament.entrants = ["alice", "bob", "carol"]
    #expect(
      HostNews.tournament(.entered("carol"), tournament, players: 8, pauseSeconds: 3)
        == "carol entered the tournament (3 of 8)")
    #expect(
      HostNews.tournament(.entered("carol"), tournament, players: 0, pauseSeconds: 3)
        == "carol entered the tournament (3 entered)")
    #expect(
      HostNews.tournament(.withdrew("dave"), tournament, players: 0, pauseSeconds: 3)
        == "dave left the tournament (3 entered)")
    tournament.phase = .running
    tournament.rounds = [
      [
        .init(players: ["alice", "bob"], room: "cup-1-1-1"), .init(players: ["carol"], room: nil),
      ]
    ]
    #expect(
      HostNews.tournament(.roundPaired(1), tournament, players: 0, pauseSeconds: 3)
        == "round 1 of 2 paired: alice vs bob; carol has a bye")
    #expect(
      HostNews.tournament(.roundOver(1), tournament, players: 0, pauseSeconds: 3)
        == "round 1 over: round 2 is paired in 3 s")
    #expect(
      HostNews.tournament(.finished(champion: "bob"), tournament, players: 0, pauseSeconds: 3)
        == "bob is the champion")
    var match = FinishedMatch(
      room: "duel-1", finishedAt: 0, ruleset: "classic", bestOf: 3, players: ["alice", "bob"],
      scores: [1, 2], winner: "bob", forfeit: false, fair: false)
    #expect(HostNews.match(match) == "bob beat alice 2–1 in duel-1")
    match.forfeit = true
    match.scores = [1, 0]
    #expect(HostNews.match(match) == "bob beat alice by forfeit in duel-1, with alice ahead 1–0")
    match.scores = [0, 0]
    #expect(HostNews.match(match) == "bob beat alice by forfeit in duel-1, at 0–0")
    match.scores = [0, 1]
    #expect(HostNews.match(match) == "bob beat alice by forfeit in duel-1, with bob ahead 1–0")
    // A name cannot draw on the host's terminal.
    tournament.entrants = ["Mal\u{1B}]0;x\u{07}"]
    #expect(
      HostNews.tournament(.entered("Mal\u{1B}]0;x\u{07}"), tournament, players: 0, pauseSeconds: 3)?
        .contains("\u{1B}") == false)
  }

  @Test("history prints local times and says by forfeit")
  func history() throws {
    let match = FinishedMatch(
      id: 42, room: "duel-1", finishedAt: 1_795_626_062_000, ruleset: "classic", bestOf: 3,
      players: ["ann", "bob"], scores: [1, 0], winner: "ann", forfeit: true, fair: false)
    let paris = try #require(TimeZone(identifier: "Europe/Paris"))
    let text = MatchHistory.report(matches: [match], board: [], timeZone: paris)
    #expect(text.contains("#42  2026-11-25 18:01:02 +01:00  "), "\(text)")
    #expect(text.contains("winner: \"ann\" by forfeit"), "\(text)")
    let heading = MatchRecordText.heading(match, timeZone: paris)[0]
    #expect(heading.contains("finished 2026-11-25 18:01:02 +01:00"), "\(heading)")
    #expect(heading.hasSuffix("won by \"ann\" by forfeit"), "\(heading)")
  }
}
