import Foundation
import NIOCore
import NIOPosix
import RoshamboArena
import RoshamboClient
import RoshamboGame
import RoshamboTLS

/// Plays an arena on a server: every pairing of the schedule, `jobs` at a time, each
/// connection a small state machine on one event loop of its own (as the load
/// generator's bots are), and returns what it found.
///
/// Invariant: every seat's picks come from its bot and the seed the schedule gives it,
/// and every pairing's rounds are counted by its ``PairingReferee``; so on servers that
/// play the same match length, one seed gives one result.
public struct ArenaRunner: Sendable {
  public var bots: [ArenaBot]
  public var schedule: ArenaSchedule
  public var test: SequentialTest.Parameters
  /// Pairings played at once (each in two rooms, four connections).
  public var jobs: Int
  /// Rooms are named from this (each arena its own, so two never share a room).
  public var roomPrefix: String

  public init(
    bots: [ArenaBot], schedule: ArenaSchedule, test: SequentialTest.Parameters, jobs: Int,
    roomPrefix: String = "arena-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
  ) {
    self.bots = bots
    self.schedule = schedule
    self.test = test
    self.jobs = max(1, jobs)
    self.roomPrefix = roomPrefix
  }

  /// Plays the arena on the server at `host`:`port`, calling `progress` about twice a
  /// second, and returns its result with `settings`.
  public func run(
    host: String, port: Int, tls: TLSContext, settings: ArenaResult.Settings,
    progress: @escaping @Sendable (ArenaProgress) -> Void = { _ in }
  ) async throws -> ArenaResult {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    let started = NIODeadline.now()
    let runner = self
    let finished = loop.makePromise(of: ArenaCoordinator.Outcome.self)
    let programGroups = ProgramGroups()
    // The coordinator is kept until the loop has stopped: its tables and seats refer to it
    // (unowned) for as long as a connection can still call them, a failed run's too.
    let arena = try await loop.submit {
      let arena = ArenaCoordinator(
        runner: runner, loop: loop, host: host, port: port, tls: tls, finished: finished,
        programGroups: programGroups, progress: progress)
      arena.start()
      return NIOLoopBound(arena, eventLoop: loop)
    }.get()
    let outcome: ArenaCoordinator.Outcome
    do {
      outcome = try await finished.futureResult.get()
    } catch {
      try? await group.shutdownGracefully()
      await programGroups.finish(patience: .seconds(1))
      withExtendedLifetime(arena) {}
      throw error
    }
    try? await group.shutdownGracefully()
    // No program outlives the arena, one that ignores `bye` neither.
    await programGroups.finish(patience: .seconds(1))
    withExtendedLifetime(arena) {}
    let seconds = Double((NIODeadline.now() - started).nanoseconds) / 1e9
    return ArenaResult(
      bots: bots.map(\.name), settings: settings, pairings: outcome.pairings, seconds: seconds,
      roundsPlayed: outcome.roundsPlayed,
      programPicks: outcome.firstPickTimes.isEmpty
        ? nil
        : ArenaResult.PickTimes(
          sortedMicros: outcome.pickTimes.sorted(),
          sortedFirstMicros: outcome.firstPickTimes.sorted()))
  }
}

/// The arena while it runs, on its event loop: starts pairings up to the jobs allowed,
/// connects seats, gathers results, tells the progress, and ends the run once (with every
/// pairing's result, or the first failure).
///
/// Invariant: only ever touched on `loop`.
final class ArenaCoordinator {
  /// What a finished run hands back across the loop.
  struct Outcome: Sendable {
    var pairings: [ArenaResult.Pairing]
    var roundsPlayed: Int
    var pickTimes: [Double]
    var firstPickTimes: [Double]
  }

