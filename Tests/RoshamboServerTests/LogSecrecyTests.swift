import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboServer
import Testing

/// Keeps every log line, at every level, as text.
struct CapturingLogHandler: LogHandler {
  let lines: LogLines
  var logLevel: Logger.Level = .trace
  var metadata: Logger.Metadata = [:]

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let all = metadata.merging(event.metadata ?? [:]) { $1 }
    lines.append("\(event.level) \(event.message) \(all.map { "\($0)=\($1)" }.sorted())")
  }
}

final class LogLines: Sendable {
  private let lines = NIOLockedValueBox<[String]>([])
  func append(_ line: String) { lines.withLockedValue { $0.append(line) } }
  var text: String { lines.withLockedValue { $0.joined(separator: "\n") } }
}

@Suite("Server: logs", .serialized)
struct LogSecrecyTests {
  @Test("no log line, at any level, holds a pick before its round resolves")
  func noPickInLogs() async throws {
    let lines = LogLines()
    var configuration = ServerConfiguration(
      certificateChainFile: TestCertificates.files.serverCertificate,
      privateKeyFile: TestCertificates.files.serverKey, dataDirectory: temporaryDataDirectory())
    configuration.host = "127.0.0.1"
    configuration.port = 0
    try await withServer(
      configuration, logger: Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
    ) { server in
      let (alice, bob) = try await seatTwo(port: server.port)
      bob.send(.choose(round: 1, weapon: .scissors, id: nil))
      _ = try await alice.state { $0.player(.two)?.chosen == true }
      let before = lines.text
      #expect(before.contains("chose"), "the pick itself is logged, without the weapon")
      #expect(!before.contains("scissors"))
      alice.send(.choose(round: 1, weapon: .rock, id: nil))
      _ = try await alice.state { $0.history.count == 1 }
    }
    #expect(lines.text.contains("scissors"), "once resolved, the round is logged with both picks")
  }
}
