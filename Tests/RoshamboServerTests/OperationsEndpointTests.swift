import Foundation
import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboJournal
@testable import RoshamboOperations
@testable import RoshamboServer

/// A TCP socket connected to 127.0.0.1:`port` (blocking), or nil.
func loopbackSocket(port: Int) -> Int32? {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard connected == 0 else {
    close(fd)
    return nil
  }
  return fd
}

/// Sends `request` to 127.0.0.1:`port` on a thread of its own and returns all it read
/// until the other side closed, or until `within` passed: an answer that never ends (a
/// stream, where a refusal was expected) is cut then, so that the test fails instead of
/// hanging.
func loopbackExchange(
  port: Int, _ request: [UInt8], within: Duration = .seconds(15)
) async throws -> String {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      guard let fd = loopbackSocket(port: port) else {
        return continuation.resume(throwing: POSIXError(.ECONNREFUSED))
      }
      defer { close(fd) }
      var timeout = timeval(tv_sec: 1, tv_usec: 0)
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      var received: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65_536)
      let deadline = ContinuousClock.now + within
      while ContinuousClock.now < deadline {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { continue }
        if count <= 0 { break }
        received += buffer[0..<count]
      }
      continuation.resume(returning: String(decoding: received, as: UTF8.self))
    }
  }
}

