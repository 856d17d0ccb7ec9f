import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RoshamboClient
import RoshamboDiscovery
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import Testing

/// Each test's own announcement port, so tests (and servers on this network) do not hear
/// each other.
private func freeGroupPort() -> Int { Int.random(in: 20_000...60_000) }

private func announcing(
  name: String, groupPort: Int, interval: TimeAmount = .seconds(60)
) -> ServerConfiguration {
  var configuration = testConfiguration(dataDirectory: nil)
  // A server announces only where it listens: here, on every interface.
  configuration.host = "0.0.0.0"
  configuration.announceName = name
  configuration.announcePort = groupPort
  configuration.announceInterval = interval
  return configuration
}

/// Counts the datagrams that reach a port (bound as the finder binds, so it hears the
/// group too), and can send datagrams from it.
private final class DatagramCounter: ChannelInboundHandler, Sendable {
  typealias InboundIn = AddressedEnvelope<ByteBuffer>
  let received = NIOLockedValueBox([[UInt8]]())

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let envelope = unwrapInboundIn(data)
    received.withLockedValue { $0.append(Array(envelope.data.readableBytesView)) }
  }

  static func open(port: Int) async throws -> (DatagramCounter, any Channel) {
    let counter = DatagramCounter()
    let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelOption(.socketOption(.so_reuseaddr), value: 1)
      .channelInitializer { $0.pipeline.addHandler(counter) }
      .bind(host: "0.0.0.0", port: port).get()
    let failed = await AnnouncementInterfaces.join(channel, port: port)
    if let (device, error) = failed.first {
      throw TestClientError.unexpected("cannot join the group on \(device.name): \(error)")
    }
    return (counter, channel)
  }
}

@Suite("Finding servers on the LAN", .serialized)
struct DiscoveryTests {
  @Test("a query is answered at once with the server's name, port, waiting players and code")
  func announced() async throws {
    let port = freeGroupPort()
    // The unasked announcements come once a minute, so what is heard within the finder's
    // second answers its query.
    try await withServer(announcing(name: "Test Den", groupPort: port)) { server in
      let found = try await ServerDiscovery.find(timeout: .seconds(1), groupPort: port)
      let ours = try #require(found.first { $0.port == server.port })
      #expect(found.count == 1)
      #expect(ours.announcement.name == "Test Den")
      #expect(ours.announcement.waiting == 0)
      #expect(ours.announcement.code == server.code)
      #expect(ours.announcement.code == IdentityCode.code(forFingerprint: server.fingerprint))
      #expect(AnnouncementInterfaces.current().contains { $0.address?.ipAddress == ours.host })

      let player = try await TestClient.connect(port: server.port)
      try await player.hello(name: "Ann")
      let again = try await ServerDiscovery.find(timeout: .seconds(1), groupPort: port)
      #expect(again.first { $0.port == server.port }?.announcement.waiting == 1)
      await player.close()
    }
  }

  @Test("a server that is told not to announce is not found")
  func notAnnounced() async throws {
    let port = freeGroupPort()
    var configuration = announcing(name: "Quiet", groupPort: port)
    configuration.announceName = nil
    try await withServer(configuration) { _ in
      let found = try await ServerDiscovery.find(timeout: .seconds(1), groupPort: port)
      #expect(found.isEmpty)
    }
  }

  @Test("a flood of queries gets at most one announcement per quarter second")
  func queryFlood() async throws {
    let port = freeGroupPort()
    try await withServer(announcing(name: "Busy", groupPort: port)) { server in
      let (counter, channel) = try await DatagramCounter.open(port: port)
      let group = try AnnouncementInterfaces.groupAddress(port: port)
      let started = ContinuousClock.now
      // 200 queries over about a second, each to the group as a client sends them.
      for _ in 0..<200 {
        let query = AddressedEnvelope(
          remoteAddress: group, data: channel.allocator.buffer(bytes: Announcement.query()))
        try await channel.writeAndFlush(query).get()
        try await Task.sleep(for: .milliseconds(5))
      }
      let elapsed = ContinuousClock.now - started
      try await Task.sleep(for: .milliseconds(300))  // the last answer's gap
      try await channel.close()
      let announcements = counter.received.withLockedValue { $0 }.filter {
        if case .announcement(let a)? = try? Announcement.decode($0) {
          a.port == server.port
        } else {
          false
        }
      }
      let interfaces = AnnouncementInterfaces.current().count
      let gaps = Int((elapsed + .milliseconds(300)) / .milliseconds(250)) + 1
      #expect(announcements.count >= 1)
      #expect(announcements.count <= gaps * interfaces, "\(announcements.count) in \(elapsed)")
    }
  }

