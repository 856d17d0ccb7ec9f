import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS

/// What a load run measured.
public struct LoadReport: Sendable {
  public var connections: Int
  public var seconds: Double
  public var picks: Int
  /// Pick latencies (choose sent → own state back), in µs, sorted.
  public var latencies: [Double]
  public var errors: [String: Int]
  /// Each second of the measuring window in order (by when the state came back): its
  /// picks and their 99th percentile, µs. Where a run's p99 comes from a few bad seconds.
  public var timeline: [Second]
  /// Lobby views the followers received in the measuring window, and their bytes.
  public var lobbyViews = 0
  public var lobbyBytes = 0

  /// One second of the measuring window.
  public struct Second: Sendable {
    public var picks: Int
    public var p99: Double
  }

  public var picksPerSecond: Double { Double(picks) / seconds }

  public func percentile(_ p: Double) -> Double { Self.percentile(p, of: latencies) }

  /// The value below which a fraction `p` of `sorted` falls (NaN for none).
  static func percentile(_ p: Double, of sorted: [Double]) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }
}

/// A load run that could not finish: the stage it stopped in, how far it got, and why.
public struct LoadFailure: Error, CustomStringConvertible {
  /// "seating" (connecting and seating every bot and follower) or "playing".
  public var stage: String
  /// Connections seated (or following) when it stopped, and how many were to be.
  public var seated: Int
  public var wanted: Int
  public var underlying: any Error

  public var description: String {
    "the load run stopped while \(stage), with \(seated) of \(wanted) connections in play: "
      + "\(underlying)"
  }
}

/// Many bot pairs in one process, each connection a small NIO state machine (no actor
/// hops, no per-message tasks), for loading a server and measuring it.
///
/// Invariant: latencies are recorded only for picks sent and answered inside the
/// measuring window (one sent while the last bots were still being seated is not).
public enum LoadGenerator {
  /// Seats `rooms` pairs of bots (rooms `load-0`…), lets them play for `seconds`, each
  /// bot waiting about `paceMillis` before each pick (0: as fast as the server answers),
  /// and reports. `connected` runs once every bot is seated and `settle` seconds have
  /// passed (play goes on meanwhile, unmeasured: the burst of seating every bot is not
  /// the steady play the window measures), before measuring starts; `finished` once the
  /// measuring window is over, before the bots disconnect.
  /// With `fair`, the bots ask for fair rooms and play them by commit–reveal (a pick is
  /// then a commitment, and each round costs one more message per bot: the reveal).
  public static func run(
    host: String, port: Int, tls: TLSContext, rooms: Int, seconds: Double, paceMillis: Int64,
    threads: Int = 1, fair: Bool = false, settle: Double = 0, followers: Int = 0,
    connected: @Sendable () -> Void = {},
    finished: @Sendable () -> Void = {}
  ) async throws -> LoadReport {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    let followerGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let stats = LoadStats()
    var channels: [any Channel] = []
    var stage = "seating"
    do {
      // 100 rooms (200 handshakes) at a time: within what a server lets one address
      // have under way (a quarter of its 1,024 handshakes by default).
      for start in stride(from: 0, to: rooms, by: 100) {
        var batch: [EventLoopFuture<any Channel>] = []
        for room in start..<min(rooms, start + 100) {
          for _ in 0..<2 {
            batch.append(
              connect(
                group: group, host: host, port: port, tls: tls, room: "load-\(room)", stats: stats,
                paceMillis: paceMillis, fair: fair))
          }
        }
        for future in batch { channels.append(try await future.get()) }
      }
      // Followers of the lobby, 100 at a time too, each seated once its first view came;
      // on a loop of their own, so that reading their views does not delay the bots'
      // measured picks.
      for start in stride(from: 0, to: followers, by: 100) {
        var batch: [EventLoopFuture<any Channel>] = []
        for index in start..<min(followers, start + 100) {
          batch.append(
            follow(
              group: followerGroup, host: host, port: port, tls: tls, name: "f\(index)",
              stats: stats))
        }
        for future in batch { channels.append(try await future.get()) }
      }
      stage = "playing"
      try await Task.sleep(for: .milliseconds(Int64(settle * 1000)))
      connected()
      stats.start()
      let started = ContinuousClock.now
      try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))  // the measuring window
      let elapsed = ContinuousClock.now - started
      let result = stats.stop()
      finished()
      for channel in channels { channel.close(promise: nil) }
      try await group.shutdownGracefully()
      try await followerGroup.shutdownGracefully()
      return LoadReport(
        connections: channels.count,
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        picks: result.latencies.count, latencies: result.latencies, errors: result.errors,
        timeline: result.timeline, lobbyViews: result.lobbyViews, lobbyBytes: result.lobbyBytes)
    } catch {
      for channel in channels { channel.close(promise: nil) }
      try? await group.shutdownGracefully()
      try? await followerGroup.shutdownGracefully()
      throw LoadFailure(
        stage: stage, seated: channels.count, wanted: 2 * rooms + followers, underlying: error)
    }
  }

  static func follow(
    group: any EventLoopGroup, host: String, port: Int, tls: TLSContext, name: String,
    stats: LoadStats
  ) -> EventLoopFuture<any Channel> {
    open(group: group, host: host, port: port, tls: tls) { ready in
      LoadFollowerHandler(name: name, stats: stats, first: ready)
    }
  }

  static func connect(
    group: any EventLoopGroup, host: String, port: Int, tls: TLSContext, room: String,
    stats: LoadStats, paceMillis: Int64, fair: Bool
  ) -> EventLoopFuture<any Channel> {
    open(group: group, host: host, port: port, tls: tls) { ready in
      LoadBotHandler(room: room, stats: stats, seated: ready, paceMillis: paceMillis, fair: fair)
    }
  }

  /// A connection whose last handler `handler` makes, given the promise it completes once
  /// it is in play (seated, or its first lobby view come); the future waits for that too.
  private static func open(
    group: any EventLoopGroup, host: String, port: Int, tls: TLSContext,
    handler: @escaping @Sendable (EventLoopPromise<Void>) -> any ChannelHandler
  ) -> EventLoopFuture<any Channel> {
    let loop = group.next()
    let ready = loop.makePromise(of: Void.self)
    return ClientPipeline.bootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try ClientPipeline.install(
            on: channel, tls: tls, serverName: host, last: handler(ready))
        }
      }
      .connect(host: host, port: port)
      .flatMapError { error in
        ready.fail(error)
        return loop.makeFailedFuture(error)
      }
      .flatMap { channel in ready.futureResult.map { channel } }
  }
}