/// A plain HTTP/1.1 request to 127.0.0.1:`port`; the status and the body (`raw` replaces
/// the whole request).
func httpRequest(
  port: Int, path: String, method: String = "GET", raw: [UInt8]? = nil
) async throws -> (status: Int, body: String) {
  let request =
    raw ?? Array("\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
  let text = try await loopbackExchange(port: port, request)
  let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
  let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
  return (status ?? 0, body)
}

func samples(_ exposition: String) -> [String: Double] { ServerStatus.samples(exposition) }

/// The operations port on a real server: counters that move by exactly what happened in
/// a match over TLS, health that follows the journal, and HTTP that is refused without
/// touching the game.
@Suite("The operations endpoint", .serialized)
struct OperationsEndpointTests {
  func configuration(_ data: String) -> ServerConfiguration {
    var configuration = testConfiguration(dataDirectory: data)
    configuration.operationsAddress = ("127.0.0.1", 0)
    configuration.journalRetryMillis = 50
    configuration.roomSettings = RoomState.Settings(bestOf: 1)
    return configuration
  }

  @Test("a match over TLS moves the counters by exactly what happened")
  func countsAMatch() async throws {
    try await withServer(configuration(temporaryDataDirectory())) { server in
      let port = try #require(server.operations?.port)
      let before = samples(try await httpRequest(port: port, path: "/metrics").body)
      #expect(before["roshambo_matches_finished_total{forfeit=\"false\",fair=\"false\"}"] == 0)
      #expect(
        before[
          "roshambo_build_info{version=\"\(RoshamboVersion.number)\",protocol=\"1\",commit=\"unknown\"}"
        ] == 1)

      let (alice, bob) = try await seatTwo(port: server.port)
      // A pick for the wrong round is refused, and counted by its code.
      let refused = try await pick(alice, round: 5, .rock, id: 7)
      #expect(refused?.code == .wrongRound)
      let during = samples(try await httpRequest(port: port, path: "/metrics").body)
      #expect(during["roshambo_players_seated"] == 2)
      #expect(during["roshambo_rooms{phase=\"choosing\"}"] == 1)
      #expect(during["roshambo_connections_open"] == 2)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      let after = samples(try await httpRequest(port: port, path: "/metrics").body)
      #expect(after["roshambo_actions_refused_total{code=\"wrong_round\"}"] == 1)
      #expect(after["roshambo_matches_finished_total{forfeit=\"false\",fair=\"false\"}"] == 1)
      #expect(after["roshambo_rounds_resolved_total"] == 1)
      #expect(after["roshambo_rooms{phase=\"over\"}"] == 1)
      #expect(after["roshambo_connections_accepted_total"] == 2)
      // Two hellos and two picks accepted.
      #expect(after["roshambo_actions_accepted_total"] == 4)
      #expect((after["roshambo_journal_commit_seconds_count"] ?? 0) >= 1)
      #expect((after["roshambo_journal_bytes"] ?? 0) > 0)
      // The stall profile: each commit's wait and its sealed → sent, the hub's sends.
      #expect((after["roshambo_journal_wait_seconds_count"] ?? 0) >= 1)
      #expect((after["roshambo_commit_to_send_seconds_count"] ?? 0) >= 1)
      #expect((after["roshambo_hub_step_seconds_count{step=\"send\"}"] ?? 0) >= 1)
      // The loop's lag is sampled every 50 ms: wait (up to 10 s) for a sample.
      var lagSamples = after["roshambo_loop_lag_seconds_count"] ?? 0
      for _ in 0..<200 where lagSamples == 0 {
        try await Task.sleep(for: .milliseconds(50))
        let text = try await httpRequest(port: port, path: "/metrics").body
        lagSamples = samples(text)["roshambo_loop_lag_seconds_count"] ?? 0
      }
      #expect(lagSamples > 0, "the loop's lag was never sampled")
      // Nothing private is in a scrape.
      let text = try await httpRequest(port: port, path: "/metrics").body
      for secret in ["Alice", "Bob", "rock", "scissors", alice.token!, bob.token!] {
        #expect(!text.contains(secret), "\(secret) in the metrics")
      }
    }
  }

  @Test("health: live and ready; unready while the journal cannot be written, ready again after")
  func health() async throws {
    // The hub probes the journal again 3 s after a failed write (long enough to ask
    // /readyz in between, whatever the machine's load).
    var paused = configuration(temporaryDataDirectory())
    paused.journalRetryMillis = 3_000
    try await withServer(paused) { server in
      let port = try #require(server.operations?.port)
      #expect(try await httpRequest(port: port, path: "/livez") == (200, "ok\n"))
      #expect(try await httpRequest(port: port, path: "/readyz") == (200, "ready\n"))
      let (alice, bob) = try await seatTwo(port: server.port)
      try await server.withJournal { try $0.limitPagesToCurrent() }
      let refusal = try await drawUntilRefused(alice, bob, from: 1)
      #expect(refusal?.code == .unavailable)
      let unready = try await httpRequest(port: port, path: "/readyz")
      #expect(unready.status == 503)
      #expect(unready.body.contains("the journal cannot be written"))
      #expect(try await httpRequest(port: port, path: "/livez").status == 200)
      try await server.withJournal { try $0.limitPages(1_000_000) }
      // Ready again once the next probe writes.
      var ready = false
      for _ in 0..<200 where !ready {
        ready = try await httpRequest(port: port, path: "/readyz").status == 200
        if !ready { try await Task.sleep(for: .milliseconds(50)) }
      }
      #expect(ready, "never ready again once the journal could be written")
    }
  }

  @Test("roshambo-server status: the figures a host reads, from the endpoint")
  func status() async throws {
    try await withServer(configuration(temporaryDataDirectory())) { server in
      let port = try #require(server.operations?.port)
      let (alice, bob) = try await seatTwo(port: server.port)
      _ = try await playRound(alice, .rock, bob, .scissors, round: 1)
      let lines = try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
          do {
            let metrics = try OperationsClient.get(host: "127.0.0.1", port: port, path: "/metrics")
            let ready = try OperationsClient.get(host: "127.0.0.1", port: port, path: "/readyz")
            continuation.resume(
              returning: ServerStatus(metrics: metrics.body, readiness: (ready.status, ready.body))
                .lines)
          } catch {
            continuation.resume(throwing: error)
          }
        }
      }
      #expect(lines[0] == "ready: taking players")
      #expect(lines.contains("people: 2 seated, 0 watching, 0 in the lobby"))
      #expect(lines.contains("rooms: 0 playing, 0 waiting, 1 finished"))
      #expect(lines.contains("play: 1 round; 1 match finished (0 fair, 0 by forfeit)"))
      #expect(lines.contains("actions: 4 accepted; refused: none"), "\(lines)")
    }
  }

  @Test("status says what is wrong: nothing listening, a figure missing")
  func statusOffline() throws {
    #expect {
      try OperationsClient.get(host: "127.0.0.1", port: 1, path: "/metrics")
    } throws: { error in
      "\(error)".contains("nothing answers on 127.0.0.1:1")
    }
    let partial = ServerStatus(
      metrics: "roshambo_actions_refused_total{code=\"wrong_round\"} 3\n",
      readiness: (503, "not ready: the journal cannot be written (is the disk full?)\n"))
    #expect(
      partial.lines[0]
        == "NOT READY (503): not ready: the journal cannot be written (is the disk full?)")
    #expect(partial.lines.contains("people: ? seated, ? watching, ? in the lobby"))
    #expect(partial.lines.contains("actions: ? accepted; refused: wrong_round 3"))
    #expect(partial.lines.contains("game loop: not sampled yet"))
    // 200 samples, two of them over 5 ms late: the 99th percentile is under 5 ms.
    let lag = ServerStatus(
      metrics: """
        roshambo_loop_lag_seconds_bucket{le="0.001"} 150
        roshambo_loop_lag_seconds_bucket{le="0.005"} 198
        roshambo_loop_lag_seconds_bucket{le="1.0"} 200
        roshambo_loop_lag_seconds_bucket{le="+Inf"} 200
        """, readiness: (200, "ready\n"))
    #expect(lag.lines.contains("game loop: 99% of 200 samples ran under 5 ms late"), "\(lag.lines)")
    let stalled = ServerStatus(
      metrics: """
        roshambo_loop_lag_seconds_bucket{le="0.1"} 1
        roshambo_loop_lag_seconds_bucket{le="1.0"} 1
        roshambo_loop_lag_seconds_bucket{le="+Inf"} 4
        """, readiness: (200, "ready\n"))
    #expect(stalled.lines.contains("game loop: 99% of 4 samples ran over 1000 ms late"))
  }

  /// Opens a connection to `port`, sends a request's head announcing a large body, then
  /// a few bytes of the body every 200 ms (never the end) for at most 30 s; returns how
  /// long until the server closed the connection, or nil if it never did.
  func trickle(port: Int) async -> Duration? {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        guard let fd = loopbackSocket(port: port) else {
          return continuation.resume(returning: nil)
        }
        defer { close(fd) }
        let start = ContinuousClock.now
        var line = Array("POST /metrics HTTP/1.1\r\nContent-Length: 100000\r\n\r\n".utf8)
        while ContinuousClock.now - start < .seconds(30) {
          let sent = line.withUnsafeBytes {
            send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
          }
          var byte: UInt8 = 0
          let read = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
          if sent < 0 || read == 0 {
            return continuation.resume(returning: ContinuousClock.now - start)
          }
          line = Array("slow".utf8)
          usleep(200_000)
        }
        continuation.resume(returning: nil)
      }
    }
  }

  @Test("a client that sends a request slowly is closed at its deadline, however it trickles")
  func slowloris() async throws {
    var configuration = configuration(temporaryDataDirectory())
    configuration.limits.operationsRequestTimeoutMillis = 1_000
    try await withServer(configuration) { server in
      let port = try #require(server.operations?.port)
      let closedAfter = await trickle(port: port)
      let after = try #require(closedAfter, "a trickling request kept its connection 30 s")
      // Each trickle would put a deadline that restarted on every byte off for ever; the
      // bound is wide for a loaded machine, far below the 30 s of trickling.
      #expect(after >= .milliseconds(800) && after < .seconds(20), "closed after \(after)")
      #expect(try await httpRequest(port: port, path: "/livez").status == 200)
    }
  }

  @Test("/livez answers while more idle connections than the endpoint holds are open")
  func idleConnectionsDoNotStarveProbes() async throws {
    try await withServer(configuration(temporaryDataDirectory())) { server in
      let port = try #require(server.operations?.port)
      // Connected, never a byte sent: accepted in order, before the probes' connections.
      let idle = (0..<(OperationsEndpoint.maxConnections + 8)).compactMap {
        _ in loopbackSocket(port: port)
      }
      defer { for fd in idle { close(fd) } }
      #expect(idle.count == OperationsEndpoint.maxConnections + 8)
      for _ in 0..<3 {
        #expect(try await httpRequest(port: port, path: "/livez") == (200, "ok\n"))
      }
    }
  }

  @Test("bad HTTP is refused, and the game goes on")
  func badHTTP() async throws {
    try await withServer(configuration(temporaryDataDirectory())) { server in
      let port = try #require(server.operations?.port)
      #expect(try await httpRequest(port: port, path: "/admin").status == 404)
      #expect(try await httpRequest(port: port, path: "/metrics", method: "POST").status == 405)
      let huge = Array(
        ("GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: 200_000) + "\r\n\r\n").utf8)
      let refused = try await httpRequest(port: port, path: "/", raw: huge)
      #expect(refused.status == 0 || refused.status >= 400)
      #expect(
        try await httpRequest(port: port, path: "/", raw: Array("\u{1}\u{2}garbage\r\n\r\n".utf8))
          .status
          != 200)
      // The game answers meanwhile, and the port still serves.
      let (alice, bob) = try await seatTwo(port: server.port)
      _ = try await playRound(alice, .paper, bob, .rock, round: 1)
      #expect(try await httpRequest(port: port, path: "/livez").status == 200)
    }
  }
}

