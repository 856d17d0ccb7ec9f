import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits
import UnixSignals

@main
struct RoshamboServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "roshambo-server",
    abstract: "The authoritative Roshambo game server.",
    discussion: """
      Holds every room of rock-paper-scissors, reduces what players send, and sends each \
      player the state their seat may see, over TLS 1.3 (port 7443 by default). Results \
      are saved in an SQLite journal before anyone sees them, so a restarted server \
      resumes every match; players take their seats back with their resume tokens.

      With no certificate options, the server uses certs/server.pem and \
      certs/server-key.pem, and creates them (with the game's own CA in certs/ca.pem) \
      when they do not exist.

      Prints a line containing "listening on" with the address, then how players on other \
      machines join. SIGINT or SIGTERM stops it cleanly: no new connections, everything \
      saved, every connection closed with TLS close_notify, exit status 0.
      """,
    version: RoshamboVersion.description(commit: sourceCommit),
    subcommands: [History.self, ReplayJournal.self, Status.self, Serve.self])

  @OptionGroup var options: ServeOptions

  func run() async throws { try await options.serve() }
}

/// `roshambo-server serve`: the same as no subcommand, for scripts that name it.
struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run the server (the same as giving no subcommand).", shouldDisplay: false)

  @OptionGroup var options: ServeOptions

  func run() async throws { try await options.serve() }
}

/// `--ruleset` and `--log-level` take these by name; help and errors list every one.
extension Ruleset.ID: ExpressibleByArgument {}
extension Tournament.Kind: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Prints one line to standard error, prefixed with the program's name.
func complain(_ message: String) {
  FileHandle.standardError.write(Data("roshambo-server: \(message)\n".utf8))
}

/// What `roshambo-server` runs with: where to listen, its certificate, its data, how
/// rooms play and its limits.
struct ServeOptions: ParsableArguments {
  @Option(help: "The address to listen on.")
  var host = "0.0.0.0"

  @Option(help: "The TCP port; 0 picks a free one and prints it.")
  var port = 7443

  @Option(help: ArgumentHelp("The certificate chain, PEM (leaf first).", valueName: "file"))
  var cert: String?

  @Option(help: ArgumentHelp("The certificate's private key, PEM.", valueName: "file"))
  var key: String?

  @Option(help: ArgumentHelp("Where the journal (roshambo.sqlite) is kept.", valueName: "dir"))
  var dataDir = "data"

  @Option(help: "Rounds in a match: an odd number from 1 to 99.")
  var bestOf = 3

  @Option(help: "classic (rock, paper, scissors) or lizardSpock (adds lizard and Spock).")
  var ruleset = Ruleset.ID.classic

  @Option(help: "Seconds a round may last before missing picks lose it; 0 for no limit.")
  var roundSeconds: Double = 0

  @Flag(
    help: ArgumentHelp(
      "Make every new room fair: rounds are played by commit–reveal.",
      discussion: """
        Each player first sends a SHA-256 commitment to a weapon and a random nonce, and \
        reveals both once the opponent has committed; every client checks every round, so \
        the server (and whoever hosts it) never knows a weapon before both players are \
        bound to theirs. Clients older than 1.2 cannot join fair rooms. Without it, a \
        player may still ask for a fair named room (roshambo play --fair --room NAME).
        """))
  var fair = false

  @Option(help: "Seconds a dropped player's seat is held for them to come back.")
  var graceSeconds: Double = 30

  @Option(
    help: ArgumentHelp(
      "Connections allowed at once; more are refused with server_full.",
      discussion: """
        Each connection is an open file: at start the server raises its open-file limit \
        as far as the system allows, and takes fewer connections (saying so) if this many \
        still do not fit.
        """))
  var maxConnections = 10_000

  @Option(
    help: ArgumentHelp(
      "Connections one IP address (an IPv6 address: its /64) may hold at once.",
      discussion: """
        Checked the moment a connection arrives, before TLS: more from the address are \
        refused (the first few are told server_full, the rest closed at once). One \
        address may also have at most this many TLS handshakes under way, and no more \
        than 256. Players behind one NAT share an address: raise it for a LAN party \
        behind one router, or for load tests.
        """))
  var maxConnectionsPerAddress = 64

