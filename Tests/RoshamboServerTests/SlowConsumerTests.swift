import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import RoshamboConnections
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboOperations
@testable import RoshamboServer

/// The hub on an embedded loop with embedded channels: whether a connection can take more
/// is set by hand, so what waits for a peer that does not read is checked exactly.
@Suite("Server: peers that do not read")
struct SlowConsumerTests {
  let loop = EmbeddedEventLoop()

  func link(_ id: Int) throws -> ConnectionLink {
    let channel = EmbeddedChannel(loop: loop)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    return ConnectionLink(id: id, channel: channel)
  }

  /// A hub with no journal on the embedded loop.
  func makeHub(now: @escaping @Sendable () -> Int64) -> HubDriver {
    HubDriver(
      loop: loop, core: HubCore(lobby: LobbyState(), configuration: .init(hasJournal: false)),
      journal: nil, logger: Logger(label: "test"), now: now)
  }

  /// Every frame written to `link` since the last call, decoded.
  func received(_ link: ConnectionLink) throws -> [ServerMessage] {
    let channel = link.channel as! EmbeddedChannel
    var out: [ServerMessage] = []
    while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
      while let length = buffer.readInteger(as: UInt32.self) {
        out.append(try ServerMessage.decode(buffer.readBytes(length: Int(length))!))
      }
    }
    return out
  }

  @Test("a peer that does not read gets only the newest state when it can take more")
  func conflation() throws {
    let hub = makeHub(now: { 0 })
    let alice = try link(1)
    let bob = try link(2)
    hub.receive(
      .hello(
        protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: nil,
        id: 1),
      from: alice)
    hub.receive(
      .hello(
        protocol: WireProtocol.version, name: "Bob", role: .player, room: "den", resume: nil, id: 1),
      from: bob)
    loop.run()
    let watchers = try (3..<23).map { try link($0) }
    for watcher in watchers {
      hub.receive(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .spectator, room: "den", resume: nil,
          id: 1),
        from: watcher)
    }
    loop.run()
    for watcher in watchers {
      _ = try received(watcher)
      (watcher.channel as! EmbeddedChannel).isWritable = false
    }
    _ = try received(alice)
    for round in 1...300 {
      hub.receive(.choose(round: round, weapon: .rock, id: nil), from: alice)
      hub.receive(.choose(round: round, weapon: .rock, id: nil), from: bob)
      loop.run()
    }
    // Alice reads: she has every state (one per round: both picks land in one flush).
    #expect(try received(alice).count == 300)
    // The watchers got nothing more, and hold one state each, not 600.
    for watcher in watchers { #expect(try received(watcher).isEmpty) }
    #expect(hub.backlogCount == watchers.count)
    // One becomes writable: it gets exactly the newest state.
    let version = try #require(hub.lobby.rooms["den"]?.version)
    (watchers[0].channel as! EmbeddedChannel).isWritable = true
    hub.writable(watchers[0])
    let caughtUp = try received(watchers[0])
    #expect(caughtUp.count == 1)
    guard case .state(let seq, let view) = caughtUp.first else {
      Issue.record("expected a state, got \(caughtUp)")
      return
    }
    #expect(seq == version && view.round == 301)
    #expect(hub.backlogCount == watchers.count - 1)
    // A gone peer's backlog goes with it.
    for watcher in watchers.dropFirst() { hub.detach(watcher) }
    loop.run()
    #expect(hub.backlogCount == 0)
  }

  @Test("followers of the lobby that do not read hold one view each, the newest")
  func followersConflated() throws {
    let clock = NIOLockedValueBox<Int64>(0)
    let hub = makeHub(now: { clock.withLockedValue { $0 } })
    let metrics = PrometheusMetrics(version: "test", protocolVersion: 1, commit: "test")
    hub.metrics = metrics.server
    let followers = try (1...10).map { try link($0) }
    for (index, follower) in followers.enumerated() {
      hub.receive(
        .hello(
          protocol: WireProtocol.version, name: "Eve\(index)", role: .lobby, room: nil,
          resume: nil, id: 1),
        from: follower)
    }
    loop.run()
    for follower in followers {
      #expect(try received(follower).count == 1)
      (follower.channel as! EmbeddedChannel).isWritable = false
    }
    // Fifty changes, each past the pacing interval: fifty views to each follower.
    for index in 1...50 {
      clock.withLockedValue { $0 += 300 }
      loop.advanceTime(by: .milliseconds(300))
      hub.receive(
        .hello(
          protocol: WireProtocol.version, name: "P\(index)", role: .player, room: "r\(index)",
          resume: nil, id: 1),
        from: try link(100 + index))
      loop.run()
    }
    for follower in followers { #expect(try received(follower).isEmpty) }
    #expect(hub.backlogCount == followers.count)
    // Each kept only the newest of its fifty views: forty-nine skipped, each counted.
    let counted = ServerStatus.samples(String(decoding: metrics.exposition(), as: UTF8.self))
    #expect(counted["roshambo_slow_consumer_conflations_total"] == 490)
    (followers[0].channel as! EmbeddedChannel).isWritable = true
    hub.writable(followers[0])
    let caughtUp = try received(followers[0])
    #expect(caughtUp.count == 1)
    guard case .lobby(_, let view) = caughtUp.first else {
      Issue.record("expected a lobby view, got \(caughtUp)")
      return
    }
    #expect(view.roomCount == 50)
  }

  @Test("messages that are not states are never dropped, but are bounded")
  func controlBacklog() throws {
    let hub = makeHub(now: { 0 })
    let metrics = PrometheusMetrics(version: "test", protocolVersion: 1, commit: "test")
    hub.metrics = metrics.server
    let client = try link(1)
    (client.channel as! EmbeddedChannel).isWritable = false
    for id in 0..<5 { hub.receive(.choose(round: 1, weapon: .rock, id: id), from: client) }
    loop.run()
    (client.channel as! EmbeddedChannel).isWritable = true
    hub.writable(client)
    let errors = try received(client).compactMap { message -> Int? in
      if case .error(_, let re) = message { return re }
      return nil
    }
    #expect(errors == [0, 1, 2, 3, 4])
    (client.channel as! EmbeddedChannel).isWritable = false
    for id in 0...ConnectionBacklog.limit {
      hub.receive(.choose(round: 1, weapon: .rock, id: id), from: client)
    }
    loop.run()
    #expect(!client.channel.isActive, "a peer that lets too much wait is closed")
    let counted = ServerStatus.samples(String(decoding: metrics.exposition(), as: UTF8.self))
    #expect(counted["roshambo_slow_consumer_closes_total"] == 1)
    #expect(counted["roshambo_actions_refused_total{code=\"not_playing\"}"] == 38)
  }
}