  @Test(
    "junk on the group and announcements not sent to the group are not listed; the real server is")
  func hostileDatagrams() async throws {
    let port = freeGroupPort()
    try await withServer(announcing(name: "Real", groupPort: port)) { server in
      let (_, sender) = try await DatagramCounter.open(port: 0)
      let finding = Task {
        try await ServerDiscovery.find(timeout: .milliseconds(800), groupPort: port)
      }
      let junk: [[UInt8]] = [
        Array("not json".utf8),
        Array(
          #"{"roshambo":"announce","protocol":1,"name":"\u001b[2JEvil","port":1,"waiting":0,"code":"0000-0000-0000-0000"}"#
            .utf8),
        Array(
          #"{"roshambo":"announce","protocol":1,"name":"Big","port":70000,"waiting":0,"code":"0000-0000-0000-0000"}"#
            .utf8),
        Array(
          #"{"roshambo":"announce","protocol":1,"name":"Odd","port":9,"waiting":0,"code":"12345"}"#
            .utf8),
        [UInt8](repeating: UInt8(ascii: " "), count: 600),
      ]
      let group = try AnnouncementInterfaces.groupAddress(port: port)
      // A well-formed announcement sent to the finder's port directly, not to the group.
      let whisper = Announcement(
        name: "Whisper", port: 9, protocolVersion: 1, waiting: 0, code: server.code
      ).encoded()
      let direct = try SocketAddress(ipAddress: "127.0.0.1", port: port)
      // Sent again and again while the finder listens, so some surely land in its window.
      for _ in 0..<10 {
        for bytes in junk {
          try await sender.writeAndFlush(
            AddressedEnvelope(remoteAddress: group, data: sender.allocator.buffer(bytes: bytes))
          ).get()
        }
        try await sender.writeAndFlush(
          AddressedEnvelope(remoteAddress: direct, data: sender.allocator.buffer(bytes: whisper))
        ).get()
        try await Task.sleep(for: .milliseconds(50))
      }
      let found = try await finding.value
      try await sender.close()
      #expect(found.map(\.announcement.name) == ["Real"])
      #expect(found.first?.port == server.port)
    }
  }

  @Test("with two servers on the LAN, a script without --host is told to choose, with both listed")
  func twoServers() async throws {
    // The real group port, as the executable uses it.
    try await withServer(announcing(name: "Alpha", groupPort: Announcement.port)) { alpha in
      try await withServer(announcing(name: "Beta", groupPort: Announcement.port)) { beta in
        let (status, said) = await finishLaunched(try launchRoshambo(["bot"]))
        #expect(status == 64, "\(said)")
        #expect(said.contains("servers announce themselves"), "\(said)")
        #expect(said.contains("--host"), "\(said)")
        for (name, server) in [("Alpha", alpha), ("Beta", beta)] {
          #expect(
            said.split(separator: "\n").contains {
              $0.contains("\(name)  ")
                && $0.contains(":\(server.port)  0 waiting  code \(server.code)")
            }, "\(said)")
        }
      }
    }
  }

  @Test("the certificate probe learns the fingerprint the server presents, and sends nothing")
  func probe() async throws {
    try await withServer(testConfiguration(dataDirectory: nil)) { server in
      let fingerprint = try await CertificateProbe.fingerprint(host: "127.0.0.1", port: server.port)
      #expect(fingerprint == server.fingerprint)
      #expect(try await server.lobby().rooms.isEmpty)
    }
  }
}