  @Option(help: "Seconds without a complete message before a connection is closed.")
  var idleSeconds = 60

  @Option(help: "Finished matches kept for `history` (the leaderboard keeps every total).")
  var keepMatches = 10_000

  @Option(
    help: ArgumentHelp(
      "Serve /metrics, /livez and /readyz over plain HTTP on this address (off by default).",
      discussion: """
        For Prometheus and health checks: HOST:PORT, e.g. 127.0.0.1:9464 (a port of its \
        own, never the game's). Metrics say how the server is doing, never a pick or a \
        name; bind it to loopback, or to an address only your monitoring reaches. See \
        docs/OPERATIONS.md.
        """, valueName: "host:port"))
  var metricsAddress: OperationsAddress?

  @Option(
    help: ArgumentHelp(
      "Ship every finished match to a PostgreSQL database shared by a fleet of servers.",
      discussion: """
        postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require] (the password \
        may come from PGPASSWORD instead). The journal keeps each match until the \
        database has it, so play never waits for it and nothing is lost while it is \
        down; the tables are made on first use. Needs --data-dir. See docs/OPERATIONS.md.
        """, valueName: "url"))
  var historyURL: String?

  @Flag(
    help: ArgumentHelp(
      "Run as an Agones GameServer (also when AGONES_SDK_HTTP_PORT is set).",
      discussion: """
        Tells the Agones SDK server beside it (127.0.0.1, port AGONES_SDK_HTTP_PORT or \
        9358) that it is Ready once it listens, Health every 2 s while the game's loop \
        answers, the Counters `players`, `rooms` and `waiting` and the List `rooms` (what \
        `roshambo play --allocator` is routed by), and Shutdown when it stops (after its \
        drain); it drains when Agones sets the GameServer to Shutdown. Implies \
        --no-announce: in a fleet, players find servers through the allocator. See \
        docs/OPERATIONS.md.
        """))
  var agones = false

  /// The Agones SDK server's port, when the server runs under Agones.
  var agonesPort: Int? {
    let environment = ProcessInfo.processInfo.environment["AGONES_SDK_HTTP_PORT"]
    guard agones || environment != nil else { return nil }
    return environment.flatMap(Int.init) ?? 9358
  }

  /// `--history-url`, parsed (``validate()`` refused a bad one).
  var historyAddress: HistoryAddress? { historyURL.flatMap { try? HistoryAddress(parsing: $0) } }

  @Option(
    help: ArgumentHelp(
      "Seconds a stopping server lets the matches under way finish (SIGTERM: 30, SIGINT: 5).",
      discussion: """
        On SIGTERM or SIGINT the server drains before it stops: it takes no new \
        connections, stops announcing itself, tells every player it is closing and when, \
        and starts no new match; it stops as soon as no match is under way, or when this \
        time is up. A match still unfinished then is saved, and resumes when the server \
        starts again. A second signal stops it at once. 0 stops without waiting.
        """, valueName: "seconds"))
  var drainSeconds: Double?

  @Option(
    help: ArgumentHelp(
      "Run a tournament for the lobby: round-robin, single-elimination or swiss.",
      discussion: """
        Opened when the server starts with no tournament in its journal. Players enter \
        from the lobby (key t on its screen, or `roshambo bot --tournament`); entries \
        close --tournament-start seconds after the second entry, or as soon as \
        --tournament-players have entered. The server pairs each round, seats the pairs \
        in rooms cup-N-R-M (best of --best-of, the --ruleset, fair with --fair), gives \
        byes on odd counts, and pairs the next round --tournament-pause seconds after \
        the last match of a round ends; a player who does not come forfeits after the \
        grace period. The lobby shows the standings and the pairings.
        """))
  var tournament: Tournament.Kind?

  @Option(help: "Start the tournament as soon as this many have entered (0: by time only).")
  var tournamentPlayers = 0

  @Option(help: "Seconds after the second entry that the tournament starts.")
  var tournamentStart = 60.0

  @Option(help: "Seconds between a tournament round's end and the next round.")
  var tournamentPause = 3.0