/// Latencies and error counts from every connection, across event loops.
final class LoadStats: Sendable {
  private struct State {
    var latencies: [Double] = []
    /// The latencies by second of the window.
    var seconds: [[Double]] = []
    var errors: [String: Int] = [:]
    var started: NIODeadline?
    var lobbyViews = 0
    var lobbyBytes = 0
  }

  private let state = NIOLockedValueBox(State())

  func record(sentAt sent: NIODeadline) {
    let now = NIODeadline.now()
    let latencyMicros = Double((now - sent).nanoseconds) / 1000
    state.withLockedValue {
      guard let started = $0.started, sent >= started else { return }
      $0.latencies.append(latencyMicros)
      let second = Int((now - started).nanoseconds / 1_000_000_000)
      while $0.seconds.count <= second { $0.seconds.append([]) }
      $0.seconds[second].append(latencyMicros)
    }
  }

  func error(_ code: String) { state.withLockedValue { $0.errors[code, default: 0] += 1 } }

  /// A follower received a lobby view of `bytes` (counted inside the window only).
  func lobbyView(bytes: Int) {
    state.withLockedValue {
      guard $0.started != nil else { return }
      $0.lobbyViews += 1
      $0.lobbyBytes += bytes
    }
  }

  func start() { state.withLockedValue { $0.started = .now() } }

  func stop() -> (
    latencies: [Double], errors: [String: Int], timeline: [LoadReport.Second], lobbyViews: Int,
    lobbyBytes: Int
  ) {
    state.withLockedValue {
      $0.started = nil
      let timeline = $0.seconds.map { second in
        LoadReport.Second(
          picks: second.count,
          p99: second.isEmpty ? 0 : LoadReport.percentile(0.99, of: second.sorted()))
      }
      return ($0.latencies.sorted(), $0.errors, timeline, $0.lobbyViews, $0.lobbyBytes)
    }
  }
}

