import Foundation
import ProcessFixtures
import RoshamboServer
import Testing

/// Real `roshambo bot` processes playing on and on against a server with the default
/// rate limit (20 frames a second, 40 at once): unpaced, two built-in bots stopped after
/// 9 or 10 matches and a program bot after about 40 rounds, each waiting for ever for a
/// pick the server had dropped.
///
/// The server's rate bounds how fast this can go (about 4 matches or 16 rounds a second;
/// docs/PERFORMANCE.md), so an ordinary run plays three to four times past where the
/// stall came; `ROSHAMBO_PACING_LONG=1` plays 1,000 matches and 1,000 rounds (about four
/// minutes and one).
@Suite("Pacing against a real server's rate limit", .serialized)
struct PacingProcessTests {
  static let long = ProcessInfo.processInfo.environment["ROSHAMBO_PACING_LONG"] == "1"
  static let matches = long ? 1_000 : 30
  static let rounds = long ? 1_000 : 120

  /// A program that plays the ruleset's weapons in order from rock, as `--strategy cycle`
  /// does: against it every round is a draw, so the match never ends.
  static let cycleProgram =
    #"while read -r line; do case "$line" in *'"type":"pick"'*) r=${line#*\"round\":}; r=${r%%,*};"#
    + #" case $(( (r - 1) % 3 )) in 0) echo rock;; 1) echo paper;; *) echo scissors;; esac;;"#
    + #" esac; done"#

  @Test("two built-in bots play their matches in one room and both exit 0")
  func twoBots() async throws {
    try await withTestServer { server in
      let bots = try ["Alpha", "Beta"].map { name in
        try startRoshambo(
          [
            "bot", "--room", "pace", "--name", name, "--strategy", "random", "--matches",
            String(Self.matches),
          ], port: server.port)
      }
      // Both read at once: a bot whose output nobody reads stops when the pipe is full,
      // and its opponent waits for it. A bound on a stall, not a timing: the rate allows
      // about 4 matches a second.
      let seconds = Double(Self.matches) + 120
      async let alpha = awaitExit(bots[0].0, bots[0].1, seconds: seconds)
      async let beta = awaitExit(bots[1].0, bots[1].1, seconds: seconds)
      for (status, printed) in await [alpha, beta] {
        #expect(status == 0, "\(printed.suffix(600))")
        #expect(printed.contains("\(Self.matches) matches: "), "\(printed.suffix(600))")
        #expect(!printed.contains("gave up sending"))
      }
    }
  }

  @Test("a program bot and a cycle bot draw round after round without a stall")
  func programAgainstCycle() async throws {
    try await withTestServer { server in
      let (cycle, cyclePipe) = try startRoshambo(
        ["bot", "--room", "draws", "--name", "Cycle", "--strategy", "cycle"], port: server.port)
      let (program, programPipe) = try startRoshambo(
        ["bot", "--room", "draws", "--name", "Exec", "--exec", Self.cycleProgram],
        port: server.port)
      let seconds = Double(Self.rounds) / 4 + 120
      // The cycle bot's output is read meanwhile (a full pipe would stop it).
      async let cycleEnded = awaitExit(cycle, cyclePipe, seconds: seconds)
      let mark = "round \(Self.rounds): "
      let printed = await readUntil(
        programPipe, contains: mark, orEndOf: program, seconds: seconds)
      #expect(printed.contains(mark), "\(printed.suffix(600))")
      let weapon = ["rock", "paper", "scissors"][(Self.rounds - 1) % 3]
      #expect(printed.contains("round \(Self.rounds): \(weapon) vs \(weapon)"))
      #expect(!printed.contains("gave up sending"))
      program.terminate()
      cycle.terminate()
      _ = await awaitExit(program, programPipe)
      #expect(!(await cycleEnded).1.contains("gave up sending"))
    }
  }
}

/// Reads what `process` writes to `pipe` until it contains `mark` or the process's output
/// ends; the process is ended if that takes more than `seconds` (a bound on a stall).
/// Returns what was read. The reading happens on a thread of its own.
func readUntil(_ pipe: Pipe, contains mark: String, orEndOf process: Process, seconds: Double)
  async -> String
{
  await blocking {
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
    defer { watchdog.cancel() }
    var printed = ""
    while !printed.contains(mark) {
      let data = pipe.fileHandleForReading.availableData
      if data.isEmpty { break }
      printed += String(decoding: data, as: UTF8.self)
    }
    return printed
  }
}