  @Option(
    help: ArgumentHelp(
      "Seconds after a tournament ends that the next one opens for entries (off: none).",
      discussion: """
        The next tournament is of the same kind and settings, on the same journal: its \
        rooms are numbered on (cup-2-…) and the leaderboard and history carry on. With \
        off, the server must be restarted for another.
        """, valueName: "seconds|off"))
  var tournamentNext = "60"

  @Option(
    help: ArgumentHelp(
      "Tournament entries one IP address (an IPv6 address: its /64) may have (0: any).",
      discussion: """
        A player identity costs nothing to make, so one machine could enter any number \
        of names; more entries from the address are refused. Players behind one NAT \
        address share it: for a party behind one router, or several players on this \
        machine, raise it (or 0).
        """))
  var tournamentEntriesPerAddress = ServerConfiguration.defaultTournamentEntriesPerAddress

  @Option(
    name: .customLong("release-name"),
    help: ArgumentHelp(
      "Free a name whichever player identity holds it (repeat for several).",
      discussion: """
        A name belongs to the first player identity (client key) to use it here; a \
        player who lost their identity file, or a name someone took in jest, is freed \
        with this at the next start. The next player to use it holds it.
        """, valueName: "name"))
  var releasedNames: [String] = []

  @Flag(
    help: ArgumentHelp(
      "Start even though the journal is damaged.",
      discussion: """
        Moves roshambo.sqlite (and its -wal and -shm files) in --data-dir aside, renamed \
        with .damaged-TIME (never deleted), and starts a new journal from the last good \
        state: the snapshot and every row before the first one that cannot be read. \
        Finished matches and the leaderboard are carried over.
        """))
  var recover = false

  @Flag(help: "Also accept TLS 1.2 (ECDHE with AEAD suites only).")
  var allowTLS12 = false

  @Option(
    help: ArgumentHelp(
      "Event loop threads for connections.",
      discussion: """
        With 1 (the default) every connection and the game share one thread, so a pick \
        never waits for a hand-over between threads. More threads spread the TLS work \
        of many connections over more cores, at the cost of those hand-overs.
        """))
  var threads = 1

  @Option(
    help: ArgumentHelp(
      "The name announced on the local network (by default the host name).",
      discussion: "Follows the rule for player names: 1 to 24 characters, nothing invisible."))
  var name: String?

  @Flag(
    help: ArgumentHelp(
      "Do not announce the server on the local network.",
      discussion: """
        By default the server multicasts its name, port, waiting players and identity \
        code to \(Announcement.group) UDP port \(Announcement.port) every 2 s, so that \
        `roshambo play` and `roshambo servers` find it without --host.
        """))
  var noAnnounce = false

  @Flag(
    help: ArgumentHelp(
      "No journal, and stop when standard input closes (`roshambo play --vs-bot`).",
      visibility: .hidden))
  var ephemeral = false

