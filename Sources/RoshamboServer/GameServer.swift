import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboConnections
import RoshamboGame
import RoshamboHub
import RoshamboProtocol
import RoshamboTLS
import ServiceLifecycle

/// A Roshambo server, bound and ready to serve: its TLS listener, the hub, its journal
/// and the parts around them, each a `Service` run in one `ServiceGroup`
/// (``serviceGroup(alongside:logger:)``), which starts them in order and stops them in
/// reverse.
///
/// Invariant: the order of ``services(alongside:observers:farewells:)`` is the only place the stop order is
/// written: the announcer and the listener stop first, then the drain, then what watches
/// the game (shipper, fleet link, operations endpoint), then the hub (everything made
/// durable, every connection closed with close_notify), then the journal, and Agones is
/// told last.
public final class GameServer: Sendable {
  public let port: Int
  public let host: String
  /// The SHA-256 fingerprint of the certificate the server presents.
  public let fingerprint: String
  /// The certificate's identity code (``IdentityCode``), for players to compare.
  public let code: String
  /// Warnings found while starting (for example a key readable by others).
  public let warnings: [String]
  private let group: MultiThreadedEventLoopGroup
  private let listener: any Channel
  private let hub: HubHandle
  /// The journal, when there is a data directory.
  package let journal: (any HubJournal)?
  private let connections: Connections
  /// Announces the server on the local network, when the configuration asks for it.
  private let announcer: Announcer?
  /// What the server counts (kept where the factory it was made with keeps it).
  public let metrics: ServerMetrics
  /// Ships finished matches to the shared history, when one is configured.
  let shipper: (any HistoryShipping)?
  /// The requests to stop, and the drain they start.
  private let requests: StopRequests
  /// Whether the game's port still takes connections (not once a drain or stop began).
  package var isListening: Bool { listener.isActive }
  /// Whether the server announces itself on the local network (asked for, and possible).
  public var isAnnouncing: Bool { announcer != nil }

  /// Live connections, so `stop()` can close each one properly, and the
  /// ``AdmissionGate`` that decides at accept whether each may start.
  final class Connections: Sendable {
    private struct State {
      var nextID = 1
      var open: [Int: any Channel] = [:]
      var gate: AdmissionGate
    }

    // The channels and the gate's counts: every access takes this lock.
    private let state: NIOLockedValueBox<State>

    init(limits: ServerConfiguration.Limits) {
      state = NIOLockedValueBox(
        State(
          gate: AdmissionGate(
            limits: .init(
              maxConnections: limits.maxConnections,
              maxConnectionsPerAddress: limits.maxConnectionsPerAddress,
              maxHandshakes: limits.maxHandshakes,
              maxHandshakesPerAddress: limits.maxHandshakesPerAddress))))
    }

    /// A channel was accepted: its id and whether it may start (``AdmissionGate``).
    func add(_ channel: any Channel) -> (id: Int, decision: AdmissionGate.Decision) {
      state.withLockedValue { state in
        let id = state.nextID
        state.nextID += 1
        let decision = state.gate.accept(id, from: channel.remoteAddress)
        if decision != .drop { state.open[id] = channel }
        return (id, decision)
      }
    }

    func handshakeFinished(_ id: Int) {
      state.withLockedValue { $0.gate.handshakeFinished(id) }
    }

    func remove(_ id: Int) {
      state.withLockedValue { state in
        state.open[id] = nil
        state.gate.closed(id)
      }
    }

    var all: [any Channel] { state.withLockedValue { Array($0.open.values) } }

    /// How many are open now.
    var count: Int { state.withLockedValue { $0.open.count } }
  }

  private init(
    port: Int, host: String, fingerprint: String, code: String, warnings: [String],
    group: MultiThreadedEventLoopGroup, listener: any Channel, hub: HubHandle,
    journal: (any HubJournal)?, connections: Connections, announcer: Announcer?,
    metrics: ServerMetrics, shipper: (any HistoryShipping)?, requests: StopRequests
  ) {
    self.requests = requests
    self.shipper = shipper
    self.metrics = metrics
    self.journal = journal
    self.announcer = announcer
    self.code = code
    self.port = port
    self.host = host
    self.fingerprint = fingerprint
    self.warnings = warnings
    self.group = group
    self.listener = listener
    self.hub = hub
    self.connections = connections
  }

