import Foundation
import Logging
import RoshamboClient
import RoshamboGame
import RoshamboServer
import RoshamboTLS
import Testing

enum ClientTestCertificates {
  static let files: DevelopmentCertificates.Files = try! DevelopmentCertificates.create(
    in: NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/certs", hosts: ["127.0.0.1"])
}

let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

@Suite("Bots against a real server", .serialized)
struct BotMatchTests {
  @Test("two bots in one process finish their matches through real TLS")
  @MainActor
  func inProcess() async throws {
    var configuration = ServerConfiguration(
      certificateChainFile: ClientTestCertificates.files.serverCertificate,
      privateKeyFile: ClientTestCertificates.files.serverKey, dataDirectory: nil)
    configuration.host = "127.0.0.1"
    configuration.port = 0
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    let server = try await GameServer.start(configuration, logger: logger)
    let tls = try TLSContext(.client(trust: .caFile(ClientTestCertificates.files.caCertificate)))
    var bots: [Bot] = []
    var runs: [Task<Void, Never>] = []
    for strategy in [BotStrategy.frequency, .markov] {
      let connection = try await ServerConnection.connect(
        host: "127.0.0.1", port: server.port, tls: tls)
      let session = ClientSession(connection: connection)
      let bot = Bot(session: session, strategy: strategy, matches: 3) { _ in }
      bot.start()
      session.join(name: strategy.rawValue, room: "arena")
      bots.append(bot)
      runs.append(Task { @MainActor in _ = await session.run() })
    }
    for run in runs { await run.value }
    #expect(bots.map(\.tally.matches) == [3, 3])
    #expect(bots[0].tally.matchesWon == bots[1].tally.matchesLost)
    #expect(bots[0].tally.roundsWon == bots[1].tally.roundsLost)
    try await server.stop()
  }

  @Test("roshambo-server and two roshambo bot processes finish a match")
  func executables() throws {
    let bin = repositoryRoot + "/.build/debug/"
    let directory =
      NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/exe-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: bin + "roshambo-server")
    server.arguments = [
      "--host", "127.0.0.1", "--port", "0", "--data-dir", "data", "--log-level", "error",
    ]
    server.currentDirectoryURL = URL(fileURLWithPath: directory)
    let out = Pipe()
    server.standardOutput = out
    try server.run()
    var printed = ""
    while !printed.contains("listening on") {
      let data = out.fileHandleForReading.availableData
      if data.isEmpty { throw CocoaError(.fileReadUnknown) }
      printed += String(decoding: data, as: UTF8.self)
    }
    let port = printed.split(separator: "\n").first { $0.contains("listening on") }!
      .split(separator: " ").first { $0.contains(":") }!.split(separator: ":").last!
    let bots = try ["random", "cycle"].map { strategy in
      let bot = Process()
      bot.executableURL = URL(fileURLWithPath: bin + "roshambo")
      bot.arguments = [
        "bot", "--port", String(port), "--strategy", strategy, "--room", "duel", "--name", strategy,
      ]
      bot.currentDirectoryURL = URL(fileURLWithPath: directory)  // trusts certs/ca.pem there
      let pipe = Pipe()
      bot.standardOutput = pipe
      bot.standardError = pipe
      try bot.run()
      return (bot, pipe)
    }
    for (bot, pipe) in bots {
      let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      bot.waitUntilExit()
      #expect(bot.terminationStatus == 0, "\(text)")
      #expect(text.contains("round 1: "))
      #expect(text.contains("1 matches: "))
    }
    server.terminate()
    server.waitUntilExit()
    #expect(server.terminationStatus == 0)
  }
}