  @Option(
    help: ArgumentHelp(
      "The least severe log lines written (key=value, on standard error).",
      discussion: "By default warnings and worse; info logs every connection, match and "
        + "tournament step. The party's news is printed as sentences either way."))
  var logLevel = Logger.Level.warning

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
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
    if let name, case .failure(let problem) = PlayerName.normalize(name) {
      throw ValidationError("--name is refused: \(problem).")
    }
    guard (1...256).contains(threads) else {
      throw ValidationError("--threads must be from 1 to 256, not \(threads).")
    }
  }

  /// `--name`, or the host name when it makes a valid name (cut to fit), or "roshambo".
  private var announcedName: String {
    if let name { return (try? PlayerName.normalize(name).get()) ?? name }
    let host = String(LocalNetwork.hostName().prefix(PlayerName.maxCharacters))
    return (try? PlayerName.normalize(host).get()) ?? "roshambo"
  }

  func serve() async throws {
    let level = logLevel
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let logger = Logger(label: "roshambo.server")

    let files = DevelopmentCertificates.Files(directory: "certs")
    let certFile = cert ?? files.serverCertificate
    let keyFile = key ?? files.serverKey
    if cert == nil, key == nil, !files.serverFilesExist {
      do {
        try DevelopmentCertificates.create(in: files.directory)
        print("created development certificates in certs/ (players trust certs/ca.pem)")
      } catch {
        complain("cannot create development certificates in certs/: \(error)")
        throw ExitCode(ExitStatus.noInput)
      }
    }
    for (flag, path) in [("--cert", certFile), ("--key", keyFile)]
    where !FileManager.default.isReadableFile(atPath: path) {
      complain("cannot read \(path) (\(flag)); check the path, or run scripts/gen-certs.sh.")
      throw ExitCode(ExitStatus.noInput)
    }

    var configuration = ServerConfiguration(
      certificateChainFile: certFile, privateKeyFile: keyFile,
      dataDirectory: ephemeral ? nil : dataDir)
    configuration.host = host
    configuration.port = port
    configuration.allowTLS12 = allowTLS12
    // At debug level the hub measures its loop's stalls and logs them every 10 s.
    configuration.profileStalls = logLevel <= .debug
    configuration.tlsAdvice = { error in
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
    configuration.threads = threads
    configuration.roomSettings = RoomState.Settings(
      ruleset: ruleset, bestOf: bestOf,
      roundMillis: Int64(roundSeconds * 1000), graceMillis: Int64(graceSeconds * 1000),
      fair: fair)
    // Every connection is a socket: as many as the open-file limit allows, said once.
    let openFiles = OpenFileLimit.raise()
    let fitting = OpenFileLimit.connections(fitting: maxConnections, soft: openFiles.soft)
    if fitting < maxConnections {
      complain(
        "this process may open \(openFiles.soft) files (its hard limit), so it takes \(fitting) "
          + "connections, not --max-connections \(maxConnections); more are refused with "
          + "server_full. Raise the limit (ulimit -Hn, or LimitNOFILE= for a systemd service) "
          + "to take more.")
    }
    configuration.limits.maxConnections = fitting
    configuration.limits.maxConnectionsPerAddress = maxConnectionsPerAddress
    configuration.limits.idleTimeoutSeconds = Int64(idleSeconds)
    configuration.keepMatches = keepMatches
    configuration.tournament = tournament
    configuration.tournamentPlayers = tournamentPlayers
    configuration.tournamentEntriesPerAddress = tournamentEntriesPerAddress
    configuration.tournamentStartMillis = Int64(tournamentStart * 1000)
    configuration.tournamentPauseMillis = Int64(tournamentPause * 1000)
    configuration.releasedNames = releasedNames
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
    configuration.historyAddress = historyAddress
    configuration.agonesPort = agonesPort

    if recover {
      do {
        print(
          try GameServer.recoverJournal(
            directory: dataDir, defaults: configuration.roomSettings, keepMatches: keepMatches))
      } catch {
        complain("cannot recover the journal in \(dataDir): \(error)")
        throw ExitCode(ExitStatus.unavailable)
      }
    }

    let server: GameServer
    do {
      server = try await GameServer.start(
        configuration, logger: logger, storage: JournalStorage.shippingHistory)
    } catch let error as TLSError {
      complain(
        "\(error); check the files given to --cert and --key (scripts/gen-certs.sh makes a "
          + "matching pair).")
      throw ExitCode(ExitStatus.dataError)
    } catch let error as JournalError {
      complain("\(error)")
      throw ExitCode(ExitStatus.dataError)
    } catch let error as IOError {
      complain(
        "cannot listen on \(host):\(port): \(error); pick another with --port (0 picks a free one)."
      )
      throw ExitCode(ExitStatus.unavailable)
    } catch {
      complain("cannot start: \(error)")
      throw ExitCode(ExitStatus.unavailable)
    }
    let host = self.host
    let ruleset = self.ruleset
    let bestOf = self.bestOf
    let fair = self.fair
    let allowTLS12 = self.allowTLS12
    let customCertificate = cert != nil
    let announceName = configuration.announceName
    let caFile = files.caCertificate
    // Said once SIGINT and SIGTERM are trapped, so that a signal sent on reading the
    // "listening on" line stops the server cleanly. (One during start-up ends the
    // process at once; the journal is safe against that.)
    let drainSeconds = self.drainSeconds
    let serving = ListeningServer(
      server: server, logger: logger,
      drainLimit: { signal in
        .milliseconds(Int64((drainSeconds ?? (signal == .sigint ? 5 : 30)) * 1_000))
      }
    ) {
      for warning in server.warnings { logger.warning("\(warning)") }

      let versions = allowTLS12 ? "TLS 1.2 and 1.3" : "TLS 1.3"
      print(
        "roshambo-server listening on \(host):\(server.port) (\(versions); \(ruleset.rawValue), best of \(bestOf)\(fair ? ", fair rooms" : ""))"
      )
      print("identity code: \(server.code) (players compare it when they first connect)")
      print("certificate SHA-256 fingerprint: \(server.fingerprint)")
      if let operations = server.operations, let address = metricsAddress {
        print(
          "operations on http://\(address.host.contains(":") ? "[\(address.host)]" : address.host):"
            + "\(operations.port) (/metrics, /livez, /readyz)")
      }
      if let announced = announceName, server.isAnnouncing {
        print(
          "announcing \"\(announced)\" on the local network: players run `roshambo` (the lobby)"
        )
      }
      // Listening on one address, that is the only one to give (none for loopback).
      let wildcard = ["0.0.0.0", "::", ""].contains(host)
      let loopback = host.hasPrefix("127.") || host == "::1" || host == "localhost"
      let addresses = wildcard ? LocalNetwork.addresses() : loopback ? [] : [host]
      if addresses.isEmpty {
        print("players on this machine run the lobby with:")
        print("  roshambo --host \(loopback ? host : "127.0.0.1") --port \(server.port)")
      } else {
        print(
          !server.isAnnouncing
            ? "players on other machines run the lobby with (one of):"
            : "or, where multicast does not pass, with (one of):")
        for address in addresses {
          let shown = address.contains(":") ? "[\(address)]" : address
          print("  roshambo --host \(shown) --port \(server.port) --pin \(server.fingerprint)")
        }
        print(
          "or copy \(!customCertificate ? caFile : "your CA file") to their machine and use --ca ca.pem"
        )
      }
      fflush(nil)
    }
    // The server returns once it has stopped: the group then ends too.
    var services = [
      ServiceGroupConfiguration.ServiceConfiguration(
        service: serving, successTerminationBehavior: .gracefullyShutdownGroup)
    ]
    if ephemeral {
      services.append(
        .init(service: StandardInputClosed(), successTerminationBehavior: .gracefullyShutdownGroup))
    }
    // The server watches SIGTERM and SIGINT itself (``ListeningServer``): a second signal
    // must reach it while it drains, which the group's own signal handling does not do.
    let group = ServiceGroup(
      configuration: .init(services: services, logger: logger))
    try await group.run()
    print("roshambo-server stopped")
  }
}