/// `roshambo-server status` against an endpoint that is not what it should be.
@Suite("roshambo-server status against a hostile endpoint")
struct HostileStatusTests {
  @Test("an endpoint's text is printed escaped: no escape sequence, bell or C1 code")
  func sanitized() {
    let status = ServerStatus(
      metrics: "roshambo_build_info{version=\"\u{1B}]52;c;eA==\u{07}\",commit=\"\u{9B}2J\"} 1\n"
        + "roshambo_actions_refused_total{code=\"\u{1B}[2J\"} 3\n",
      readiness: (503, "not ready: \u{1B}[2J\u{07}\u{202E}\u{9B}31m"))
    for line in status.lines {
      let unsafe = line.unicodeScalars.filter {
        $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x202E
      }
      #expect(unsafe.isEmpty, "\(line.debugDescription)")
    }
  }

  @Test("an endpoint that answers a byte at a time is given up on after 5 s")
  func trickle() async throws {
    let bound = try #require(LoopbackSocket.bound(listening: true))
    let listener = bound.descriptor
    defer { close(listener) }
    let port = bound.port
    // The stand-in: a status line, then a byte every 200 ms until the client hangs up (or
    // 60 s pass, when a client without a deadline would read it to its end).
    Thread.detachNewThread {
      let fd = accept(listener, nil, nil)
      defer { close(fd) }
      let start = ContinuousClock.now
      var bytes = Array("HTTP/1.1 200 OK\r\n\r\nready".utf8)
      while ContinuousClock.now - start < .seconds(60) {
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent < 0 { return }
        bytes = Array(".".utf8)
        usleep(200_000)
      }
    }
    let start = ContinuousClock.now
    let outcome: Result<Int, OperationsClient.Failure> = await withCheckedContinuation {
      continuation in
      Thread.detachNewThread {
        continuation.resume(
          returning: Result { () throws(OperationsClient.Failure) -> Int in
            try OperationsClient.get(host: "127.0.0.1", port: port, path: "/readyz").status
          })
      }
    }
    let took = ContinuousClock.now - start
    guard case .failure(let failure) = outcome else {
      Issue.record("a trickling endpoint was read to its end, after \(took)")
      return
    }
    #expect(failure.description.contains("did not answer within 5 s"), "\(failure)")
  }
}
