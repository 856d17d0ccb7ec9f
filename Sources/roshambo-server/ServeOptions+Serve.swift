import ArgumentParser
import Foundation
import Logging
import NIOCore
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboOperations
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import Sysexits
import UnixSignals

extension ServeOptions {
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

    let monitored: MonitoredServer
    do {
      monitored = try await MonitoredServer.bind(
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
    let server = monitored.server
    let operations = monitored.operations
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
    let drainLimits = (
      terminate: configuration.drainLimitOnTerminate,
      interrupt: configuration.drainLimitOnInterrupt
    )
    let serving = StopSignals(
      server: server, fleetShutdown: monitored.shutdownRequests,
      drainLimit: { signal in
        drainSeconds.map { .milliseconds(Int64($0 * 1_000)) }
          ?? (signal == .sigint ? drainLimits.interrupt : drainLimits.terminate)
      }
    ) {
      for warning in server.warnings { logger.warning("\(warning)") }

      let versions = allowTLS12 ? "TLS 1.2 and 1.3" : "TLS 1.3"
      print(
        "roshambo-server listening on \(host):\(server.port) (\(versions); \(ruleset.rawValue), best of \(bestOf)\(fair ? ", fair rooms" : ""))"
      )
      print("identity code: \(server.code) (players compare it when they first connect)")
      print("certificate SHA-256 fingerprint: \(server.fingerprint)")
      if let operations, let address = metricsAddress {
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
    // The signals are heard beside the server's parts, and stop after them: a second
    // signal must reach the server while it drains, which the group's own signal handling
    // does not do.
    var alongside = [ServiceGroupConfiguration.ServiceConfiguration(service: serving)]
    if ephemeral { alongside.append(.init(service: StandardInputClosed(server: server))) }
    try await monitored.serviceGroup(alongside: alongside, logger: logger).run()
    print("roshambo-server stopped")
  }
}
