import Foundation
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import Testing

@testable import RoshamboOperations
@testable import RoshamboServer

/// The server under Agones, against a stand-in SDK server (``AgonesSDKStandIn``) that
/// follows Agones' REST API and records the calls.
@Suite("Agones: the SDK server beside the game", .serialized)
struct AgonesLinkTests {
  /// Waits (up to 15 s) until the stand-in has received calls satisfying `condition`.
  func eventually(_ sdk: AgonesSDKStandIn, _ what: String, _ condition: ([String]) -> Bool)
    async throws
  {
    for _ in 0..<150 {
      if condition(sdk.calls.map(\.line)) { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    Issue.record("never: \(what); calls: \(sdk.calls.map(\.line))")
  }

  @Test(
    "Ready (retried while the sidecar starts late), Health, Counters, no Health while the loop is stuck, Shutdown last",
    .timeLimit(.minutes(5)))
  func lifecycle() async throws {
    // The sidecar's port is chosen, but nothing listens there when the server starts.
    let port = try PostgresProcess.freePort()
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.agonesPort = port
    let server = try await ServedServer.start(
      configuration, logger: .init(label: "test"), storage: JournalStorage.shippingHistory)
    try await Task.sleep(for: .milliseconds(600))  // a try or two find nothing there
    let sdk = try AgonesSDKStandIn(port: port)
    defer { sdk.close() }
    // Health, then the two counters: separate calls, so the last of them is waited for.
    try await eventually(sdk, "Ready, a Health and both counters") { _ in
      sdk.calls.contains { $0.line == "POST /health" }
        && sdk.calls.contains { $0.line == "PATCH /v1beta1/counters/rooms" }
    }
    let first = sdk.calls
    #expect(first.first?.line == "PUT /metadata/label")
    #expect(first.first?.body.contains(#""key":"version""#) == true)
    #expect(
      first.map(\.line).firstIndex(of: "POST /ready")! < first.map(\.line).firstIndex(
        of: "POST /health")!)
    #expect(first.filter { $0.line == "POST /ready" }.count == 1)
    #expect(
      first.contains {
        $0.line == "PATCH /v1beta1/counters/players" && $0.body == #"{"count":"0"}"#
      })
    #expect(
      first.contains {
        $0.line == "PATCH /v1beta1/counters/rooms" && $0.body == #"{"count":"0"}"#
      })

    // Two players seated in one room: the counters follow.
    let (alice, bob) = try await seatTwo(port: server.port)
    // Players, then rooms: two calls one after the other, so both are waited for.
    try await eventually(sdk, "players 2 and rooms 1") { _ in
      sdk.calls.contains { $0.path == "/v1beta1/counters/players" && $0.body == #"{"count":"2"}"# }
        && sdk.calls.contains {
          $0.path == "/v1beta1/counters/rooms" && $0.body == #"{"count":"1"}"#
        }
    }

    // The game's loop held for 5 s: no Health while it is stuck.
    let before = sdk.calls.filter { $0.line == "POST /health" }.count
    server.holdGameLoop(for: .seconds(5))
    try await Task.sleep(for: .seconds(4))
    let during = sdk.calls.filter { $0.line == "POST /health" }.count
    #expect(during - before <= 1, "Health went on while the loop was stuck")
    try await eventually(sdk, "Health again once the loop answers") { lines in
      lines.filter { $0 == "POST /health" }.count > during
    }

    try await server.drainAndStop(within: .zero)
    #expect(sdk.calls.last?.line == "POST /shutdown")
    _ = (alice, bob)
  }

  @Test(
    "a sidecar that stops answering after Ready: the stop waits for it 5 s at most",
    .timeLimit(.minutes(5)))
  func hangingSidecar() async throws {
    // Ready and the label are answered; every later call hangs (each would end only at
    // its own 5 s limit).
    let sdk = try AgonesSDKStandIn(holds: { !["/ready", "/metadata/label"].contains($0.path) })
    defer { sdk.close() }
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.agonesPort = sdk.port
    let server = try await ServedServer.start(
      configuration, logger: .init(label: "test"), storage: JournalStorage.shippingHistory)
    try await eventually(sdk, "a Health call, left hanging") { $0.contains("POST /health") }
    let started = ContinuousClock.now
    try await server.drainAndStop(within: .zero)
    let took = ContinuousClock.now - started
    #expect(took < AgonesLink.shutdownPatience + .milliseconds(1_500), "\(took)")
  }
}
