import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Sysexits
import Testing

@testable import RoshamboLoad

/// What the `roshambo` commands' runs decide without a server: the exit status for each
/// way a run ends, what they say on standard error, and the text they print.
@Suite("Commands' exits and text")
struct CommandExitTests {
  struct Unknown: Error {}

  @Test("a lobby open elsewhere: the same name, following, taking challenges, free")
  func lobbyOpenElsewhere() {
    func view(_ people: [LobbyView.Person]) -> LobbyView {
      LobbyView(
        people: people, peopleCount: people.count, rooms: [], roomCount: 0, leaders: [],
        tournament: nil)
    }
    let open = LobbyView.Person(name: "Dana", status: .idle, room: nil, takesChallenges: true)
    #expect(ChallengeMatch.lobbyOpen(in: view([open]), name: "Dana"))
    // A look (taking no challenges) replaces nothing; a match is not a lobby screen.
    var look = open
    look.takesChallenges = false
    #expect(!ChallengeMatch.lobbyOpen(in: view([look]), name: "Dana"))
    var playing = open
    playing.status = .playing
    #expect(!ChallengeMatch.lobbyOpen(in: view([playing]), name: "Dana"))
    #expect(!ChallengeMatch.lobbyOpen(in: view([open]), name: "Erin"))
  }

  @Test("each way resolving the server stops has its own status")
  func resolutionFailures() {
    let statuses = [
      ResolutionFailure.Kind.usage, .noInput, .dataError, .untrusted, .unavailable, .declined,
    ].map { CommandExit(ResolutionFailure($0)).status }
    #expect(statuses == [64, 66, 65, 77, 69, 1])
  }

  @Test("what ended a conversation: a broken protocol is 76, the rest 1; an exit is kept")
  func afterAConversation() {
    let violation = ProtocolViolation(message: "a view out of order")
    let broken = CommandExit.reason(after: violation)
    #expect(broken.message == violation.description)
    #expect(broken.exit == CommandExit(ExitStatus.protocolViolation))
    let lost = CommandExit.reason(after: Unknown())
    #expect(lost.message == ConnectionFailure.ended(Unknown()))
    #expect(lost.exit == CommandExit(ExitStatus.failure))
    let decided = CommandExit.reason(after: CommandExit(ExitStatus.noInput))
    #expect(decided.message == nil)
    #expect(decided.exit == CommandExit(66))
  }

  @Test("following the lobby: leaving or a quiet close is a success, a refusal 1, cheating 76")
  func afterFollowing() {
    #expect(CommandExit.reason(afterFollowing: nil) == nil)
    #expect(CommandExit.reason(afterFollowing: .left) == nil)
    #expect(CommandExit.reason(afterFollowing: .closed(nil)) == nil)
    let refusal = ProtocolError(code: .noSuchMatch, message: "no such match")
    let refused = CommandExit.reason(afterFollowing: .refused(refusal))
    #expect(refused?.message == "no such match")
    #expect(refused?.exit == CommandExit(1))
    #expect(CommandExit.reason(afterFollowing: .cheated("a lie"))?.exit == CommandExit(76))
    #expect(CommandExit.reason(afterFollowing: .brokeProtocol("bad"))?.exit == CommandExit(76))
    let closed = CommandExit.reason(afterFollowing: .closed("draining"))
    #expect(closed?.message == "draining")
    #expect(closed?.exit == CommandExit(1))
    #expect(CommandExit.reason(afterFollowing: .gaveUp("gone"))?.exit == CommandExit(1))
    #expect(CommandExit.reason(afterFollowing: .couldNotConnect("no"))?.exit == CommandExit(1))
  }

  @Test("a lobby that ended before seating: a broken protocol 76, a server lost 69, else 1")
  func seatingEnded() {
    #expect(CommandExit(seatingEndedBy: .cheated("x")).status == 76)
    #expect(CommandExit(seatingEndedBy: .brokeProtocol("x")).status == 76)
    #expect(CommandExit(seatingEndedBy: .gaveUp("x")).status == 69)
    #expect(CommandExit(seatingEndedBy: .couldNotConnect("x")).status == 69)
    #expect(CommandExit(seatingEndedBy: .left).status == 1)
    #expect(CommandExit(seatingEndedBy: .closed(nil)).status == 1)
  }

