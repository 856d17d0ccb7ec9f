import ClientFixtures
import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboTLS
import Testing

/// `roshambo bot --exec` as a person runs it: the real executable, its program, its exit
/// status and what it says, in a room, from the lobby.
@Suite("roshambo bot --exec, the command", .serialized)
struct BotExecCommandTests {
  /// A program that says each `start` on standard error with its process id (so one
  /// process for the run shows), and answers `rock`.
  let rockSayingStarts =
    #"while read -r line; do case "$line" in *'"type":"start"'*) echo "program $$ saw a start" >&2;;"#
    + #" *'"type":"pick"'*) echo rock;; esac; done"#

  @Test("the program exits mid-match: said with its status, the match given up, exit 70")
  func exits() async throws {
    try await withTestServer { server in
      let (alice, alicePipe) = try startRoshambo(
        ["bot", "--room", "den", "--name", "Alice", "--strategy", "random"], port: server.port)
      let (status, printed) = try await run(
        ["bot", "--room", "den", "--name", "Exec", "--exec", "read line; read line; exit 3"],
        port: server.port)
      #expect(status == 70, "\(printed)")
      #expect(
        printed.contains(
          "roshambo: bot Exec (read line; read line; exit 3) exited with status 3: gave up"
            + " match 1 against Alice."), "\(printed)")
      #expect(printed.contains("roshambo: the bot program exited with status 3; played 1 of 1"))
      // The opponent won by forfeit, and its run ended well.
      let (aliceStatus, alicePrinted) = await awaitExit(alice, alicePipe)
      #expect(aliceStatus == 0, "\(alicePrinted)")
      #expect(alicePrinted.contains("match 1: won against Exec"))
    }
  }

  @Test("a match given up in a room: the bot joins again and plays the next; exit 70 at the end")
  func givesUpThenPlaysOn() async throws {
    // Garbage in match 1, rock in match 2.
    let program =
      #"while read -r line; do case "$line" in *'"match":1,'*) answer=banana;;"#
      + #" *'"match":2,'*) answer=rock;; *'"type":"pick"'*) echo $answer;; esac; done"#
    try await withTestServer { server in
      let (alice, alicePipe) = try startRoshambo(
        ["bot", "--room", "den", "--name", "Alice", "--strategy", "random", "--matches", "2"],
        port: server.port)
      let (status, printed) = try await run(
        ["bot", "--room", "den", "--name", "Exec", "--matches", "2", "--exec", program],
        port: server.port)
      #expect(status == 70, "\(printed)")
      #expect(printed.contains(#"answered "banana" for round 1"#), "\(printed)")
      #expect(printed.contains("match 1: gave up against Alice"))
      #expect(printed.contains("match 2: "))
      #expect(printed.contains("2 matches: "))
      #expect(printed.contains("the bot program failed 1 of 2 matches (said above)"))
      let (aliceStatus, alicePrinted) = await awaitExit(alice, alicePipe)
      #expect(aliceStatus == 0, "\(alicePrinted)")
      #expect(alicePrinted.contains("2 matches: "))
    }
  }

  @Test("--lobby --exec takes challenges: one program, a start line per match, exit 0")
  func fromTheLobby() async throws {
    try await withTestServer { server in
      let (exec, execPipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Exec", "--matches", "2", "--exec", rockSayingStarts],
        port: server.port)
      try await waitForChallenger("Exec", port: server.port)
      let (bobStatus, bobPrinted) = try await run(
        ["bot", "--challenge", "Exec", "--name", "Bob", "--matches", "2", "--strategy", "random"],
        port: server.port)
      #expect(bobStatus == 0, "\(bobPrinted)")
      let (status, printed) = await awaitExit(exec, execPipe)
      #expect(status == 0, "\(printed)")
      #expect(printed.contains("2 matches: "))
      // The program's standard error came through: two starts, one process.
      let starts = printed.split(separator: "\n").filter { $0.hasSuffix("saw a start") }
      #expect(starts.count == 2, "\(printed)")
      #expect(Set(starts).count == 1, "\(starts)")
    }
  }

  /// The program exits after match 1's `end`: at once (the bot may not be back in the
  /// lobby yet), or once the test has seen the bot back there, waiting for a challenge.
  @Test(
    "a program that exits between matches, or while the bot waits in the lobby: no challenge is taken after, exit 70",
    arguments: [false, true])
  func exitsBetweenMatches(onceBackInTheLobby: Bool) async throws {
    let back = NSTemporaryDirectory() + "roshambo-exec-back-\(UUID().uuidString)"
    let waitForBack =
      onceBackInTheLobby ? #"while [ ! -e '"# + back + #"' ]; do sleep 0.05; done; "# : ""
    let program =
      #"while read -r line; do case "$line" in *'"type":"pick"'*) echo rock;;"#
      + #" *'"type":"end"'*) "# + waitForBack + #"exit 4;; esac; done"#
    try await withTestServer { server in
      let (exec, execPipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Exec", "--matches", "2", "--exec", program],
        port: server.port)
      try await waitForChallenger("Exec", port: server.port)
      let (bobStatus, bobPrinted) = try await run(
        ["bot", "--challenge", "Exec", "--name", "Bob", "--strategy", "random"], port: server.port)
      #expect(bobStatus == 0, "\(bobPrinted)")
      if onceBackInTheLobby {
        try await waitForChallenger("Exec", port: server.port)
        _ = FileManager.default.createFile(atPath: back, contents: nil)
      }
      defer { try? FileManager.default.removeItem(atPath: back) }
      let (status, printed) = await awaitExit(exec, execPipe)
      #expect(status == 70, "\(printed)")
      #expect(printed.contains("roshambo: bot Exec ("), "\(printed)")
      #expect(printed.contains(") exited with status 4."), "\(printed)")
      #expect(
        printed.contains("the bot program exited with status 4; played 1 of 2 matches."),
        "\(printed)")
    }
  }

  @Test(
    "--lobby --exec waiting for a challenge, stopped by SIGINT or SIGTERM: a summary, exit 1",
    arguments: [SIGINT, SIGTERM])
  func signalledInTheLobby(signal: Int32) async throws {
    try await withTestServer { server in
      let (exec, execPipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Exec", "--matches", "2", "--exec", rockSayingStarts],
        port: server.port)
      try await waitForChallenger("Exec", port: server.port)
      kill(exec.processIdentifier, signal)
      let (status, printed) = await awaitExit(exec, execPipe)
      #expect(status == 1, "\(printed)")
      #expect(printed.contains("0 matches: 0 won, 0 lost"), "\(printed)")
      #expect(printed.contains("stopped by a signal after 0 of 2 matches"), "\(printed)")
    }
  }

  @Test("--exec refuses --strategy, and the limits without --exec")
  func flags() async throws {
    let (both, said) = try await runRoshambo(
      ["bot", "--exec", "sh rock.sh", "--strategy", "cycle"], port: 1)
    #expect(both == 64)
    #expect(said.contains("--strategy and --exec are two ways to pick: pick one."))
    let (limits, saidLimits) = try await runRoshambo(["bot", "--pick-ms", "100"], port: 1)
    #expect(limits == 64)
    #expect(saidLimits.contains("--pick-ms and --bank-ms are limits for a program run by --exec."))
  }

  /// Runs `roshambo` with `arguments` to its end, waiting on a thread of its own.
  func run(_ arguments: [String], port: Int) async throws -> (Int32, String) {
    let (process, pipe) = try startRoshambo(arguments, port: port)
    return await awaitExit(process, pipe)
  }

  /// Returns once `name` is in the lobby taking challenges (seen by a follower of our
  /// own, which then leaves).
  func waitForChallenger(_ name: String, port: Int) async throws {
    let tls = try ClientTestCertificates.clientTLS()
    let connection = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
    var seen = false
    let deadline = ContinuousClock.now + .seconds(60)
    await LobbyFollower.follow(connection, name: "Watcher") { news, _ in
      if case .view(_, let view) = news {
        seen = view.people.contains {
          $0.name == name && $0.takesChallenges && $0.status == .idle
        }
      }
      return !seen && ContinuousClock.now < deadline
    }
    guard seen else { throw TimedOut(description: "\(name) never appeared in the lobby") }
  }
}
