import BenchmarkSupport
import Foundation
import NIOCore
import RoshamboArena
import RoshamboClient
import RoshamboLoad
import RoshamboServer
import RoshamboTLS

#if canImport(Glibc)
  import Glibc
#endif

/// This process's CPU time so far, user and system, all threads, µs.
func cpuMicrosOfThisProcess() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return (Int(usage.ru_utime.tv_sec) + Int(usage.ru_stime.tv_sec)) * 1_000_000
    + Int(usage.ru_utime.tv_usec) + Int(usage.ru_stime.tv_usec)
}

/// One run of section 10: two bots in one room of a server child, or the arena on a
/// server of its own; what it played, how long it took and the CPU it cost.
///
/// Invariant: `serverMicros` and `botMicros` are both set or both nil (nil when server
/// and bots share one process, as in the arena), and `totalMicros` is their sum when set.
struct BotsRun {
  var label: String
  /// Matches played (nil for the arena, which counts rounds).
  var matches: Int?
  var rounds: Int
  var seconds: Double
  var serverMicros: Int?
  var botMicros: Int?
  var totalMicros: Int

  var roundsPerSecond: Double { Double(rounds) / seconds }
  /// CPU per round, µs: `micros` over the rounds played.
  func perRound(_ micros: Int?) -> Double? { micros.map { Double($0) / Double(rounds) } }
}

/// `server-bench bot --port P --ca FILE --identity FILE --name N --strategy S --matches M
/// --room R`: one `roshambo bot --host 127.0.0.1 --port P --ca FILE --room R --strategy S
/// --matches M`, as `BotPlayer` runs it (the server resolved and trusted, then a
/// `BotPlay` on the main actor), without the command line. Its lines go to /dev/null, as
/// `roshambo bot > /dev/null` would write them; on the standard output it was given it
/// answers the benchmark: `READY` once the server is resolved (identity and TLS context
/// made), then after the line `go` on its input it plays, and says
/// `DONE <CPU µs since go> <rounds> <matches> <ending>`.
@MainActor
func botMode(_ arguments: [String]) async throws -> Never {
  func value(_ flag: String) -> String { arguments[arguments.firstIndex(of: flag)! + 1] }
  let answers = FileHandle(fileDescriptor: dup(STDOUT_FILENO))
  dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO)
  func answer(_ line: String) { answers.write(Data((line + "\n").utf8)) }
  let identity = value("--identity")
  // Made here, so that its first-use words are not said and its key is not timed.
  _ = try PlayerIdentity.loadOrCreate(at: identity)
  let room = value("--room")
  let access = ServerAccess(
    settings: ServerSettings(
      host: "127.0.0.1", port: Int(value("--port"))!, ca: value("--ca"), identity: identity),
    keepaliveMillis: 3_000)
  let resolved: ResolvedServer
  do {
    resolved = try await access.resolve(for: .room(room))
  } catch {
    FileHandle.standardError.write(Data("bot: could not resolve the server: \(error)\n".utf8))
    exit(1)
  }
  answer("READY")
  guard readLine() == "go" else { exit(1) }
  let before = cpuMicrosOfThisProcess()
  // The bot says one line per round it counts ("round N: …") and one per match
  // ("match N: …"): what it played, without parsing its summary.
  var rounds = 0
  var matches = 0
  let play = BotPlay(
    BotPlay.Settings(
      name: value("--name"), strategy: BotStrategy(rawValue: value("--strategy"))!,
      matches: Int(value("--matches"))!, room: room),
    connect: { try await access.connect(resolved) }, reconnect: access.reconnector(resolved),
    say: { line in
      if line.hasPrefix("round ") { rounds += 1 }
      if line.hasPrefix("match ") { matches += 1 }
      print(line)
      fflush(nil)
    },
    complain: { FileHandle.standardError.write(Data(("bot: " + $0 + "\n").utf8)) })
  let ending: BotPlay.Ending
  do {
    ending = try await play.run()
  } catch {
    // What `roshambo bot` says on its way out (a failed first connection, as a rule).
    FileHandle.standardError.write(Data("bot: \(error)\n".utf8))
    exit(1)
  }
  answer("DONE \(cpuMicrosOfThisProcess() - before) \(rounds) \(matches) \(ending)")
  exit(ending == .finished ? 0 : 1)
}

