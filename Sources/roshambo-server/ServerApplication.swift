import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboBoard
import RoshamboJournal
import RoshamboOperations
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits

/// `roshambo-server` configured and ready to run: the server's configuration, the logger,
/// the storage its journal is kept in, and what it prints once it listens.
/// ``run()`` makes the development certificates on first start, binds a
/// ``MonitoredServer``, prints the banner, and runs the one `ServiceGroup` until the
/// server stops.
///
/// Invariant: nothing is made, bound or printed before ``run()``; every failure to start is
/// said once on standard error, in the words of the flags, and ends in the `ExitCode` its
/// kind has (`noInput` for certificates, `dataError` for a bad certificate or journal,
/// `unavailable` for the rest).
struct ServerApplication: Sendable {
  var configuration: ServerConfiguration
  var logger: Logger
  var storage: any ServerStorage
  var banner: ServerBanner
  /// Where development certificates are made when they do not exist yet; nil when the host
  /// named a certificate or a key of their own.
  var developmentCertificates: DevelopmentCertificates.Files?
  /// The data directory whose damaged journal is set aside and recovered before the
  /// server starts (`--recover`), or nil.
  var journalToRecover: String?
  /// Whether standard input reaching its end stops the server (`--ephemeral`).
  var stopsWhenStandardInputCloses: Bool
  /// Where the party's board is shown (`--board`), if anywhere.
  var board: Board?

  /// The board's address and how many browsers may watch it.
  struct Board: Sendable, Equatable {
    var host: String
    var port: Int
    var viewers: Int
  }

  func run() async throws {
    try makeCertificatesIfMissing()
    var configuration = self.configuration
    configuration.limits.maxConnections = Self.connectionsFittingOpenFiles(
      configuration.limits.maxConnections)
    try recoverJournalIfAsked(configuration)
    let monitored = try await bind(configuration)
    let (server, operations) = (monitored.server, monitored.operations)
    let boardServer = try await startBoard(for: monitored)
    let journalSocket = await startJournalSocket(for: monitored.server)
    let (banner, logger) = (self.banner, self.logger)
    let drainLimits = (
      terminate: configuration.drainLimitOnTerminate,
      interrupt: configuration.drainLimitOnInterrupt
    )
    // The banner is printed once SIGINT and SIGTERM are trapped, so that a signal sent on
    // reading the "listening on" line stops the server cleanly. (One during start-up ends
    // the process at once; the journal is safe against that.)
    let signals = StopSignals(
      server: server, fleetShutdown: monitored.shutdownRequests,
      drainLimit: { $0 == .sigint ? drainLimits.interrupt : drainLimits.terminate }
    ) {
      for warning in server.warnings { logger.warning("\(warning)") }
      let listening = ServerBanner.Listening(
        port: server.port, code: server.code, fingerprint: server.fingerprint,
        operationsPort: operations?.port, isAnnouncing: server.isAnnouncing,
        boardPort: boardServer?.port)
      for line in banner.lines(listening, localAddresses: LocalNetwork.addresses) {
        print(line)
      }
      fflush(nil)
    }
    // The signals are heard beside the server's parts, and stop after them: a second
    // signal must reach the server while it drains, which the group's own signal handling
    // does not do.
    var alongside = [ServiceGroupConfiguration.ServiceConfiguration(service: signals)]
    if stopsWhenStandardInputCloses {
      alongside.append(.init(service: StandardInputClosed(server: server)))
    }
    var watching = boardServer.map { [(name: "board", service: $0 as any Service)] } ?? []
    if let journalSocket { watching.append((name: "journal socket", service: journalSocket)) }
    try await monitored.serviceGroup(alongside: alongside, watching: watching, logger: logger)
      .run()
    print("roshambo-server stopped")
  }

  /// Opens the door `roshambo-server history` asks through while this server holds its
  /// journal; a server that cannot open it plays on, saying what a tool will not do.
  private func startJournalSocket(for server: GameServer) async -> JournalSocket? {
    guard let journal = server.journalThread else { return nil }
    do {
      return try await JournalSocket.start(journal: journal, logger: logger)
    } catch {
      logger.warning(
        Logger.Message(
          stringLiteral: "roshambo-server history and replay cannot ask this server while it "
            + "runs: the socket for them could not be opened (\(error)); they read the journal "
            + "once it stops"))
      return nil
    }
  }

  /// Binds the board when asked for, or says why it cannot (and stops the server).
  private func startBoard(for monitored: MonitoredServer) async throws -> BoardServer? {
    guard let board else { return nil }
    do {
      return try await BoardServer.start(
        host: board.host, port: board.port, viewers: board.viewers, server: monitored.server,
        logger: logger)
    } catch {
      await monitored.server.discard(logger: logger)
      complain(
        "cannot show the board on \(board.host):\(board.port): \(error); pick another port "
          + "with --board (0 picks a free one).")
      throw ExitCode(ExitStatus.unavailable)
    }
  }

  /// Makes the development certificates (and the game's own CA) on first start, then
  /// checks that the certificate and key can be read.
  private func makeCertificatesIfMissing() throws {
    if let files = developmentCertificates, !files.serverFilesExist {
      do {
        try DevelopmentCertificates.create(in: files.directory)
        print("created development certificates in certs/ (players trust certs/ca.pem)")
      } catch {
        complain("cannot create development certificates in certs/: \(error)")
        throw ExitCode(ExitStatus.noInput)
      }
    }
    let files = [
      ("--cert", configuration.certificateChainFile), ("--key", configuration.privateKeyFile),
    ]
    for (flag, path) in files where !FileManager.default.isReadableFile(atPath: path) {
      complain("cannot read \(path) (\(flag)); check the path, or run scripts/gen-certs.sh.")
      throw ExitCode(ExitStatus.noInput)
    }
  }

  /// Raises the open-file limit as far as it goes, and returns how many of `asked`
  /// connections fit in it (every connection is a socket), saying so once if fewer do.
  private static func connectionsFittingOpenFiles(_ asked: Int) -> Int {
    let openFiles = OpenFileLimit.raise()
    let fitting = OpenFileLimit.connections(fitting: asked, soft: openFiles.soft)
    if fitting < asked {
      complain(
        "this process may open \(openFiles.soft) files (its hard limit), so it takes \(fitting) "
          + "connections, not --max-connections \(asked); more are refused with "
          + "server_full. Raise the limit (ulimit -Hn, or LimitNOFILE= for a systemd service) "
          + "to take more.")
    }
    return fitting
  }

  private func recoverJournalIfAsked(_ configuration: ServerConfiguration) throws {
    guard let directory = journalToRecover else { return }
    do {
      print(
        try GameServer.recoverJournal(
          directory: directory, defaults: configuration.roomSettings,
          keepMatches: configuration.keepMatches))
    } catch {
      complain("cannot recover the journal in \(directory): \(error)")
      throw ExitCode(ExitStatus.unavailable)
    }
  }

  /// Binds the server and its operations endpoint, or says why it cannot.
  private func bind(_ configuration: ServerConfiguration) async throws -> MonitoredServer {
    do {
      return try await MonitoredServer.bind(configuration, logger: logger, storage: storage)
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
        "cannot listen on \(configuration.host):\(configuration.port): \(error); pick another "
          + "with --port (0 picks a free one).")
      throw ExitCode(ExitStatus.unavailable)
    } catch {
      complain("cannot start: \(error)")
      throw ExitCode(ExitStatus.unavailable)
    }
  }
}