/// The running server as the executable serves it: tells how to join once SIGTERM and
/// SIGINT are trapped, serves, and on the first signal drains (``GameServer/drainAndStop(within:started:)``)
/// for `drainLimit(signal)`; a second signal ends the drain at once. Agones setting the
/// GameServer to `Shutdown` counts as a SIGTERM. The group's graceful
/// shutdown (standard input closed, for `--ephemeral`) stops it without waiting.
struct ListeningServer: Service {
  let server: GameServer
  let logger: Logger
  /// How long a drain started by this signal may last.
  let drainLimit: @Sendable (UnixSignal) -> Duration
  /// Prints the "listening on" line and how players join.
  let announce: @Sendable () -> Void

  func run() async throws {
    let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
    announce()
    // Each request to stop, in order: the first drains, any later one ends the drain now.
    let (requests, request) = AsyncStream<Duration>.makeStream()
    let watcher = Task {
      for await signal in signals { request.yield(drainLimit(signal)) }
    }
    defer { watcher.cancel() }
    // Agones setting the GameServer to Shutdown drains as SIGTERM does.
    let fleet = Task { [server] in
      for await _ in server.shutdownRequests { request.yield(drainLimit(.sigterm)) }
    }
    defer { fleet.cancel() }
    try await withGracefulShutdownHandler {
      var iterator = requests.makeAsyncIterator()
      // Cancelled (nothing asked): stop without waiting.
      let limit = await iterator.next() ?? .zero
      let server = self.server
      async let drained: Void = {
        defer { request.finish() }
        try await server.drainAndStop(within: limit) { running in
          let seconds = Int(limit.components.seconds)
          print(
            running == 0
              ? "stopping: no match is under way; saving and closing connections"
              : "draining: \(running) match\(running == 1 ? "" : "es") under way may finish "
                + "within \(seconds) s (a second Ctrl-C or SIGTERM stops now); an unfinished "
                + "match resumes when the server starts again")
          fflush(nil)
        }
      }()
      while await iterator.next() != nil {
        logger.notice("asked again: stopping now; unfinished matches resume after a restart")
        server.endDrainNow()
      }
      try await drained
    } onGracefulShutdown: {
      request.yield(.zero)
    }
  }
}

