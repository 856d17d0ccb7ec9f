import Foundation
import NIOCore
import NIOPosix
import RoshamboProtocol
import Testing

@testable import RoshamboServer

@Suite("Admission at accept, before TLS")
struct AdmissionGateTests {
  static let limits = AdmissionGate.Limits(
    maxConnections: 10, maxConnectionsPerAddress: 3, maxHandshakes: 6,
    maxHandshakesPerAddress: 4)

  static func address(_ ip: String) -> SocketAddress { try! SocketAddress(ipAddress: ip, port: 1) }

  @Test("one address: its cap, then two refusals told why, then closed at once")
  func perAddress() {
    var gate = AdmissionGate(limits: Self.limits)
    let a = Self.address("10.0.0.1")
    #expect((1...3).map { gate.accept($0, from: a) } == [.admit, .admit, .admit])
    for id in 1...3 { gate.handshakeFinished(id) }
    #expect(gate.accept(4, from: a) == .refuse(.addressFull))
    #expect(gate.accept(5, from: a) == .refuse(.addressFull))
    #expect(gate.accept(6, from: a) == .drop)
    // Another address is not affected.
    #expect(gate.accept(7, from: Self.address("10.0.0.2")) == .admit)
    // A refusal that ends makes room for the next one to be told.
    gate.closed(4)
    #expect(gate.accept(8, from: a) == .refuse(.addressFull))
    // An admitted connection that ends makes room for one more.
    gate.closed(1)
    #expect(gate.accept(9, from: a) == .admit)
  }

  @Test("connections stuck in their handshake are bounded per address and in all")
  func handshakes() {
    let hog = Self.address("10.0.0.9")
    var limits = Self.limits
    limits.maxConnectionsPerAddress = 100
    var gate = AdmissionGate(limits: limits)
    #expect((1...4).map { gate.accept($0, from: hog) } == Array(repeating: .admit, count: 4))
    #expect(gate.accept(5, from: hog) == .drop, "a fifth handshake from one address")
    #expect(gate.accept(6, from: Self.address("10.0.0.10")) == .admit)
    #expect(gate.accept(7, from: Self.address("10.0.0.11")) == .admit)
    #expect(gate.accept(8, from: Self.address("10.0.0.12")) == .drop, "six handshakes in all")
    gate.handshakeFinished(1)
    #expect(gate.handshaking == 5)
    #expect(gate.accept(9, from: Self.address("10.0.0.12")) == .admit)
    #expect(gate.open == 7)
  }

  @Test("a full server refuses (told why) and admits again once a slot frees")
  func full() {
    var limits = Self.limits
    limits.maxConnections = 2
    var gate = AdmissionGate(limits: limits)
    #expect(gate.accept(1, from: Self.address("10.0.0.1")) == .admit)
    #expect(gate.accept(2, from: Self.address("10.0.0.2")) == .admit)
    #expect(gate.accept(3, from: Self.address("10.0.0.3")) == .refuse(.serverFull))
    gate.closed(2)
    gate.closed(3)
    #expect(gate.accept(4, from: Self.address("10.0.0.3")) == .admit)
  }

  @Test("IPv6 addresses count by their /64; IPv4-mapped ones as IPv4")
  func ipv6() {
    let key = { AdmissionGate.key(for: Self.address($0)) }
    #expect(key("2001:db8:1:2::5") == key("2001:db8:1:2:ffff:ffff:ffff:1"))
    #expect(key("2001:db8:1:2::5") == "2001:db8:1:2::/64")
    #expect(key("2001:db8:1:3::5") != key("2001:db8:1:2::5"))
    #expect(key("::ffff:192.0.2.7") == key("192.0.2.7"))
    var gate = AdmissionGate(limits: Self.limits)
    // 160 addresses of one /64 hold no more than one address would.
    let decisions = (0..<160).map { index in
      let id = index + 1
      let decision = gate.accept(id, from: Self.address("2001:db8::\(String(index, radix: 16)):1"))
      gate.handshakeFinished(id)
      return decision
    }
    #expect(decisions.filter { $0 == .admit }.count == 3)
  }
}

@Suite("Half-open connections over real sockets", .serialized)
struct HalfOpenTests {
  @Test("400 connections from one address that never start TLS keep nobody else out")
  func halfOpenFlood() async throws {
    try await withServer(limits: {
      $0.maxConnections = 300
      $0.maxConnectionsPerAddress = 64
      $0.handshakeTimeoutSeconds = 1
    }) { server in
      var raw: [any Channel] = []
      for _ in 0..<400 {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
          .bind(to: try SocketAddress(ipAddress: "127.0.0.2", port: 0))
          .connect(host: "127.0.0.1", port: server.port).get()
        raw.append(channel)
      }
      let player = try await TestClient.connect(port: server.port)
      let welcome = try await player.hello(name: "Guest", room: "guest")
      #expect(
        welcome
          == ServerMessage.welcome(room: "guest", seat: .one, token: player.token).announcing(
            .serverDefault))
      // The flood is closed: most at once, those let into a handshake at its deadline.
      for channel in raw {
        try await withThrowingTaskGroup(of: Void.self) { group in
          group.addTask { try await channel.closeFuture.get() }
          group.addTask {
            try await Task.sleep(for: .seconds(10))
            throw TestClientError.timeout
          }
          try await group.next()
          group.cancelAll()
        }
      }
    }
  }
}
