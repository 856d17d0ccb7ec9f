import BenchmarkSupport
import Foundation
import NIOCore
import NIOPosix
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Synchronization

/// A count shared by handlers on the event loop and read by the benchmark's thread.
final class SharedCount: Sendable {
  let value = Atomic<Int>(0)
}

/// A seat that picks rock in every round, `pace` after the round opens: two of them draw
/// for ever, and every draw is a new `state` for everyone in the room.
final class DrawingSeat: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let pace: TimeAmount
  let seated: EventLoopPromise<Void>
  /// The last round this seat picked in (one count per seat).
  let picked: SharedCount

  init(pace: TimeAmount, seated: EventLoopPromise<Void>, picked: SharedCount) {
    self.pace = pace
    self.seated = seated
    self.picked = picked
  }

  func channelActive(context: ChannelHandlerContext) {
    send(
      context,
      .hello(
        protocol: WireProtocol.version, name: "drawer", role: .player, room: "slow", resume: nil,
        id: nil))
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard case .state(_, let view) = try? frame.withUnsafeReadableBytes(ServerMessage.decode),
      view.phase == .choosing, view.round > picked.value.load(ordering: .relaxed)
    else { return }
    seated.succeed()
    picked.value.store(view.round, ordering: .relaxed)
    let round = view.round
    context.eventLoop.assumeIsolated().scheduleTask(in: pace) {
      send(context, .choose(round: round, weapon: .rock, id: nil))
    }
  }
}

/// A spectator of room `slow`: after its `welcome` it either reads everything (counting
/// states) or never reads again, so the server's writes pile up behind it.
final class SlowSpectator: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  let reads: Bool
  let welcomed: EventLoopPromise<Void>
  /// States received, by all spectators together.
  let states: SharedCount

  init(reads: Bool, welcomed: EventLoopPromise<Void>, states: SharedCount) {
    self.reads = reads
    self.welcomed = welcomed
    self.states = states
  }

  func channelActive(context: ChannelHandlerContext) {
    send(
      context,
      .hello(
        protocol: WireProtocol.version, name: "watcher", role: .spectator, room: "slow",
        resume: nil, id: nil))
    // A ping now and then, as the real client sends, so the server's idle timeout does
    // not end the run; a non-reader still writes, it only never reads.
    keepAlive(context)
    context.fireChannelActive()
  }

  private func keepAlive(_ context: ChannelHandlerContext) {
    context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(10)) {
      guard context.channel.isActive else { return }
      send(context, .ping(id: 1))
      self.keepAlive(context)
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch try? frame.withUnsafeReadableBytes(ServerMessage.decode) {
    case .welcome:
      welcomed.succeed()
      if !reads { context.channel.setOption(.autoRead, value: false).whenComplete { _ in } }
    case .state:
      states.value.add(1, ordering: .relaxed)
    default:
      break
    }
  }
}

/// Server RSS growth while two seats draw every `pace` and `spectators` watch, sampled
/// once the kernel's socket buffers have filled (`settle`) and again `seconds` later.
struct SlowConsumerRun {
  var settledRSS: Int
  var finalRSS: Int
  var rounds: Int
  /// States each spectator received on average, counted after non-readers read again.
  var statesPerSpectator: Double
  var growth: Int { finalRSS - settledRSS }

  static func run(
    server: ChildProcess, port: Int, tls: TLSContext, spectators: Int, reading: Bool,
    pace: TimeAmount, settle: TimeAmount, seconds: TimeAmount
  ) throws -> SlowConsumerRun {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer { try? group.syncShutdownGracefully() }
    let loop = group.next()
    func connect(_ handler: @escaping @Sendable () -> any ChannelHandler) throws -> any Channel {
      try ClientPipeline.bootstrap(group: loop)
        // A small receive window, as on a slow link, so the kernel's buffers on both
        // sides fill within seconds instead of absorbing megabytes on loopback.
        .channelOption(.socketOption(.so_rcvbuf), value: 8_192)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try ClientPipeline.install(
              on: channel, tls: tls, serverName: "127.0.0.1", last: handler())
          }
        }
        .connect(host: "127.0.0.1", port: port).wait()
    }
    let seated = loop.makePromise(of: Void.self)
    let picked = [SharedCount(), SharedCount()]
    let states = SharedCount()
    var channels = try picked.map { count in
      try connect { DrawingSeat(pace: pace, seated: seated, picked: count) }
    }
    try seated.futureResult.wait()
    for _ in 0..<spectators {
      let welcomed = loop.makePromise(of: Void.self)
      channels.append(
        try connect { SlowSpectator(reads: reading, welcomed: welcomed, states: states) })
      try welcomed.futureResult.wait()
    }
    Thread.sleep(forTimeInterval: Double(settle.nanoseconds) / 1e9)
    let settled = server.rss()
    Thread.sleep(forTimeInterval: Double(seconds.nanoseconds) / 1e9)
    let final = server.rss()
    let rounds = picked[0].value.load(ordering: .relaxed)
    // The seats stop; non-readers read again and get what the server kept for them.
    for channel in channels.prefix(2) { try channel.close().wait() }
    for channel in channels.dropFirst(2) { try? channel.setOption(.autoRead, value: true).wait() }
    Thread.sleep(forTimeInterval: 2)
    for channel in channels.dropFirst(2) { try? channel.close().wait() }
    return SlowConsumerRun(
      settledRSS: settled, finalRSS: final, rounds: rounds,
      statesPerSpectator: Double(states.value.load(ordering: .relaxed))
        / Double(max(1, spectators)))
  }
}
