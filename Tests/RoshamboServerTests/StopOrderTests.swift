import Logging
import NIOConcurrencyHelpers
import RoshamboHistory
import RoshamboJournal
import RoshamboOperations
import ServiceLifecycle
import Testing

@testable import RoshamboServer

/// The order a server's parts stop in, as its one `ServiceGroup` stops them.
@Suite("A server's parts stop in the group's order")
struct StopOrderTests {
  /// Runs a part and records its name once its `run()` has returned (it has stopped).
  struct Recorded: Service {
    let part: any Service
    let name: String
    let stopped: NIOLockedValueBox<[String]>

    func run() async throws {
      defer { stopped.withLockedValue { $0.append(name) } }
      try await part.run()
    }
  }

  @Test(
    "asked to stop: the listener, then the drain, the shipper, the fleet link, the operations endpoint, the hub, the journal, and Agones last",
    .timeLimit(.minutes(5)))
  func stopOrder() async throws {
    let sdk = try AgonesSDKStandIn(name: "roshambo-order")
    defer { sdk.close() }
    var configuration = testConfiguration(dataDirectory: temporaryDataDirectory())
    configuration.operationsAddress = ("127.0.0.1", 0)
    configuration.agonesPort = sdk.port
    // Nothing listens on port 1: the shipper keeps trying, as while PostgreSQL is down.
    configuration.historyAddress = try HistoryAddress(
      parsing: "postgres://roshambo@127.0.0.1:1/roshambo")
    var logger = Logger(label: "test.stop-order")
    logger.logLevel = .critical
    let server = try await MonitoredServer.bind(
      configuration, logger: logger, storage: JournalStorage.shippingHistory)
    let stopped = NIOLockedValueBox<[String]>([])
    let parts = server.services().map { part in
      var recorded = part
      recorded.service = Recorded(part: part.service, name: part.serviceName, stopped: stopped)
      return recorded
    }
    let group = ServiceGroup(configuration: .init(services: parts, logger: logger))
    async let running: Void = group.run()
    // Running: the fleet link has said Ready.
    while !sdk.calls.contains(where: { $0.line == "POST /ready" }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    server.server.requestStop(drainingWithin: .seconds(60))
    try await running
    #expect(
      stopped.withLockedValue { $0 } == [
        "stop requests", "game listener", "drain", "history shipper", "Agones link",
        "operations endpoint", "hub", "journal", "Agones farewell",
      ])
    #expect(sdk.calls.last?.line == "POST /shutdown")
  }
}