  /// Loads the TLS context and the journal, rebuilds the lobby, and binds the game's port
  /// (and the operations endpoint's); nothing is served until ``serviceGroup(alongside:logger:)``
  /// runs. It counts through `metrics` (by default, nowhere). A configuration with a data directory needs a `storage` to keep it in
  /// (`RoshamboJournal`'s `JournalStorage`); without one the server keeps nothing.
  public static func bind(
    _ configuration: ServerConfiguration, logger: Logger, storage: (any ServerStorage)? = nil,
    metrics: ServerMetrics = ServerMetrics(),
    now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
  ) async throws -> GameServer {
    precondition(
      configuration.dataDirectory == nil || storage != nil,
      "a data directory needs a ServerStorage to keep it (RoshamboJournal's JournalStorage)")
    var tlsConfiguration = TLSConfiguration.server(
      certificateChainFile: configuration.certificateChainFile,
      privateKeyFile: configuration.privateKeyFile, allowTLS12: configuration.allowTLS12)
    // Players present their identity (a key) as a client certificate; none is needed.
    tlsConfiguration.acceptsClientIdentities = true
    // One limit for the handshake: the connection's (`ConnectionHandler` keeps it too).
    tlsConfiguration.handshakeTimeoutSeconds = configuration.limits.handshakeTimeoutSeconds
    let tls = try TLSContext(tlsConfiguration)
    let fingerprint = try Fingerprint.sha256(ofPEMFile: configuration.certificateChainFile)
    let tlsWarnings = tls.warnings
    let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
    let hubLoop = group.next()
    let hub: HubHandle
    var journal: (any HubJournal)?
    var history: (@Sendable (HistoryContext) -> any HistoryShipping)?
    var nameOffers: FleetNameOffers?
    let warnings: [String]
    do {
      var lobby = LobbyState(defaults: configuration.roomSettings)
      var found = tlsWarnings
      var lastRow: Int64 = 0
      if configuration.dataDirectory != nil, let storage {
        let opened = try await storage.open(configuration, logger: logger)
        journal = opened.journal
        history = opened.history
        lobby = opened.lobby
        lastRow = opened.lastRow
        found += opened.warnings
      }
      let saved = lobby
      let journalThread = journal
      let offers = history == nil ? nil : FleetNameOffers()
      nameOffers = offers
      let restored = lastRow
      hub = try await hubLoop.submit {
        let settings = HubConfiguration(
          server: configuration, hasJournal: journalThread != nil, sharesNames: offers != nil,
          logLevel: logger.logLevel)
        let hub = HubDriver(
          loop: hubLoop,
          core: HubCore(lobby: saved, journaledThrough: restored, configuration: settings),
          journal: journalThread, logger: logger, profileStalls: configuration.profileStalls,
          now: now)
        hub.metrics = metrics
        hub.hostNews = configuration.news
        hub.nameOffers = offers
        hub.restore(releasing: configuration.releasedNames)
        return HubHandle(hub)
      }.get()
      warnings = found
    } catch {
      try? await journal?.close()
      try? await group.shutdownGracefully()
      throw error
    }
    let limits = configuration.limits
    let connections = Connections(limits: limits)
    let handshakeFailures = HandshakeFailureLog(
      logger: logger, advice: configuration.tlsAdvice, metrics: metrics)
    let listener: any Channel
    do {
      listener = try await ServerBootstrap(group: group)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .serverChannelOption(.backlog, value: 1024)
        // Connections are taken once the group runs the listener (``GameListener``).
        .serverChannelOption(.autoRead, value: false)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        // Past 64 KiB waiting to go out a connection is unwritable, and the hub keeps
        // only the newest state for it until it drains below 16 KiB.
        .childChannelOption(
          .writeBufferWaterMark, value: .init(low: 16 * 1024, high: 64 * 1024)
        )
        .childChannelInitializer { channel in
          let (id, decision) = connections.add(channel)
          let admission: ConnectionHandler.Admission
          switch decision {
          case .drop:
            // Over a limit with refusals already under way: a failed initializer makes
            // the bootstrap close it, before any TLS.
            metrics.connectionsRefused["dropped"]?.increment()
            return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed)
          case .refuse(let reason):
            admission = reason
            metrics.connectionsRefused[reason.metricsLabel]?.increment()
          case .admit:
            admission = .admitted
            metrics.connectionsAccepted.increment()
          }
          channel.closeFuture.whenComplete { _ in connections.remove(id) }
          return channel.eventLoop.makeCompletedFuture {
            let handlers: [any ChannelHandler] = [
              try TLSHandler(context: tls),
              ByteToMessageHandler(FrameDecoder()),
              // After the decoder: only complete frames count as activity, so a frame
              // sent a byte at a time does not keep a connection open.
              IdleStateHandler(readTimeout: .seconds(limits.idleTimeoutSeconds)),
              ConnectionHandler(
                id: id, hub: hub, limits: limits, admission: admission,
                handshakeFailures: handshakeFailures, logger: logger, metrics: metrics,
                address: channel.remoteAddress.map { AdmissionGate.key(for: $0) },
                handshakeFinished: { connections.handshakeFinished(id) }),
            ]
            try channel.pipeline.syncOperations.addHandlers(handlers)
          }
        }
        .bind(host: configuration.host, port: configuration.port).get()
    } catch {
      try? await group.shutdownGracefully()
      throw error
    }
    let port = listener.localAddress?.port ?? configuration.port
    // A fingerprint from `Fingerprint.sha256` always has a code.
    let code = IdentityCode.code(forFingerprint: fingerprint) ?? ""
    var announcer: Announcer?
    var allWarnings = warnings
    if let name = configuration.announceName {
      let settings = Announcer.Settings(
        name: name, code: code,
        tlsPort: port, groupPort: configuration.announcePort,
        interval: configuration.announceInterval, listenHost: configuration.host)
      let (started, announceWarnings) = await Announcer.start(
        settings, loop: hubLoop, logger: logger,
        waiting: { hub.submit { $0.lobby.waitingPlayers } })
      announcer = started
      allWarnings += announceWarnings
    }
    let shipper = history?(
      HistoryContext(
        logger: logger, metrics: metrics,
        leaders: { board in hub.execute { $0.sharedLeadersRead(board) } },
        listedOpponents: configuration.listedOpponents,
        nameOffers: nameOffers ?? FleetNameOffers(),
        fleetNames: { rows in hub.execute { $0.fleetNamesRead(rows) } },
        nameLapseMillis: configuration.nameLapseMillis))
    return GameServer(
      port: port, host: configuration.host, fingerprint: fingerprint, code: code,
      warnings: allWarnings,
      group: group, listener: listener, hub: hub, journal: journal, connections: connections,
      announcer: announcer, metrics: metrics, shipper: shipper,
      requests: StopRequests(hub: hub, logger: logger))
  }

  /// What the game holds for Agones (``FleetListing/Report``), if the hub's loop answers
  /// within 1 s; nil when it does not (it is stuck).
  package func liveReport() async -> FleetListing.Report? {
    await withCheckedContinuation { continuation in
      let answered = NIOLockedValueBox(false)
      let finish = { @Sendable (report: FleetListing.Report?) in
        let first = answered.withLockedValue { answered in
          defer { answered = true }
          return !answered
        }
        if first { continuation.resume(returning: report) }
      }
      hub.submit { $0.fleetReport() }.whenSuccess { finish($0) }
      MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: .seconds(1)) { finish(nil) }
    }
  }

  /// Samples what the hub and the connections hold into ``metrics`` (on the hub's loop),
  /// for a scrape; fails if the loop does not answer.
  package func sampleMetrics() -> EventLoopFuture<Void> {
    let (metrics, connections, journal) = (self.metrics, self.connections, self.journal)
    return hub.submit { metrics.record($0.metricsSnapshot()) }.map {
      metrics.connectionsOpen.set(connections.count)
      metrics.journalBytes.set(journal?.bytesOnDisk ?? 0)
      metrics.historyWaiting.set(journal?.historyWaiting ?? 0)
    }
  }

  /// Hands `sink` every lobby view the followers get whole or as a patch, as it goes to
  /// them (on the hub's loop), starting with the last one made: the board's feed. Only a
  /// server configured with ``ServerConfiguration/feedsBoard`` makes views with nobody
  /// following.
  package func watchLobby(_ sink: @escaping @Sendable (SentLobbyView) -> Void) {
    hub.execute { $0.board = sink }
  }

  /// Hands `sink` the hub's answer to each of the board's requests for a match's record
  /// (``askRecordForBoard(request:match:)``), on the hub's loop.
  package func answerBoardRecords(_ sink: @escaping @Sendable (BoardRecordAnswer) -> Void) {
    hub.execute { $0.boardRecords = sink }
  }

  /// The board asks for kept match `match`'s record, as its request number `request`; the
  /// hub reads it as it reads a client's (within the same bound) and answers the sink
  /// given to ``answerBoardRecords(_:)``.
  package func askRecordForBoard(request: Int, match: Int64) {
    hub.execute { $0.boardAskedForRecord(request: request, match: match) }
  }

  /// Why the server does not take players now (nil: it does), asked of the hub's loop.
  package func unreadiness() -> EventLoopFuture<String?> {
    hub.submit { $0.unreadiness }
  }

  /// The event loops the server's connections run on (an operations endpoint may share
  /// them: it stops before they do).
  package var eventLoops: any EventLoopGroup { group }

  /// The server's parts in the order a `ServiceGroup` starts them; it stops them in
  /// reverse, so this order is the stop order read backwards. `alongside` runs first and
  /// stops last (the executable's signals, which must be heard all through the drain).
  ///
  /// `observers` watch the game while it runs (the operations endpoint, the fleet link's
  /// reports): they start after the hub and stop after the drain, before the hub, so what
  /// they ask of the hub's loop is answered. `farewells` are told the server is gone
  /// (the fleet link's `Shutdown`): they stop after the journal has closed.
  public func services(
    alongside: [ServiceGroupConfiguration.ServiceConfiguration] = [],
    observers: [(name: String, service: any Service)] = [],
    farewells: [(name: String, service: any Service)] = []
  ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
    // Every part stops in its turn whatever another one did: one that fails lets the
    // others stop in order.
    func part(_ service: any Service, _ name: String)
      -> ServiceGroupConfiguration.ServiceConfiguration
    {
      .init(
        service: service, failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: name)
    }
    var parts = alongside
    // Told last: Agones may end the process once it hears Shutdown.
    parts += farewells.map { part($0.service, $0.name) }
    // Closed once the hub has made everything durable.
    if let journal { parts.append(part(JournalService(journal: journal), "journal")) }
    parts.append(
      part(HubService(hub: hub, connections: connections, group: group, requests: requests), "hub"))
    // What watches the game asks the hub's loop: it stops before the hub, after the drain.
    parts += observers.map { part($0.service, $0.name) }
    // Ships what the drain's matches finish; what it has not shipped stays in the
    // journal's outbox for the next start.
    if let shipper { parts.append(part(shipper, "history shipper")) }
    parts.append(part(Drain(hub: hub, requests: requests), "drain"))
    parts.append(part(GameListener(channel: listener), "game listener"))
    if let announcer { parts.append(part(announcer, "LAN announcer")) }
    // First to stop: its return at the first request starts the group's shutdown.
    parts.append(
      .init(
        service: StopTrigger(requests: requests),
        successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "stop requests"))
    return parts
  }

  /// One `ServiceGroup` running ``services(alongside:observers:farewells:)``, which takes
  /// no signals itself: the embedding program asks the server to stop
  /// (``requestStop(drainingWithin:started:)``) or shuts the group down.
  public func serviceGroup(
    alongside: [ServiceGroupConfiguration.ServiceConfiguration] = [],
    observers: [(name: String, service: any Service)] = [],
    farewells: [(name: String, service: any Service)] = [], logger: Logger
  ) -> ServiceGroup {
    ServiceGroup(
      configuration: .init(
        services: services(alongside: alongside, observers: observers, farewells: farewells),
        logger: logger))
  }

  /// Stops a server whose group never ran (what was bound after it failed): runs its
  /// group with a stop already asked for, so its parts stop in their order.
  package func discard(logger: Logger) async {
    requestStop(drainingWithin: .zero)
    try? await serviceGroup(logger: logger).run()
  }

  /// Asks the server to stop: the first request drains it (stops accepting connections and
  /// announcing itself, tells every connection it closes within `limit` (a `closing`
  /// notice), refuses what would start a new match, and waits until no match is under way
  /// or `limit` passes), then stops it; any later request ends the drain now. `started` is
  /// told how many matches were under way. A match still unfinished is kept in the
  /// journal and resumes after a restart. Without a request, the group's graceful shutdown
  /// stops the server without a drain.
  public func requestStop(
    drainingWithin limit: Duration,
    started: @escaping @Sendable (_ matchesUnderWay: Int) -> Void = { _ in }
  ) {
    requests.request(within: limit, started: started)
  }

  /// Holds the game's loop for `duration` (a test's stuck loop).
  package func holdGameLoop(for duration: TimeAmount) {
    hub.execute { _ in usleep(UInt32(duration.nanoseconds / 1_000)) }
  }

  /// How long the hub's loop has stalled and what ran in the stalls, if the configuration
  /// asked for it (`profileStalls`).
  /// The journal thread's other work is read here, off the hub's loop: its lock may be
  /// held by a snapshot step, and the loop never waits for the journal.
  public func stallProfile() async throws -> String? {
    guard let profile = try await hub.submit({ $0.stalls?.profile }).get() else { return nil }
    return profile.with(otherJournalWork: journal?.otherWork ?? .init()).description
  }

  /// The `hello`s the hub handled since the stall profile started, and the time its core
  /// took over them, when the profile is kept (for a benchmark of seating).
  public func helloCost() async throws -> (hellos: Int, nanoseconds: Int64)? {
    try await hub.submit {
      $0.stalls.map { (hellos: $0.hellos.count, nanoseconds: $0.hellos.nanoseconds) }
    }.get()
  }

  /// Starts the stall profile afresh (for a benchmark's measuring window).
  public func resetStallProfile() async throws {
    try await hub.submit { $0.stalls?.reset() }.get()
    journal?.resetOtherWork()
  }

  /// The lobby as the hub holds it now (for tests and tools).
  public func lobby() async throws -> LobbyState {
    try await hub.submit { $0.lobby }.get()
  }

  /// How many connections have messages waiting because they do not read (for tests).
  func backlogCount() async throws -> Int {
    try await hub.submit { $0.backlogCount }.get()
  }
}