  @Test("the screen's, the lobby evening's and the bot's endings as statuses")
  func endings() {
    #expect(ExitStatus.of(Screen.Ending.finished) == 0)
    #expect(ExitStatus.of(Screen.Ending.failed) == 1)
    #expect(ExitStatus.of(Screen.Ending.serverMisbehaved) == 76)
    #expect(ExitStatus.of(Screen.Ending.signalled(2)) == 130)
    #expect(ExitStatus.of(LobbyNavigation.Exit.quit) == 0)
    #expect(ExitStatus.of(LobbyNavigation.Exit.signalled(15)) == 143)
    #expect(ExitStatus.of(LobbyNavigation.Exit.refused) == 1)
    #expect(ExitStatus.of(LobbyNavigation.Exit.protocolViolation) == 76)
    #expect(ExitStatus.of(LobbyNavigation.Exit.unreachable) == 69)
    #expect(ExitStatus.of(BotPlay.Ending.finished) == 0)
    #expect(ExitStatus.of(BotPlay.Ending.failed(violated: false)) == 1)
    #expect(ExitStatus.of(BotPlay.Ending.failed(violated: true)) == 76)
    #expect(ExitStatus.of(BotPlay.Ending.programFailed) == 70)
    #expect(ExitStatus.of(BotPlay.Ending.unreachable) == 69)
    #expect(throws: Never.self) { try CommandExit.unlessSuccess(0) }
    #expect(throws: CommandExit(130)) { try CommandExit.unlessSuccess(130) }
  }

