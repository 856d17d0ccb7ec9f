import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboProtocol
import RoshamboTLS
import Sysexits

/// What this run said when it made the player's identity, for the lobby to repeat.
let madeIdentity = NIOLockedValueBox<String?>(nil)

extension ServerOptions {
  /// Whether a person is at the keyboard to answer a question.
  static var interactive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

  /// Finds the server (`--host`, the fleet's allocator when `fleet` has `--allocator`, or
  /// the local network) and decides how to trust it:
  /// `--pin`, `--ca`, the fingerprint remembered in known_servers, the development CA in
  /// certs/ for a server on this machine, or trust on first use (asking the player, or
  /// `--accept-new`). Prints what a person must know; throws an exit code on failure.
  func resolve(fleet: FleetOptions? = nil, for purpose: FleetAllocation.Purpose = .quickMatch)
    async throws -> ResolvedServer
  {
    let (host, port, announced): (String, Int, Announcement?)
    if let fleet, fleet.allocator != nil {
      let chosen = try await fleet.allocate(purpose)
      (host, port, announced) = (chosen.host, chosen.port, nil)
    } else {
      (host, port, announced) = try await target()
    }
    if let pin { return try resolved(host, port, trust: .pinnedSHA256(pin)) }
    if let ca {
      guard FileManager.default.isReadableFile(atPath: ca) else {
        complain("cannot read the CA file \(ca); check the path given to --ca.")
        throw ExitCode(ExitStatus.noInput)
      }
      return try resolved(host, port, trust: .caFile(ca))
    }
    guard let path = KnownServers.defaultPath(environment: ProcessInfo.processInfo.environment)
    else {
      complain(
        "neither XDG_CONFIG_HOME nor HOME is set, so there is nowhere to remember servers; "
          + "trust the server with --pin or --ca.")
      throw ExitCode(ExitStatus.usage)
    }
    var known: KnownServers
    do {
      known = try KnownServers(path: path)
    } catch {
      complain("\(error)")
      throw ExitCode(ExitStatus.dataError)
    }
    if let entry = known.entry(host: host, port: port) {
      var server = try resolved(host, port, trust: .pinnedSHA256(entry.fingerprint))
      server.known = entry
      server.knownPath = path
      return server
    }
    let local = ["127.0.0.1", "::1", "localhost"].contains(host)
    if local, FileManager.default.isReadableFile(atPath: "certs/ca.pem") {
      return try resolved(host, port, trust: .caFile("certs/ca.pem"))
    }
    let fingerprint = try await probe(host, port)
    let code = IdentityCode.code(forFingerprint: fingerprint) ?? fingerprint
    let address = DiscoveredServer.address(host: host, port: port)
    if let announced, announced.code != code {
      // What answered is not what announced itself: another machine may have copied the
      // real server's name and code into its own announcements.
      let warning =
        "WARNING: the server at \(address) announced the identity code \(announced.code), but "
        + "its certificate's code is \(code). Another machine may be pretending to be "
        + "\"\(announced.name)\"."
      guard Self.interactive, !acceptNew else {
        complain(
          lines: [
            warning,
            "Not connecting. Ask the server's host for the code roshambo-server printed, and "
              + "name the server with --host.",
          ])
        throw ExitCode(ExitStatus.untrusted)
      }
      FileHandle.standardError.write(
        Data((Paragraph.forStandardError(TerminalText.sanitized(warning)) + "\n").utf8))
    }
    if !acceptNew {
      guard Self.interactive else {
        complain(
          "the server at \(DiscoveredServer.address(host: host, port: port)) is new to this machine; its identity code "
            + "is \(code). If that is the code the server printed, connect again with "
            + (self.host == nil
              ? "--host \(host)\(port == 7443 ? "" : " --port \(port)") --accept-new"
              : "--accept-new")
            + " (or --pin \(fingerprint)).")
        throw ExitCode(ExitStatus.untrusted)
      }
      guard Self.confirm(host: host, port: port, code: code, fingerprint: fingerprint) else {
        complain("not connecting: the server was not trusted.")
        throw ExitCode(ExitStatus.untrusted)
      }
    }
    do {
      let entry = try known.remember(host: host, port: port, fingerprint: fingerprint)
      complain(
        "trusting \(DiscoveredServer.address(host: host, port: port)) (code \(code)) from now on: line \(entry.line) of "
          + path)
    } catch {
      complain("\(error)")
      throw ExitCode(ExitStatus.noInput)
    }
    return try resolved(host, port, trust: .pinnedSHA256(fingerprint))
  }

