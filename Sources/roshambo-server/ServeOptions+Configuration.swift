import ArgumentParser
import Foundation
import Logging
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS

// The one place `serve`'s flags become what the server runs with: the checks
// (`validate()`, which ArgumentParser runs on parsing), the `ServerConfiguration`, and the
// `ServerApplication` around it. Nothing here touches a socket or a file.

extension ServeOptions {
  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
    if let board, !(0...65_535).contains(board) {
      throw ValidationError("--board must be a port from 0 to 65535, not \(board).")
    }
    guard (1...4_096).contains(boardViewers) else {
      throw ValidationError("--board-viewers must be 1 to 4096, not \(boardViewers).")
    }
    guard bestOf >= 1, bestOf <= 99, bestOf % 2 == 1 else {
      throw ValidationError("--best-of must be an odd number from 1 to 99, not \(bestOf).")
    }
    guard roundSeconds >= 0, roundSeconds <= 86_400 else {
      throw ValidationError("--round-seconds must be from 0 (no limit) to 86400.")
    }
    guard graceSeconds >= 0, graceSeconds <= 86_400 else {
      throw ValidationError("--grace-seconds must be from 0 to 86400.")
    }
    guard (0...Tournament.maxEntrants).contains(tournamentPlayers) else {
      throw ValidationError(
        "--tournament-players must be from 0 (start by time) to \(Tournament.maxEntrants).")
    }
    guard
      tournamentNext == "off" || Double(tournamentNext).map({ (0...86_400).contains($0) }) == true
    else {
      throw ValidationError("--tournament-next must be 0 to 86400 seconds, or off.")
    }
    guard (0...86_400).contains(tournamentStart), (0...3_600).contains(tournamentPause) else {
      throw ValidationError(
        "--tournament-start must be 0 to 86400 seconds and --tournament-pause 0 to 3600.")
    }
    guard (1...1_000).contains(namesPerKey), (0...36_500).contains(nameLapseDays),
      (0...100_000).contains(newKeysPerAddress)
    else {
      throw ValidationError(
        "--names-per-key must be 1 to 1000, --name-lapse-days 0 to 36500 (0: for ever) "
          + "and --new-keys-per-address 0 to 100000 (0: any).")
    }
    guard (0...1_000).contains(leaderboardOpponents) else {
      throw ValidationError(
        "--leaderboard-opponents must be 0 to 1000 (0 lists everyone who played); "
          + "got \(leaderboardOpponents)")
    }
    guard (0...Tournament.maxEntrants).contains(tournamentEntriesPerAddress) else {
      throw ValidationError(
        "--tournament-entries-per-address must be from 0 (any) to \(Tournament.maxEntrants).")
    }
    guard maxConnections >= 1 else {
      throw ValidationError("--max-connections must be at least 1.")
    }
    guard maxConnectionsPerAddress >= 1 else {
      throw ValidationError("--max-connections-per-address must be at least 1.")
    }
    guard (1...600).contains(helloSeconds) else {
      throw ValidationError("--hello-seconds must be from 1 to 600, not \(helloSeconds).")
    }
    guard (0...100_000).contains(messagesPerSecond) else {
      throw ValidationError(
        "--messages-per-second must be from 0 (no limit) to 100000, not \(messagesPerSecond).")
    }
    guard (5...86_400).contains(idleSeconds) else {
      throw ValidationError("--idle-seconds must be from 5 to 86400, not \(idleSeconds).")
    }
    if let historyURL {
      do {
        _ = try HistoryAddress(parsing: historyURL)
      } catch {
        throw ValidationError("--history-url is refused: \(error).")
      }
      if ephemeral { throw ValidationError("--history-url needs a journal (not --ephemeral).") }
    }
    if let given = ProcessInfo.processInfo.environment["AGONES_SDK_HTTP_PORT"],
      !(Int(given).map { (1...65_535).contains($0) } ?? false)
    {
      throw ValidationError(
        "AGONES_SDK_HTTP_PORT is \"\(given.prefix(20))\"; it must be a port, 1 to 65535.")
    }
    if let drainSeconds, !(0...3_600).contains(drainSeconds) {
      throw ValidationError("--drain-seconds must be from 0 to 3600, not \(drainSeconds).")
    }
    guard keepMatches >= 1 else { throw ValidationError("--keep-matches must be at least 1.") }
    if durability == .power, ephemeral {
      throw ValidationError("--durability power needs a journal (not --ephemeral).")
    }
    if let name, case .failure(let problem) = PlayerName.normalize(name) {
      throw ValidationError("--name is refused: \(problem).")
    }
    guard (1...256).contains(threads) else {
      throw ValidationError("--threads must be from 1 to 256, not \(threads).")
    }
  }

  /// The flags as the server's configuration. `--max-connections` is taken as asked:
  /// ``ServerApplication/run()`` fits it to the open-file limit.
  ///
  /// Throws the `ValidationError` that ``validate()`` throws, naming the flag, when the
  /// flags do not make a configuration.
  func configuration() throws -> ServerConfiguration {
    try validate()
    let development = DevelopmentCertificates.Files(directory: "certs")
    var configuration = ServerConfiguration(
      certificateChainFile: cert ?? development.serverCertificate,
      privateKeyFile: key ?? development.serverKey,
      dataDirectory: ephemeral ? nil : dataDir)
    configuration.host = host
    configuration.port = port
    configuration.allowTLS12 = allowTLS12
    // At debug level the hub measures its loop's stalls and logs them every 10 s.
    configuration.profileStalls = logLevel <= .debug
    configuration.tlsAdvice = Self.advice(for:)
    configuration.threads = threads
    configuration.roomSettings = RoomState.Settings(
      ruleset: ruleset, bestOf: bestOf,
      roundMillis: Int64(roundSeconds * 1000), graceMillis: Int64(graceSeconds * 1000),
      fair: fair)
    configuration.limits.maxConnections = maxConnections
    configuration.limits.maxConnectionsPerAddress = maxConnectionsPerAddress
    configuration.limits.idleTimeoutSeconds = Int64(idleSeconds)
    configuration.limits.framesPerSecond = messagesPerSecond == 0 ? .max : messagesPerSecond
    configuration.limits.frameBurst = messagesPerSecond == 0 ? .max : 2 * messagesPerSecond
    configuration.limits.helloTimeoutSeconds = Int64(helloSeconds)
    configuration.limits.handshakeTimeoutSeconds = max(
      Self.defaults.limits.handshakeTimeoutSeconds, Int64(helloSeconds) / 2)
    configuration.keepMatches = keepMatches
    configuration.durability = durability
    configuration.tournament = tournament
    configuration.tournamentPlayers = tournamentPlayers
    configuration.tournamentEntriesPerAddress = tournamentEntriesPerAddress
    configuration.tournamentStartMillis = Int64(tournamentStart * 1000)
    configuration.tournamentPauseMillis = Int64(tournamentPause * 1000)
    configuration.releasedNames = releasedNames
    configuration.ratesSameAddress = ratedSameAddress
    configuration.listedOpponents = leaderboardOpponents
    configuration.namesPerIdentity = namesPerKey
    configuration.nameLapseDays = nameLapseDays
    configuration.newIdentitiesPerAddress = newKeysPerAddress
    configuration.tournamentNextMillis =
      tournamentNext == "off" ? nil : Double(tournamentNext).map { Int64($0 * 1000) }
    // In a fleet the allocator routes players; announcing would offer one server of many.
    if !noAnnounce, agonesPort == nil { configuration.announceName = announcedName }
    configuration.sourceCommit = sourceCommit
    // The party's news for the host, in sentences (the key=value log is --log-level's);
    // none for `roshambo play --vs-bot`, which reads only the "listening on" line.
    if !ephemeral {
      configuration.news = { sentence in
        print(sentence)
        fflush(nil)
      }
    }
    configuration.operationsAddress = metricsAddress.map { ($0.host, $0.port) }
    configuration.feedsBoard = board != nil
    configuration.historyAddress = try historyURL.map { url in
      do {
        return try HistoryAddress(parsing: url)
      } catch {
        throw ValidationError("--history-url is refused: \(error).")
      }
    }
    configuration.agonesPort = agonesPort
    // --drain-seconds stands for whichever signal starts the drain.
    if let drainSeconds {
      configuration.drainLimitOnTerminate = .milliseconds(Int64(drainSeconds * 1_000))
      configuration.drainLimitOnInterrupt = configuration.drainLimitOnTerminate
    }
    return configuration
  }

  /// The server these flags describe, logging to `logger`: the configuration, the storage
  /// `roshambo-server` keeps its journal in, and what it prints once it listens.
  func application(logger: Logger) throws -> ServerApplication {
    let configuration = try configuration()
    let development = DevelopmentCertificates.Files(directory: "certs")
    var banner = ServerBanner(configuration, caFile: cert == nil ? development.caCertificate : nil)
    banner.boardHost = board == nil ? nil : boardHost ?? host
    return ServerApplication(
      configuration: configuration, logger: logger, storage: JournalStorage.shippingHistory,
      banner: banner,
      developmentCertificates: cert == nil && key == nil ? development : nil,
      journalToRecover: recover ? dataDir : nil,
      stopsWhenStandardInputCloses: ephemeral,
      board: board.map {
        ServerApplication.Board(host: boardHost ?? host, port: $0, viewers: boardViewers)
      })
  }

  /// Sends this process's log lines at `--log-level` and above to standard error, and
  /// returns the server's logger. Once per process: a second call traps.
  func startLogging() -> Logger {
    let level = logLevel
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    return Logger(label: "roshambo.server")
  }

  /// What the host can do about a client's failed handshake, in the words of the flags.
  private static func advice(for error: TLSError) -> String? {
    switch error.kind {
    case .protocolVersion:
      "a client offered only TLS 1.2; start the server with --allow-tls12 to accept it"
    case .notTLS:
      "something that does not speak TLS connected; point players at this port with roshambo"
    case .untrustedIssuer:
      "the client does not trust this certificate; give players the ca.pem next to it, or "
        + "the fingerprint printed at start for --pin"
    default: nil
    }
  }
}