/// One bot as a channel handler on its connection's loop (no tasks, no actor hops, so
/// what it measures is the server): picks with ``BotStrategy/random`` each round (after
/// its pace), asks for a rematch after each match, and records how long each pick takes
/// to come back in its own state.
final class LoadBotHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  private let room: String
  private let stats: LoadStats
  private let seated: EventLoopPromise<Void>
  private let paceMillis: Int64
  private var seat: Seat?
  private var pickedRound = 0
  private var pickSentAt: NIODeadline?
  private var askedRematch = false
  private var generator = SystemRandomNumberGenerator()
  private let fair: Bool
  /// In a fair room: this round's weapon and nonce, until revealed.
  private var secret: (round: Int, weapon: Weapon, nonce: [UInt8])?

  init(
    room: String, stats: LoadStats, seated: EventLoopPromise<Void>, paceMillis: Int64,
    fair: Bool = false
  ) {
    self.room = room
    self.stats = stats
    self.seated = seated
    self.paceMillis = paceMillis
    self.fair = fair
  }

  func channelActive(context: ChannelHandlerContext) {
    // No pings promised: the load's bots pick at their pace, held to the server's idle
    // limit like any program.
    send(
      context,
      PlayerConfiguration(name: "load", room: room, fair: fair, promisesKeepalive: false)
        .greeting(id: nil))
    context.fireChannelActive()
  }

  private func send(_ context: ChannelHandlerContext, _ message: ClientMessage) {
    context.writeAndFlush(wrapOutboundOut(ClientPipeline.frame(message)), promise: nil)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard let message = try? frame.withUnsafeReadableBytes({ try ServerMessage.decode($0) }) else {
      stats.error("undecodable")
      return
    }
    switch message {
    case .welcome(_, let seat, _, _):
      self.seat = seat
    case .state(_, let view):
      guard let seat, let me = view.player(seat) else { return }
      if let sent = pickSentAt,
        me.chosen || view.history.count >= pickedRound || view.phase == .over
      {
        stats.record(sentAt: sent)
        pickSentAt = nil
      }
      switch view.phase {
      case .waiting:
        break
      case .choosing:
        seated.succeed()
        askedRematch = false
        if let secret, secret.round == view.round, view.player(seat.opponent)?.commitment != nil {
          // Both are bound: reveal (once).
          self.secret = nil
          send(
            context,
            .reveal(
              round: secret.round, weapon: secret.weapon, nonce: Commitment.hex(secret.nonce),
              id: nil))
        }
        guard !me.chosen, pickedRound != view.round else { return }
        pickedRound = view.round
        let weapon = BotStrategy.random.pick(
          history: view.history, seat: seat, ruleset: Ruleset.named(view.ruleset),
          random: &generator)
        let round = view.round
        let wait =
          paceMillis == 0 ? 0 : paceMillis / 2 + Int64(generator.next() % UInt64(paceMillis))
        let fair = view.fair
        let room = view.room
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(wait)) {
          self.pickSentAt = .now()
          guard fair else {
            self.send(context, .choose(round: round, weapon: weapon, id: nil))
            return
          }
          let nonce = Commitment.makeNonce()
          self.secret = (round, weapon, nonce)
          let digest = Commitment.digest(
            room: room, round: round, seat: seat, weapon: weapon, nonce: nonce)
          self.send(context, .commit(round: round, digest: digest, id: nil))
        }
      case .over:
        pickedRound = 0
        if !askedRematch, !view.rematch.contains(seat) {
          askedRematch = true
          send(context, .rematch(id: nil))
        }
      }
    case .error(let error, _):
      stats.error(error.code.rawValue)
    case .pong, .lobby, .lobbyPatch, .challenge, .record:
      break
    }
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    stats.error((error as? TLSError).map { "tls: \($0.kind)" } ?? "\(type(of: error))")
    seated.fail(error)
    context.close(promise: nil)
  }
}

/// A follower of the lobby: says hello with role `lobby` and counts the views it gets.
final class LoadFollowerHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer
  private let name: String
  private let stats: LoadStats
  private var first: EventLoopPromise<Void>?

  private static let lobbyPrefix = Array(#"{"type":"lobby""#.utf8)

  init(name: String, stats: LoadStats, first: EventLoopPromise<Void>) {
    self.name = name
    self.stats = stats
    self.first = first
  }

  func channelActive(context: ChannelHandlerContext) {
    // Whole views, which it counts by their type alone.
    let hello = PlayerConfiguration(
      name: name, role: .lobby, promisesKeepalive: false, lobbyPatches: false
    ).greeting(id: nil)
    context.writeAndFlush(wrapOutboundOut(ClientPipeline.frame(hello)), promise: nil)
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    let bytes = frame.readableBytes
    // Only its type, not the whole view: the load generator shares the server's cores.
    guard frame.readableBytesView.starts(with: Self.lobbyPrefix) else {
      stats.error("follower: not a lobby view")
      return
    }
    stats.lobbyView(bytes: bytes)
    first?.succeed()
    first = nil
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    stats.error("follower: \(type(of: error))")
    first?.fail(error)
    first = nil
    context.close(promise: nil)
  }
}
