import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import RoshamboTLS
import Testing

/// What a real program did, and what became of its match and of another one beside it.
@MainActor
struct ProgramMatch {
  var bot: Bot
  var opponent: Bot
  var said: [String]
  var bystanders: [Bot.Tally]
}

/// Plays `command` (through `roshambo`'s own `BotProgram`) against a random bot in a
/// room of a real server, while two built-in bots play a match in another room; returns
/// once every session has ended (no timer: the sessions end when their matches do).
@MainActor
func playProgram(
  _ command: String, limits: BotProgramSession.Limits = .init(), matches: Int = 1,
  directory: String = repositoryRoot
) async throws -> ProgramMatch {
  try await withTestServer { server in
    let tls = try ClientTestCertificates.clientTLS()
    final class Lines {
      var lines: [String] = []
    }
    let said = Lines()
    let program = BotProgram(
      command: "cd '\(directory)' && " + command, name: "exec", limits: limits
    ) { said.lines.append($0) }
    try program.start()
    @MainActor func seat(_ name: String, _ picks: PickSource, room: String, matches: Int)
      async throws -> (
        Bot, Task<Void, Never>
      )
    {
      let connection = try await ServerConnection.connect(
        host: "127.0.0.1", port: server.port, tls: tls)
      let session = ClientSession(connection: connection)
      let bot = Bot(session: session, picks: picks, matches: matches) { _ in }
      bot.start()
      session.join(name: name, room: room)
      return (bot, Task { @MainActor in _ = await session.run() })
    }
    let (bot, run) = try await seat("exec", .program(program), room: "exec", matches: matches)
    let (opponent, against) = try await seat(
      "Alice", .strategy(.random), room: "exec", matches: matches)
    let bystanders = [
      try await seat("left", .strategy(.random), room: "beside", matches: 2),
      try await seat("right", .strategy(.frequency), room: "beside", matches: 2),
    ]
    await run.value
    // The opponent's last match ends with the program's (given up or played).
    await against.value
    for (_, task) in bystanders { await task.value }
    await program.finish()
    return ProgramMatch(
      bot: bot, opponent: opponent, said: said.lines, bystanders: bystanders.map { $0.0.tally })
  }
}

/// A shell command that answers every `pick` line with `answer` (a shell word), after
/// running `before`.
func shellBot(answer: String, before: String = "") -> String {
  #"while read -r line; do case "$line" in *'"type":"pick"'*) \#(before) echo \#(answer);; esac; done"#
}

// A bot that waits for a pick never asked for would wait for ever: the limit makes that a
// failure.
@Suite(
  "Bot programs: real processes against a real server", .serialized, .timeLimit(.minutes(5)))
@MainActor
struct BotProgramProcessTests {
  @Test("a program that answers plays its matches, one process for all of them")
  func plays() async throws {
    let played = try await playProgram(shellBot(answer: "rock"), matches: 1)
    #expect(played.bot.tally.matches == 1)
    #expect(!played.bot.gaveUp)
    #expect(played.said.isEmpty, "\(played.said)")
    #expect(played.opponent.tally.matches == 1)
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("late past its pick time and bank: the match is given up, the opponent wins")
  func late() async throws {
    let played = try await playProgram(
      shellBot(answer: "rock", before: "sleep 1;"),
      limits: .init(pick: .milliseconds(100), bank: .milliseconds(150)))
    #expect(played.bot.gaveUp)
    #expect(played.bot.tally.matchesLost == 1)
    #expect(played.opponent.tally.matchesWon == 1)
    #expect(
      played.said.first?.hasPrefix(
        "bot exec (cd '\(repositoryRoot)' && while read -r line;") == true)
    #expect(
      played.said.contains {
        $0.hasSuffix(
          "did not pick round 1 in time (0.10 s for the pick and 0.15 s left in its bank):"
            + " gave up match 1 against Alice.")
      }, "\(played.said)")
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("garbage for a pick: the match is given up, what it sent is said")
  func garbage() async throws {
    let played = try await playProgram(shellBot(answer: "banana"))
    #expect(played.bot.gaveUp)
    #expect(played.opponent.tally.matchesWon == 1)
    #expect(
      played.said.first?.hasSuffix(
        #"answered "banana" for round 1, which is not a pick (rock, paper, scissors): gave up"#
          + " match 1 against Alice.") == true, "\(played.said)")
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("answering twice: the second line is said and discarded, the match is played")
  func twice() async throws {
    let played = try await playProgram(shellBot(answer: "rock; echo paper"))
    #expect(!played.bot.gaveUp)
    #expect(played.bot.tally.matches == 1)
    #expect(played.opponent.tally.matches == 1)
    // Said in whatever order the lines meet the match: a `pick` line already on its way
    // when the match ended has its `rock` said and discarded too (CI saw that first).
    #expect(
      played.said.contains {
        $0.hasSuffix(#"wrote "paper" when no pick was asked for: discarded."#)
      },
      "\(played.said)")
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("megabytes of output: the program is stopped, the match given up")
  func megabytes() async throws {
    let played = try await playProgram(
      shellBot(answer: "rock", before: "head -c 3000000 /dev/zero;"))
    #expect(played.bot.gaveUp)
    #expect(played.bot.programGone?.hasPrefix("was stopped: it wrote more than 64 KiB") == true)
    #expect(played.opponent.tally.matchesWon == 1)
    #expect(
      played.said.contains {
        $0.hasSuffix(
          "was stopped: it wrote more than 64 KiB without being asked for a pick: gave up match 1"
            + " against Alice.")
      }, "\(played.said)")
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("a program that exits mid-match: its status is said, the match given up")
  func exits() async throws {
    let played = try await playProgram("read line; read line; exit 3")
    #expect(played.bot.gaveUp)
    #expect(played.bot.programGone == "exited with status 3")
    #expect(played.opponent.tally.matchesWon == 1)
    #expect(
      played.said.first?.hasSuffix("exited with status 3: gave up match 1 against Alice.") == true,
      "\(played.said)")
    #expect(played.bystanders.map(\.matches) == [2, 2])
  }

  @Test("its standard error is passed through, not read as answers")
  func standardError() async throws {
    let played = try await playProgram(shellBot(answer: "rock", before: "echo thinking >&2;"))
    #expect(!played.bot.gaveUp)
    #expect(played.said.isEmpty, "\(played.said)")
  }

  // MARK: - The examples in scripts/bots, and the bot written from docs/BOTS.md alone

  @Test(
    "each example bot plays two matches as one process",
    arguments: [
      "python3 scripts/bots/frequency.py", "sh scripts/bots/cycle.sh",
      "sh scripts/bots/rock.sh", "python3 scripts/bots/docbot.py",
    ])
  func examples(_ command: String) async throws {
    let played = try await playProgram(command, matches: 2)
    #expect(played.bot.tally.matches == 2, "\(played.said)")
    #expect(!played.bot.gaveUp)
    #expect(played.said.isEmpty, "\(played.said)")
  }

  @Test("the C example compiles with cc and plays")
  func cExample() async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") else { return }
    let binary = NSTemporaryDirectory() + "beat-last-\(getpid())"
    let status = try await blocking {
      let cc = Process()
      cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
      cc.arguments = [
        "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", binary,
        repositoryRoot + "/scripts/bots/beat-last.c",
      ]
      try cc.run()
      cc.waitUntilExit()
      return cc.terminationStatus
    }
    #expect(status == 0)
    let played = try await playProgram("'\(binary)'", matches: 2)
    #expect(played.bot.tally.matches == 2, "\(played.said)")
    #expect(played.said.isEmpty, "\(played.said)")
  }
}