/// Returns once standard input reaches its end (the parent of an `--ephemeral` server
/// closed it, or ended), or the group shuts down.
struct StandardInputClosed: Service {
  func run() async throws {
    let (ended, end) = AsyncStream<Never>.makeStream()
    Thread.detachNewThread {
      var byte: UInt8 = 0
      while read(0, &byte, 1) > 0 {}
      end.finish()
    }
    // Iterating ends when the stream does, or when the task is cancelled.
    await cancelWhenGracefulShutdown {
      for await _ in ended {}
    }
  }
}

struct History: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print finished matches and a leaderboard, or one match round by round.",
    discussion: """
      Reads the journal in --data-dir (data/ by default; give it before or after \
      `history`), read-only, so it may run beside the server. Each match is listed with \
      its number; `history NUMBER` prints that match's rounds and checks the record \
      (as `roshambo verify` does). With --json, one record per line (the format in \
      docs/MATCH-RECORD.md), for `roshambo replay FILE` and `roshambo verify FILE`. Names \
      and rooms in text are printed quoted, with anything unprintable escaped.

      With --history-url (before or after `history`), prints the shared history's \
      latest matches and leaderboard instead: the whole fleet's.

      Exit status: 0 printed; 64 a bad flag; 66 no journal, or no such match; 69 the \
      shared history cannot be reached.
      """)

  /// `--data-dir`, given before or after `history`, is the server's own option.
  @ParentCommand var server: RoshamboServerCommand

  @Argument(help: ArgumentHelp("One match to print, by its number.", valueName: "match"))
  var match: Int64?

  @Option(help: "How many recent matches to show.")
  var limit = 20

  @Option(help: "Only matches this player played (the exact name).")
  var player: String?

  @Option(
    help: ArgumentHelp(
      "Only matches finished at or after this time: 2026-11-25, 2026-11-25T18:00:00Z or ms since 1970.",
      valueName: "time"))
  var since: Moment?

  @Option(
    help: ArgumentHelp("Only matches finished before this time (as --since).", valueName: "time"))
  var until: Moment?

  @Flag(help: "Print records as JSON, one per line.")
  var json = false

  func validate() throws {
    guard (1...10_000).contains(limit) else {
      throw ValidationError("--limit must be from 1 to 10000.")
    }
  }

  func run() async throws {
    if let address = server.options.historyAddress {
      let history = SharedHistory(address: address, logger: Logger(label: "roshambo.history"))
      do {
        let matches = try await history.recentMatches(limit: limit)
        let board = try await history.leaderboard(limit: 10)
        await history.close()
        print(MatchHistory.report(matches: matches, board: board))
      } catch {
        await history.close()
        complain("cannot read the shared history at \(address): \(SharedHistory.explain(error))")
        throw ExitCode(ExitStatus.unavailable)
      }
      return
    }
    let dataDir = server.options.dataDir
    guard FileManager.default.fileExists(atPath: dataDir + "/roshambo.sqlite") else {
      complain("no journal in \(dataDir)/ (run the server first, or give --data-dir).")
      throw ExitCode(ExitStatus.noInput)
    }
    let history = try MatchHistory(dataDirectory: dataDir)
    if let id = match {
      guard let found = try history.match(id: id) else {
        complain("no match \(id) is kept in \(dataDir)/ (it never finished, or was pruned).")
        throw ExitCode(ExitStatus.noInput)
      }
      if json {
        print(String(decoding: MatchRecord.encode(found), as: UTF8.self))
        return
      }
      let lines =
        MatchRecordText.heading(found) + MatchRecordText.rounds(found).map { "  " + $0 }
        + ["Check of the record:"]
        + MatchRecordText.verification(RecordVerification(found))
      print(lines.joined(separator: "\n"))
      return
    }
    let filter = MatchHistory.Filter(
      player: player, since: since?.millis, until: until?.millis, limit: limit)
    if json {
      for found in try history.matches(filter) {
        print(String(decoding: MatchRecord.encode(found), as: UTF8.self))
      }
      return
    }
    print(try history.report(filter))
  }
}