  /// `--host` and `--port`, or the server the local network offers (with what it
  /// announced, to check against what answers).
  private func target() async throws -> (String, Int, Announcement?) {
    if let host { return (host, port ?? 7443, nil) }
    guard !acceptNew else {
      // Trusting the first server heard would trust whichever machine answers first.
      complain(
        "--accept-new needs --host: on the local network it would trust whichever machine "
          + "answers first. Name the server (--host ADDRESS --accept-new, or --pin "
          + "FINGERPRINT), or leave --accept-new out and, at a terminal, compare the "
          + "identity code roshambo-server printed with the one shown.")
      throw ExitCode(ExitStatus.usage)
    }
    let found: [DiscoveredServer]
    do {
      found = try await ServerDiscovery.find(timeout: .milliseconds(1_500))
    } catch {
      complain("cannot look for servers on the local network (\(error)); use --host.")
      throw ExitCode(ExitStatus.unavailable)
    }
    switch found.count {
    case 0:
      complain(
        "no server announced itself on the local network within 1.5 s; check that "
          + "roshambo-server runs (without --no-announce) on this network, or use --host.")
      throw ExitCode(ExitStatus.unavailable)
    case 1:
      complain("found \(found[0].line)")
      return (found[0].host, found[0].port, found[0].announcement)
    default:
      let list = found.enumerated().map {
        "  \($0.offset + 1). \(TerminalText.sanitized($0.element.line))"
      }
      guard Self.interactive else {
        complain(
          lines: [
            "\(found.count) servers announce themselves on the local network; say which with "
              + "--host and --port:"
          ] + list)
        throw ExitCode(ExitStatus.usage)
      }
      FileHandle.standardError.write(
        Data((["Servers on the local network:"] + list).joined(separator: "\n").utf8 + [10]))
      while true {
        FileHandle.standardError.write(Data("Play on which (1–\(found.count), q to quit)? ".utf8))
        guard let answer = readLine()?.trimmingCharacters(in: .whitespaces), answer != "q"
        else { throw ExitCode(ExitStatus.failure) }
        if let choice = Int(answer), (1...found.count).contains(choice) {
          let server = found[choice - 1]
          return (server.host, server.port, server.announcement)
        }
      }
    }
  }

  private func probe(_ host: String, _ port: Int) async throws -> String {
    do {
      return try await CertificateProbe.fingerprint(host: host, port: port)
    } catch {
      throw cannotConnect(host: host, port: port, error)
    }
  }

  /// Says why the connection to `host`:`port` failed, in a player's words (the
  /// libraries' with `--verbose`), and gives the exit code for it.
  func cannotConnect(host: String, port: Int, _ error: any Error) -> ExitCode {
    let address = DiscoveredServer.address(host: host, port: port)
    if let error = error as? TLSError {
      complain("cannot connect to \(address): \(error.message) \(advice(for: error, host: host))")
    } else {
      let failure = ConnectionFailure(error, host: host, address: address)
      complain(failure.sentence + (verbose ? " (\(failure.details))" : ""))
    }
    return ExitCode(ExitStatus.unavailable)
  }

  /// Asks the player at the terminal whether the code is the server's.
  private static func confirm(host: String, port: Int, code: String, fingerprint: String)
    -> Bool
  {
    let question = Paragraph.trustQuestion(
      address: DiscoveredServer.address(host: host, port: port), code: code,
      fingerprint: fingerprint, width: Paragraph.standardErrorWidth ?? 80)
    FileHandle.standardError.write(Data(question.utf8))
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
    return answer == "y" || answer == "yes"
  }

  /// The player's identity (``PlayerIdentity``), made and said the first time; nil with no
  /// home directory to keep it in. A file that cannot be used is said, and exits 77.
  func playerIdentity() throws -> PlayerIdentity? {
    let path =
      identity ?? PlayerIdentity.defaultPath(environment: ProcessInfo.processInfo.environment)
    guard let path else { return nil }
    do {
      let (me, created) = try PlayerIdentity.loadOrCreate(at: path)
      if created {
        complain(lines: me.firstUseLines)
        // The lobby's screen covers the terminal at once: it says it again.
        madeIdentity.withLockedValue { $0 = me.firstUseLines.joined(separator: " ") }
      }
      return me
    } catch let problem as PlayerIdentity.Problem {
      complain(problem.description)
      throw ExitCode(ExitStatus.untrusted)
    }
  }

  /// A client TLS context trusting the server as `trust` says and presenting the
  /// player's identity.
  func clientTLS(trust: ServerTrust) throws -> TLSContext {
    let me = try playerIdentity()
    var configuration = TLSConfiguration.client(
      trust: trust, certificateChainFile: me?.path, privateKeyFile: me?.path)
    configuration.handshakeTimeoutSeconds = Int64(tlsSeconds)
    return try TLSContext(configuration)
  }

  private func resolved(_ host: String, _ port: Int, trust: ServerTrust) throws -> ResolvedServer {
    do {
      return ResolvedServer(host: host, port: port, tls: try clientTLS(trust: trust))
    } catch let error as TLSError {
      complain(error.message)
      throw ExitCode(ExitStatus.dataError)
    }
  }
}

extension ResolvedServer {
  /// What to say when the certificate no longer matches the remembered fingerprint, as
  /// SSH does: loudly, with both codes, and the file and line to remove.
  func changedIdentityMessage(actual: String) -> [String]? {
    guard let known, let knownPath else { return nil }
    let old = IdentityCode.code(forFingerprint: known.fingerprint) ?? known.fingerprint
    let new = IdentityCode.code(forFingerprint: actual) ?? actual
    return [
      "WARNING: THE IDENTITY OF THE SERVER AT \(DiscoveredServer.address(host: host, port: port)) HAS CHANGED.",
      "Its code was \(old) and is now \(new): someone may be pretending to be the server, "
        + "or its host made a new certificate. Not connecting.",
      "If the server's host confirms the new code, remove line \(known.line) of \(knownPath) "
        + "and connect again.",
    ]
  }
}