/// Two `server-bench bot` children, one for each of `strategies`, play `matches` matches
/// in one room of `server` (at `port`): timed from the moment both are told to go (each
/// resolved and ready) until both have said they are done; the server's CPU over that
/// span and each bot's own.
func playBots(
  label: String, server: ChildProcess, port: Int, ca: String, folder: String,
  strategies: [BotStrategy], matches: Int
) -> BotsRun {
  let room = "bots-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
  let bots: [ChildProcess]
  do {
    bots = try strategies.enumerated().map { index, strategy in
      try ChildProcess([
        "bot", "--port", "\(port)", "--ca", ca, "--identity",
        folder + "/identity-\(index)-\(room).pem", "--name",
        "bot-\(index + 1)-\(strategy.rawValue)",
        "--strategy", strategy.rawValue, "--matches", "\(matches)", "--room", room,
      ])
    }
  } catch {
    failed("starting the bots", error)
  }
  for bot in bots { _ = bot.line(startingWith: "READY") }
  let serverBefore = server.cpuMicros()
  let started = NIODeadline.now()
  for bot in bots { bot.send("go") }
  let done = bots.map { $0.line(startingWith: "DONE ").split(separator: " ") }
  let seconds = Double((NIODeadline.now() - started).nanoseconds) / 1e9
  let serverMicros = server.cpuMicros() - serverBefore
  for bot in bots { bot.stop() }
  for answer in done where answer[4] != "finished" || Int(answer[3])! != matches {
    failed(label, "a bot played \(answer[3]) of \(matches) matches and ended \(answer[4])")
  }
  let botMicros = done.map { Int($0[1])! }.reduce(0, +)
  return BotsRun(
    label: label, matches: Int(done[0][3])!, rounds: Int(done[0][2])!, seconds: seconds,
    serverMicros: serverMicros, botMicros: botMicros, totalMicros: serverMicros + botMicros)
}

/// The arena of `strategies` as `roshambo arena` plays it on a server of its own (that
/// server's configuration as `ArenaRun` makes it: no rate limit, no journal, `bestOf`),
/// in this process: one pairing, a game of `roundsPerGame` in each seat order, every round
/// played (a test that never decides). Its time is the arena's own (`ArenaResult.seconds`);
/// its CPU this process's over the same span, server and bots together.
func arenaOnItsOwnServer(
  label: String, strategies: [BotStrategy], roundsPerGame: Int, bestOf: Int,
  certificate: String, key: String, ca: String, identity: String
) async throws -> BotsRun {
  let jobs = ArenaRun.defaultJobs(ownServer: true)
  let server = try await LocalServer.start(certificate: certificate, key: key) { configuration in
    configuration.limits.framesPerSecond = .max
    configuration.limits.frameBurst = .max
    configuration.limits.maxConnectionsPerAddress = 4 * jobs + 64
    configuration.roomSettings.bestOf = bestOf
  }
  // The TLS context `ArenaRun` makes: the CA trusted, the player's identity presented.
  let tls = try ServerResolver(
    settings: ServerSettings(identity: identity), interactive: false, complain: { _ in },
    ask: { _ in nil }
  ).clientTLS(trust: .caFile(ca)).0
  let test = SequentialTest.Parameters(alpha: 1e-300, beta: 1e-300)
  let schedule = ArenaSchedule(bots: 2, roundsPerGame: roundsPerGame, games: 1, seed: 1)
  let runner = ArenaRunner(
    bots: strategies.map { .builtIn($0) }, schedule: schedule, test: test, jobs: jobs)
  let settings = ArenaResult.Settings(
    roundsPerGame: roundsPerGame, games: 1, seed: 1, test: test, jobs: jobs, bestOf: bestOf,
    server: ArenaRun.serverDescription(ownServer: true, host: "127.0.0.1", port: server.port))
  let before = cpuMicrosOfThisProcess()
  let result: ArenaResult
  do {
    result = try await runner.run(
      host: "127.0.0.1", port: server.port, tls: tls, settings: settings)
  } catch {
    await server.stop()
    failed(label, error)
  }
  let micros = cpuMicrosOfThisProcess() - before
  await server.stop()
  return BotsRun(
    label: label, matches: nil, rounds: result.roundsPlayed, seconds: result.seconds,
    serverMicros: nil, botMicros: nil, totalMicros: micros)
}
