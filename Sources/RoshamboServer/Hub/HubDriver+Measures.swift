import Logging
import NIOCore
import RoshamboHub

/// The driver's log lines, metrics and the loop's own measures (its lag, the stall
/// profile): what the core returns as ``HubLog`` and ``HubCount``, written out.
extension HubDriver {
  func metricsSnapshot() -> ServerMetrics.Snapshot {
    let census = core.state.census
    return ServerMetrics.Snapshot(
      playersSeated: census.playersSeated, spectators: census.spectators,
      lobbyFollowers: census.lobbyFollowers, roomsByPhase: census.roomsByPhase)
  }

  /// What Agones' allocator routes by (``FleetListing/Report``).
  func fleetReport() -> FleetListing.Report {
    let census = core.state.census
    return FleetListing.Report(
      players: census.playersSeated, rooms: census.rooms, waiting: census.waiting ? 1 : 0,
      namedRooms: census.namedRooms)
  }

  func log(_ line: HubLog) {
    let level: Logger.Level =
      switch line.level {
      case .debug: .debug
      case .info: .info
      case .notice: .notice
      case .error: .error
      case .critical: .critical
      }
    logger.log(level: level, "\(line.message)", metadata: line.metadata.mapValues { "\($0)" })
  }

  func count(_ counted: HubCount) {
    guard let metrics else { return }
    switch counted {
    case .actionAccepted: metrics.actionsAccepted.increment()
    case .roundResolved: metrics.roundsResolved.increment()
    case .matchFinished(let forfeit, let fair): metrics.matchFinished(forfeit: forfeit, fair: fair)
    case .refused(let code): metrics.refused(code)
    case .recordSent: metrics.recordsSent.increment()
    }
  }

  // MARK: - The loop's own measures

  /// Samples how late the loop runs what is due, every ``ServerMetrics/lagProbeInterval``.
  func probeLag() {
    let due = NIODeadline.now() + ServerMetrics.lagProbeInterval
    lagProbe = loop.assumeIsolated().scheduleTask(deadline: due) {
      self.metrics?.loopLag.recordNanoseconds(max(0, (NIODeadline.now() - due).nanoseconds))
      self.probeLag()
    }
  }

  /// Logs the stall profile every 10 s, at debug level.
  func logStalls() {
    stallLog = loop.assumeIsolated().scheduleTask(in: .seconds(10)) {
      if let stalls = self.stalls { self.logger.debug("\(stalls.profile)") }
      self.logStalls()
    }
  }

  /// Runs `body`, counting its time as `step` in the stall profile and the metrics.
  func timed<T>(_ step: LoopStallMonitor.Step, _ body: () throws -> T) rethrows -> T {
    guard stalls != nil || metrics != nil else { return try body() }
    let start = NIODeadline.now()
    defer {
      let nanoseconds = (NIODeadline.now() - start).nanoseconds
      stalls?.add(step, micros: Int(nanoseconds / 1_000))
      metrics?.hubStep[step]?.recordNanoseconds(nanoseconds)
    }
    return try body()
  }
}
