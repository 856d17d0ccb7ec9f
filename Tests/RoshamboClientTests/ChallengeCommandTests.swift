import ClientFixtures
import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import Testing

/// Challenges through the real `roshambo` processes: a bot waiting in the lobby takes a
/// bot's challenges and both play them; a challenge to nobody, or one declined, is said.
@Suite("Challenges from the command line", .serialized)
struct ChallengeCommandTests {
  /// Waits until `name` is in the lobby and takes challenges (seen by a follower of our
  /// own, which then leaves).
  func waitForPerson(_ name: String, port: Int) async throws {
    let tls = try ClientTestCertificates.clientTLS()
    let connection = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
    var seen = false
    let deadline = ContinuousClock.now + .seconds(10)
    await LobbyFollower.follow(connection, name: "Watcher") { news, _ in
      if case .view(_, let view) = news {
        seen = view.people.contains { $0.name == name && $0.takesChallenges }
      }
      return !seen && ContinuousClock.now < deadline
    }
    guard seen else { throw TimedOut(description: "\(name) never appeared in the lobby") }
  }

  /// Waits for `process` to end (at most `seconds`), and returns its status and output.
  /// The waiting blocks a thread of its own, never one of the tasks' threads, which the
  /// other tests (and this one's followers) need meanwhile.
  func finish(_ process: Process, _ pipe: Pipe, seconds: Double = 30) async -> (Int32, String) {
    await awaitExit(process, pipe, seconds: seconds)
  }

  /// Runs `roshambo` with `arguments` to its end (see ``finish(_:_:seconds:)``).
  func run(_ arguments: [String], port: Int) async throws -> (status: Int32, printed: String) {
    let (process, pipe) = try startRoshambo(arguments, port: port)
    return await finish(process, pipe)
  }

  /// Carol follows the lobby, takes challenges, and declines the first one; the task
  /// ends (`.stopped`) once she has. Returns when the lobby lists her.
  func carolDeclines(port: Int) async throws -> Task<LobbyFollower.Outcome, Never> {
    let tls = try ClientTestCertificates.clientTLS()
    let carol = try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls)
    let declining = Task {
      await LobbyFollower.follow(carol, name: "Carol", takesChallenges: true) { news, driver in
        guard case .challenge(let notice) = news else { return true }
        if notice.status == .pending {
          await driver.command(.decline(notice.id, forTheEvening: false))
        }
        return notice.status == .pending
      }
    }
    try await waitForPerson("Carol", port: port)
    return declining
  }

  @Test("a bot with --lobby takes two challenges from a bot with --challenge; both play both")
  func botsFromTheLobby() async throws {
    try await withTestServer { server in
      let (alice, pipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Alice", "--matches", "2"], port: server.port)
      try await waitForPerson("Alice", port: server.port)
      let bob = try await run(
        ["bot", "--challenge", "Alice", "--name", "Bob", "--matches", "2", "--strategy", "cycle"],
        port: server.port)
      #expect(bob.status == 0, "\(bob.printed)")
      #expect(bob.printed.components(separatedBy: "challenged Alice: best of 3").count == 3)
      #expect(bob.printed.contains("match 2: "))
      #expect(bob.printed.hasSuffix("drawn\n"), "\(bob.printed)")
      let (status, printed) = await finish(alice, pipe)
      #expect(status == 0, "\(printed)")
      #expect(printed.components(separatedBy: "accepting Bob's challenge").count == 3)
      #expect(printed.contains("2 matches: "))
    }
  }

  @Test("a challenge picks its rules: lizardSpock on a classic server, played as such")
  func challengeWithItsRules() async throws {
    try await withTestServer { server in
      let (alice, pipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Alice", "--matches", "1"], port: server.port)
      try await waitForPerson("Alice", port: server.port)
      let bob = try await run(
        [
          "bot", "--challenge", "Alice", "--name", "Bob", "--matches", "1", "--ruleset",
          "lizardSpock", "--strategy", "cycle",
        ], port: server.port)
      #expect(bob.status == 0, "\(bob.printed)")
      #expect(bob.printed.contains("challenged Alice: best of 3, lizardSpock"), "\(bob.printed)")
      let (status, printed) = await finish(alice, pipe)
      #expect(status == 0, "\(printed)")
      #expect(
        printed.contains("accepting Bob's challenge: best of 3, lizardSpock"), "\(printed)")
    }
  }

  @Test("--ruleset is for --challenge")
  func rulesetNeedsAChallenge() async throws {
    let (status, printed) = try await runRoshambo(["bot", "--ruleset", "lizardSpock"], port: 1)
    #expect(status == 64)
    #expect(printed.contains("--ruleset is for --challenge"), "\(printed)")
  }

  @Test("a challenge to someone never in the lobby, or one declined, is said and exits 1")
  func refusedAndDeclined() async throws {
    try await withTestServer { server in
      let nobody = try await run(
        ["bot", "--challenge", "Nobody", "--name", "Bob", "--wait", "1"], port: server.port)
      #expect(nobody.status == 1)
      #expect(
        nobody.printed.contains("Nobody was not in the lobby free to take a challenge within 1"),
        "\(nobody.printed)")

      let declining = try await carolDeclines(port: server.port)
      let bob = try await run(["challenge", "Carol", "--name", "Bob"], port: server.port)
      #expect(bob.status == 1)
      #expect(bob.printed.contains("the challenge to Carol ended: declined"), "\(bob.printed)")
      #expect(!bob.printed.contains("Your lobby is open"), "\(bob.printed)")
      #expect(await declining.value == .stopped)
    }
  }

  @Test("a challenge while the same person's lobby is open elsewhere says it closes it there")
  func lobbyOpenElsewhere() async throws {
    try await withTestServer { server in
      let declining = try await carolDeclines(port: server.port)
      // Dana's lobby (a bot waiting for challenges, with this machine's identity) is open.
      let (lobby, lobbyPipe) = try startRoshambo(
        ["bot", "--lobby", "--name", "Dana", "--matches", "1"], port: server.port)
      try await waitForPerson("Dana", port: server.port)
      // With no terminal to ask on, the challenge goes on and says what it does.
      let dana = try await run(["challenge", "Carol", "--name", "Dana"], port: server.port)
      #expect(
        dana.printed.contains(
          "Your lobby is open in another terminal; challenging from here closes it there."),
        "\(dana.printed)")
      #expect(dana.printed.contains("the challenge to Carol ended: declined"), "\(dana.printed)")
      #expect(await declining.value == .stopped)
      let (status, printed) = await finish(lobby, lobbyPipe)
      #expect(status != 0, "the replaced lobby ended: \(printed)")
    }
  }
}