  let loop: any EventLoop
  let schedule: ArenaSchedule
  let test: SequentialTest.Parameters
  let bots: [ArenaBot]
  private let runner: ArenaRunner
  private let host: String
  private let port: Int
  private let tls: TLSContext
  private let finishedPromise: EventLoopPromise<Outcome>
  private let progress: @Sendable (ArenaProgress) -> Void
  private var next = 0
  private var running: [ArenaTable] = []
  private var results: [ArenaResult.Pairing?]
  private var done = 0
  private var roundsPlayed = 0
  private var roundsPlayedByDone = 0
  private var allPickTimes: [Double] = []
  private var firstPickTimes: [Double] = []
  private var ended = false
  private var ticker: RepeatedTask?
  private let started = NIODeadline.now()
  /// The process groups of this run's programs.
  let programGroups: ProgramGroups

  init(
    runner: ArenaRunner, loop: any EventLoop, host: String, port: Int, tls: TLSContext,
    finished: EventLoopPromise<Outcome>, programGroups: ProgramGroups,
    progress: @escaping @Sendable (ArenaProgress) -> Void
  ) {
    self.programGroups = programGroups
    self.runner = runner
    self.loop = loop
    self.schedule = runner.schedule
    self.test = runner.test
    self.bots = runner.bots
    self.host = host
    self.port = port
    self.tls = tls
    self.finishedPromise = finished
    self.progress = progress
    results = Array(repeating: nil, count: runner.schedule.pairings.count)
  }

  func start() {
    let bound = NIOLoopBound(self, eventLoop: loop)
    ticker = loop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500))
    { _ in bound.value.tell() }
    fill()
  }

  /// Starts pairings until `jobs` run or none are left; ends the run when all are done.
  private func fill() {
    guard !ended else { return }
    while running.count < runner.jobs, next < schedule.pairings.count {
      let table = ArenaTable(
        arena: self, pairing: schedule.pairings[next], roomPrefix: runner.roomPrefix)
      next += 1
      running.append(table)
      table.start()
      if ended { return }
    }
    if running.isEmpty, next == schedule.pairings.count {
      ended = true
      ticker?.cancel()
      tell()
      finishedPromise.succeed(
        Outcome(
          pairings: results.compactMap { $0 }, roundsPlayed: roundsPlayed,
          pickTimes: allPickTimes, firstPickTimes: firstPickTimes))
    }
  }

  /// Opens `seat`'s connection.
  func connect(_ seat: ArenaSeat) {
    let bound = NIOLoopBound(seat, eventLoop: loop)
    let arena = NIOLoopBound(self, eventLoop: loop)
    let host = self.host
    let port = self.port
    let tls = self.tls
    ClientPipeline.bootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try ClientPipeline.install(on: channel, tls: tls, serverName: host, last: bound.value)
        }
      }
      .connect(host: host, port: port)
      .hop(to: loop)
      .assumeIsolated()
      .whenFailure { error in
        arena.value.fail(ArenaFailure("could not connect to \(host):\(port): \(error)"))
        bound.value.markClosed(unexpectedly: false)
      }
  }

  func roundPlayed() { roundsPlayed += 1 }

  func pickTimes(_ times: [Double], firsts: [Double]) {
    allPickTimes += times
    firstPickTimes += firsts
  }

  func finished(_ table: ArenaTable) {
    guard !ended else { return }
    running.removeAll { $0 === table }
    results[table.pairing.index] = ArenaResult.Pairing(table.referee)
    done += 1
    roundsPlayedByDone += table.played
    fill()
  }

  /// Ends the run with `failure` (the first one; the rest are its consequences).
  func fail(_ failure: ArenaFailure) {
    guard !ended else { return }
    ended = true
    ticker?.cancel()
    for table in running { table.abandon() }
    finishedPromise.fail(failure)
  }

  private func tell() {
    let seconds = Double((NIODeadline.now() - started).nanoseconds) / 1e9
    progress(
      ArenaProgress(
        pairings: schedule.pairings.count, done: done,
        running: running.map {
          ArenaProgress.Running(
            first: bots[$0.pairing.first].name, second: bots[$0.pairing.second].name,
            played: $0.played)
        }, roundsPlayed: roundsPlayed, roundsPlayedByDone: roundsPlayedByDone,
        roundCap: schedule.roundCap, seconds: seconds))
  }
}