  @Test("standard error: the program's name first, each line made safe on its own, wrapped")
  func standardError() {
    #expect(StandardError.text(lines: ["no server"], width: nil) == "roshambo: no server\n")
    #expect(
      StandardError.text(lines: ["WARNING", "from\u{1B}[2Jthe server"], width: nil)
        == "roshambo: WARNING\nfrom^[[2Jthe server\n")
    #expect(
      StandardError.text(lines: ["the server at 10.0.0.1:7443 did not answer"], width: 24)
        == "roshambo: the server at\n10.0.0.1:7443 did not\nanswer\n")
  }

  @Test("an allocator's address: https only, the port 443 unless given, brackets for IPv6")
  func allocatorAddress() {
    func address(_ text: String) -> String? {
      FleetAllocator.address(text).map { "\($0.host) \($0.port)" }
    }
    #expect(address("https://alloc.example") == "alloc.example 443")
    #expect(address("https://alloc.example:8443/") == "alloc.example 8443")
    #expect(address("https://[fd00::1]:9443") == "fd00::1 9443")
    #expect(address("https://[fd00::1]") == "fd00::1 443")
    #expect(address("http://alloc.example") == nil)
    #expect(address("https://alloc.example/path") == nil)
    #expect(address("https://user@alloc.example") == nil)
    #expect(address("https://alloc.example:0") == nil)
    #expect(address("https://alloc.example:http") == nil)
    #expect(address("https://") == nil)
  }

  @Test("no server from the allocator: 1 for a room no server holds to watch, 69 otherwise")
  func allocatorExits() {
    let none = AllocatorFailure(.noServer, "no server")
    #expect(FleetAllocator.exit(after: none, for: .watch("final")).status == 1)
    #expect(FleetAllocator.exit(after: none, for: .quickMatch).status == 69)
    #expect(FleetAllocator.exit(after: none, for: .room("final")).status == 69)
    let refused = AllocatorFailure(.refused, "forbidden")
    #expect(FleetAllocator.exit(after: refused, for: .watch("final")).status == 69)
  }

  @Test("a record named: a number above 0 is the server's match, anything else a file")
  func recordSources() {
    #expect(RecordSource(argument: "12") == .server(id: 12))
    #expect(RecordSource(argument: "0") == .file("0"))
    #expect(RecordSource(argument: "-3") == .file("-3"))
    #expect(RecordSource(argument: "-") == .file("-"))
    #expect(RecordSource(argument: "") == nil)
    #expect(RecordSource.server(id: 7).title == "match 7")
    #expect(RecordSource.file("-").title == "standard input")
    #expect(RecordSource.file("/tmp/records/final\u{7}.json").title == "final^G.json")
    #expect(RecordSource.exit(readingFailed: "a.json", readable: true).status == 65)
    #expect(RecordSource.exit(readingFailed: "-", readable: false).status == 65)
    #expect(RecordSource.exit(readingFailed: "a.json", readable: false).status == 66)
  }

  @Test("a record replay refuses: one kept without rounds, one by rules it does not know")
  func cannotReplay() {
    let unknownRules = FinishedMatch(
      room: "duel", finishedAt: 3_000, ruleset: "chess\u{1B}[2J", bestOf: 3,
      players: ["eve", "bob"], scores: [2, 0], winner: "eve", forfeit: false, fair: false,
      rounds: [])
    #expect(
      RecordReplay.cannotReplay(unknownRules, title: "match 4")
        == "match 4 is played by rules this release does not know (chess^[[2J).")
    var noRounds = unknownRules
    noRounds.rounds = nil
    #expect(
      RecordReplay.cannotReplay(noRounds, title: "final.json")
        == "final.json has no rounds to replay (it was kept before rounds were).")
  }

  @Test("the lobby as a JSON line: its seq, then the lobby as the protocol writes it")
  func lobbyJSONLine() throws {
    let view = LobbyView(
      people: [LobbyView.Person(name: "ann", status: .idle, room: nil, takesChallenges: true)],
      peopleCount: 1, rooms: [], roomCount: 0, leaders: [])
    let line = LobbyPrinter.jsonLine(seq: 42, view: view)
    #expect(line.hasPrefix(#"{"seq":42,"lobby":{"#))
    #expect(line.hasSuffix("}}"))
    #expect(!line.contains("\n"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    let lobby = try #require(object["lobby"] as? [String: Any])
    let people = try #require(lobby["people"] as? [[String: Any]])
    #expect(people.map { $0["name"] as? String } == ["ann"])
  }

  @Test("load's report: connections, throughput, latency percentiles in ms, errors sorted")
  func loadReportLines() {
    let report = LoadReport(
      connections: 4, seconds: 2, picks: 300, latencies: [1_000, 2_000, 3_000, 4_500],
      errors: ["rate_limited": 2, "bad_move": 1], timeline: [])
    #expect(
      report.lines(rooms: 2) == [
        "connections: 4 (2 rooms)",
        "throughput: 150 picks/s (300 picks in 2.0 s)",
        "latency: p50 3.00 ms, p90 4.50 ms, p99 4.50 ms, max 4.50 ms",
        "errors: bad_move 1, rate_limited 2",
      ])
    let quiet = LoadReport(
      connections: 2, seconds: 1, picks: 0, latencies: [], errors: [:], timeline: [])
    #expect(quiet.lines(rooms: 1)[2] == "latency: p50 nan ms, p90 nan ms, p99 nan ms, max nan ms")
    #expect(quiet.lines(rooms: 1)[3] == "errors: none")
  }

  @Test("the arena: 8 pairings at once on its own server, 4 on another's, which it names")
  func arenaDefaults() {
    #expect(ArenaRun.defaultJobs(ownServer: true) == 8)
    #expect(ArenaRun.defaultJobs(ownServer: false) == 4)
    #expect(
      ArenaRun.serverDescription(ownServer: true, host: "127.0.0.1", port: 1)
        == "a server of its own")
    #expect(
      ArenaRun.serverDescription(ownServer: false, host: "fd00::1", port: 7443)
        == DiscoveredServer.address(host: "fd00::1", port: 7443))
  }
}