struct Status: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print how a running server is doing, from its operations endpoint.",
    discussion: """
      Reads /readyz and /metrics from the server's --metrics-address (127.0.0.1:9464 by \
      default) and prints the figures a host looks at: ready or why not, people, rooms, \
      connections, rounds and matches, refusals by code, the journal. docs/OPERATIONS.md \
      explains each metric.

      Exit status: 0 the server is ready; 1 it answers but is not ready; 69 nothing \
      answers there.
      """)

  /// `--metrics-address`, given before or after `status`, is the server's own option.
  @ParentCommand var server: RoshamboServerCommand

  func run() throws {
    let address = server.options.metricsAddress ?? OperationsAddress(argument: "127.0.0.1:9464")!
    let (host, port) = (address.host, address.port)
    do {
      let readiness = try OperationsClient.get(host: host, port: port, path: "/readyz")
      let metrics = try OperationsClient.get(host: host, port: port, path: "/metrics")
      guard metrics.status == 200 else {
        complain("\(host):\(port) answered /metrics with \(metrics.status).")
        throw ExitCode(ExitStatus.unavailable)
      }
      let status = ServerStatus(
        metrics: metrics.body, readiness: (readiness.status, readiness.body))
      print(status.lines.joined(separator: "\n"))
      if readiness.status != 200 { throw ExitCode(ExitStatus.failure) }
    } catch let failure as OperationsClient.Failure {
      complain(failure.description)
      throw ExitCode(ExitStatus.unavailable)
    }
  }
}

/// `--metrics-address`: HOST:PORT ([HOST]:PORT for IPv6); port 0 picks a free one.
struct OperationsAddress: ExpressibleByArgument {
  var host: String
  var port: Int

  init?(argument: String) {
    guard let colon = argument.lastIndex(of: ":"),
      let port = Int(argument[argument.index(after: colon)...]), (0...65_535).contains(port)
    else { return nil }
    var host = String(argument[..<colon])
    if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    guard !host.isEmpty else { return nil }
    self.host = host
    self.port = port
  }
}

/// A moment on the command line: a date (midnight UTC), a date and time in ISO 8601, or
/// milliseconds since 1970.
struct Moment: ExpressibleByArgument {
  var millis: Int64

  init?(argument: String) {
    if let millis = Int64(argument), millis >= 0 {
      self.millis = millis
      return
    }
    let full = ISO8601DateFormatter()
    let day = ISO8601DateFormatter()
    day.formatOptions = [.withFullDate]
    guard let date = full.date(from: argument) ?? day.date(from: argument) else { return nil }
    millis = Int64(date.timeIntervalSince1970 * 1000)
  }
}

struct ReplayJournal: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "replay",
    abstract: "Print the lobby as it stood after a row of the journal.",
    discussion: """
      Rebuilds the rooms from the journal in --data-dir, read-only, through the same \
      reducer the server starts with: the snapshot, then each row up to --until (every \
      row without it). For looking into what a player reports: the rooms, seats, scores \
      and whether a pick was in, never which. Rows before the snapshot are gone; it says \
      so.

      Exit status: 0 printed; 65 a row that cannot be shown or replayed; 66 no journal.
      """)

  @ParentCommand var server: RoshamboServerCommand

  @Option(help: "The last row to replay (the journal's row number, from 1).")
  var until: Int64?

  func run() throws {
    let dataDir = server.options.dataDir
    guard FileManager.default.fileExists(atPath: dataDir + "/roshambo.sqlite") else {
      complain("no journal in \(dataDir)/ (run the server first, or give --data-dir).")
      throw ExitCode(ExitStatus.noInput)
    }
    do {
      print(try JournalReplay(dataDirectory: dataDir).report(until: until))
    } catch let unreachable as JournalReplay.Unreachable {
      complain(unreachable.description)
      throw ExitCode(ExitStatus.dataError)
    } catch let journal as JournalError {
      complain(journal.description)
      throw ExitCode(ExitStatus.dataError)
    }
  }
}
