import CoreMetrics
import NIOCore
import RoshamboProtocol

/// What the server counts, in swift-metrics' types (`CoreMetrics`), made by the factory
/// it is given: `RoshamboOperations`' Prometheus factory over a registry of this server's
/// own (so servers in one process, as in tests, never share a count), or none (the
/// default, for a server nobody scrapes). Names and units follow Prometheus' conventions;
/// each is listed in `docs/OPERATIONS.md`.
///
/// Invariant: every metric exists from the start (counters at 0), so a scrape always
/// lists all of them; labels come from fixed sets (error codes, refusal reasons), never
/// from what a client sent.
public final class ServerMetrics: Sendable {
  let connectionsAccepted: CoreMetrics.Counter
  let connectionsRefused: [String: CoreMetrics.Counter]
  let handshakeFailures: CoreMetrics.Counter
  let actionsAccepted: CoreMetrics.Counter
  let actionsRefused: [ErrorCode: CoreMetrics.Counter]
  let roundsResolved: CoreMetrics.Counter
  /// By forfeit (yes/no), then fair (yes/no).
  let matchesFinished: [[CoreMetrics.Counter]]
  let commitSeconds: CoreMetrics.Timer
  let actionsPerCommit: CoreMetrics.Recorder
  let recordsSent: CoreMetrics.Counter
  /// Matches the shared history acknowledged, and attempts to reach it that failed.
  package let matchesShipped: CoreMetrics.Counter
  package let historyFailures: CoreMetrics.Counter
  /// Matches in the journal's outbox waiting for the shared history, and those dropped
  /// from it unshipped because it held its maximum.
  package let historyWaiting: CoreMetrics.Meter
  package let historyDropped: CoreMetrics.Counter
  let slowConsumerConflations: CoreMetrics.Counter
  let slowConsumerCloses: CoreMetrics.Counter
  /// The game loop's stall profile: how late a probe every ``lagProbeInterval`` ran,
  /// how long each of the hub's own steps held the loop, how long commits waited for the
  /// journal's thread, and how long from sealing a batch to sending what it sends.
  let loopLag: CoreMetrics.Timer
  let hubStep: [LoopStallMonitor.Step: CoreMetrics.Timer]
  let journalWait: CoreMetrics.Timer
  let commitToSend: CoreMetrics.Timer
  /// How often the game loop's lag is sampled.
  static let lagProbeInterval = TimeAmount.milliseconds(50)
  // Sampled when scraped (``Snapshot``, and the server's table of connections).
  let connectionsOpen: CoreMetrics.Meter
  let playersSeated: CoreMetrics.Meter
  let spectators: CoreMetrics.Meter
  let lobbyFollowers: CoreMetrics.Meter
  let rooms: [String: CoreMetrics.Meter]
  let journalBytes: CoreMetrics.Meter
  package let ready: CoreMetrics.Meter

  /// Why a connection is refused before it is served: the labels of
  /// `roshambo_connections_refused_total`.
  public static let refusalReasons = ["server_full", "address_full", "dropped"]

  /// Metrics made by `factory` (none kept by default).
  public init(
    factory: any MetricsFactory = NOOPMetricsHandler.instance, version: String = "",
    protocolVersion: Int = 0, commit: String = ""
  ) {
    func counter(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Counter {
      CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
    }
    func gauge(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Meter {
      CoreMetrics.Meter(label: name, dimensions: labels, factory: factory)
    }
    connectionsAccepted = counter("roshambo_connections_accepted_total")
    connectionsRefused = Dictionary(
      uniqueKeysWithValues: Self.refusalReasons.map {
        ($0, counter("roshambo_connections_refused_total", [("reason", $0)]))
      })
    connectionsOpen = gauge("roshambo_connections_open")
    handshakeFailures = counter("roshambo_tls_handshake_failures_total")
    actionsAccepted = counter("roshambo_actions_accepted_total")
    actionsRefused = Dictionary(
      uniqueKeysWithValues: ErrorCode.contract.map {
        ($0, counter("roshambo_actions_refused_total", [("code", $0.rawValue)]))
      })
    roundsResolved = counter("roshambo_rounds_resolved_total")
    matchesFinished = ["false", "true"].map { forfeit in
      ["false", "true"].map { fair in
        counter("roshambo_matches_finished_total", [("forfeit", forfeit), ("fair", fair)])
      }
    }
    commitSeconds = CoreMetrics.Timer(label: "roshambo_journal_commit_seconds", factory: factory)
    actionsPerCommit = CoreMetrics.Recorder(
      label: "roshambo_journal_actions_per_commit", aggregate: true, factory: factory)
    loopLag = CoreMetrics.Timer(label: "roshambo_loop_lag_seconds", factory: factory)
    hubStep = Dictionary(
      uniqueKeysWithValues: LoopStallMonitor.Step.allCases.map {
        (
          $0,
          CoreMetrics.Timer(
            label: "roshambo_hub_step_seconds", dimensions: [("step", $0.rawValue)],
            factory: factory)
        )
      })
    journalWait = CoreMetrics.Timer(label: "roshambo_journal_wait_seconds", factory: factory)
    commitToSend = CoreMetrics.Timer(label: "roshambo_commit_to_send_seconds", factory: factory)
    recordsSent = counter("roshambo_match_records_sent_total")
    matchesShipped = counter("roshambo_history_matches_shipped_total")
    historyFailures = counter("roshambo_history_failures_total")
    historyWaiting = gauge("roshambo_history_matches_waiting")
    historyDropped = counter("roshambo_history_matches_dropped_total")
    slowConsumerConflations = counter("roshambo_slow_consumer_conflations_total")
    slowConsumerCloses = counter("roshambo_slow_consumer_closes_total")
    playersSeated = gauge("roshambo_players_seated")
    spectators = gauge("roshambo_spectators")
    lobbyFollowers = gauge("roshambo_lobby_followers")
    rooms = Dictionary(
      uniqueKeysWithValues: ["waiting", "choosing", "over"].map {
        ($0, gauge("roshambo_rooms", [("phase", $0)]))
      })
    journalBytes = gauge("roshambo_journal_bytes")
    ready = gauge("roshambo_ready")
    gauge(
      "roshambo_build_info",
      [("version", version), ("protocol", String(protocolVersion)), ("commit", commit)]
    ).set(1)
  }

  /// What the hub counts when asked, at each scrape.
  package struct Snapshot: Sendable, Equatable {
    var playersSeated = 0
    var spectators = 0
    var lobbyFollowers = 0
    var roomsByPhase: [String: Int] = [:]
  }

  func record(_ snapshot: Snapshot) {
    playersSeated.set(snapshot.playersSeated)
    spectators.set(snapshot.spectators)
    lobbyFollowers.set(snapshot.lobbyFollowers)
    for (phase, gauge) in rooms { gauge.set(snapshot.roomsByPhase[phase] ?? 0) }
  }

  func matchFinished(forfeit: Bool, fair: Bool) {
    matchesFinished[forfeit ? 1 : 0][fair ? 1 : 0].increment()
  }

  func refused(_ code: ErrorCode) {
    actionsRefused[code]?.increment()
  }
}
