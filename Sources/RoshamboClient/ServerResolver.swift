import Foundation
import RoshamboProtocol
import RoshamboTLS

/// Where a command is to find its server and how to trust it: `--host` and `--port`,
/// `--pin`, `--ca` or `--accept-new`, the player's identity, and the TLS handshake's limit.
///
/// Invariant: at most one of `pin`, `ca` and `acceptNew` is given (the command line
/// checks it).
public struct ServerSettings: Sendable {
  /// The server named (nil: the one the local network announces).
  public var host: String?
  public var port: Int?
  public var ca: String?
  public var pin: String?
  public var acceptNew: Bool
  /// The player identity's file (nil: the default one).
  public var identity: String?
  public var tlsSeconds: Int
  /// Say what the network libraries said when something fails.
  public var verbose: Bool

  public init(
    host: String? = nil, port: Int? = nil, ca: String? = nil, pin: String? = nil,
    acceptNew: Bool = false, identity: String? = nil, tlsSeconds: Int = 10,
    verbose: Bool = false
  ) {
    self.host = host
    self.port = port
    self.ca = ca
    self.pin = pin
    self.acceptNew = acceptNew
    self.identity = identity
    self.tlsSeconds = tlsSeconds
    self.verbose = verbose
  }
}

/// A server found and trusted: where it is, the TLS context that trusts it and presents
/// the player's identity, and what was remembered of it.
///
/// Invariant: `tls` trusts exactly what resolution decided (a pin, a CA, or the
/// fingerprint remembered or accepted now).
public struct ResolvedServer: Sendable {
  public var host: String
  public var port: Int
  public var tls: TLSContext
  /// Its entry in known_servers, and that file, when it was trusted from there.
  public var known: KnownServers.Entry?
  public var knownPath: String?
  /// What was said when this run made the player's identity (for the lobby to repeat).
  public var madeIdentity: String?

  public init(host: String, port: Int, tls: TLSContext) {
    self.host = host
    self.port = port
    self.tls = tls
  }

  /// A new connection to this server.
  public func connect() async throws -> ServerConnection {
    try await ServerConnection.connect(host: host, port: port, tls: tls)
  }

  /// What to say when the certificate no longer matches the remembered fingerprint, as
  /// SSH does: loudly, with both codes, and the file and line to remove.
  public func changedIdentityMessage(actual: String) -> [String]? {
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

/// Resolution stopped, its reason said: how the program should end.
public struct ResolutionFailure: Error, Equatable, Sendable {
  /// The kind of failure, which the program turns into its exit status.
  public enum Kind: Equatable, Sendable {
    /// The command line cannot work (64).
    case usage
    /// A file named cannot be read (66).
    case noInput
    /// A file's content is wrong (65).
    case dataError
    /// The server is not trusted (77).
    case untrusted
    /// The server cannot be reached (69).
    case unavailable
    /// The person said no (1).
    case declined
  }

  public var kind: Kind

  public init(_ kind: Kind) {
    self.kind = kind
  }
}

/// Finds the server (the address given, or the local network's announcement) and decides
/// how to trust it: `--pin`, `--ca`, the fingerprint remembered in known_servers, the
/// development CA in certs/ for a server on this machine, or trust on first use (asking
/// the person, or `--accept-new`). Says what a person must know through `complain`;
/// fails with a ``ResolutionFailure`` once it has said why.
///
/// Invariant: a server never seen is trusted only after the person agreed (at a
/// terminal) or `--accept-new` with the server named; an announcement whose code is not
/// the certificate's is said, loudly, before anything else.
public struct ServerResolver: Sendable {
  public var settings: ServerSettings
  /// Whether a person is at the keyboard to answer a question.
  public var interactive: Bool
  public var environment: [String: String]
  /// Lines on standard error (each made safe by the caller).
  public var complain: @Sendable ([String]) -> Void
  /// Writes a question on standard error and reads the answer line (nil: none).
  public var ask: @Sendable (String) -> String?

  public init(
    settings: ServerSettings, interactive: Bool,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    complain: @escaping @Sendable ([String]) -> Void,
    ask: @escaping @Sendable (String) -> String?
  ) {
    self.settings = settings
    self.interactive = interactive
    self.environment = environment
    self.complain = complain
    self.ask = ask
  }

  private func say(_ line: String) { complain([line]) }

  /// The server at `allocated` (chosen by a fleet's allocator), or the one the settings
  /// name or the local network offers, trusted as the settings and known_servers say.
  public func resolve(allocated: (host: String, port: Int)? = nil) async throws
    -> ResolvedServer
  {
    let (host, port, announced): (String, Int, Announcement?)
    if let allocated {
      (host, port, announced) = (allocated.host, allocated.port, nil)
    } else {
      (host, port, announced) = try await target()
    }
    if let pin = settings.pin { return try resolved(host, port, trust: .pinnedSHA256(pin)) }
    if let ca = settings.ca {
      guard FileManager.default.isReadableFile(atPath: ca) else {
        say("cannot read the CA file \(ca); check the path given to --ca.")
        throw ResolutionFailure(.noInput)
      }
      return try resolved(host, port, trust: .caFile(ca))
    }
    guard let path = KnownServers.defaultPath(environment: environment) else {
      say(
        "neither XDG_CONFIG_HOME nor HOME is set, so there is nowhere to remember servers; "
          + "trust the server with --pin or --ca.")
      throw ResolutionFailure(.usage)
    }
    var known: KnownServers
    do {
      known = try KnownServers(path: path)
    } catch {
      say("\(error)")
      throw ResolutionFailure(.dataError)
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
      guard interactive, !settings.acceptNew else {
        complain([
          warning,
          "Not connecting. Ask the server's host for the code roshambo-server printed, and "
            + "name the server with --host.",
        ])
        throw ResolutionFailure(.untrusted)
      }
      say(warning)
    }
    if !settings.acceptNew {
      guard interactive else {
        say(
          "the server at \(address) is new to this machine; its identity code "
            + "is \(code). If that is the code the server printed, connect again with "
            + (settings.host == nil
              ? "--host \(host)\(port == 7443 ? "" : " --port \(port)") --accept-new"
              : "--accept-new")
            + " (or --pin \(fingerprint)).")
        throw ResolutionFailure(.untrusted)
      }
      let question = Paragraph.trustQuestion(
        address: address, code: code, fingerprint: fingerprint,
        width: Paragraph.standardErrorWidth ?? 80)
      let answer = ask(question)?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
      guard answer == "y" || answer == "yes" else {
        say("not connecting: the server was not trusted.")
        throw ResolutionFailure(.untrusted)
      }
    }
    do {
      let entry = try known.remember(host: host, port: port, fingerprint: fingerprint)
      say("trusting \(address) (code \(code)) from now on: line \(entry.line) of " + path)
    } catch {
      say("\(error)")
      throw ResolutionFailure(.noInput)
    }
    return try resolved(host, port, trust: .pinnedSHA256(fingerprint))
  }

  /// The address given, or the server the local network offers (with what it
  /// announced, to check against what answers).
  private func target() async throws -> (String, Int, Announcement?) {
    if let host = settings.host { return (host, settings.port ?? 7443, nil) }
    guard !settings.acceptNew else {
      // Trusting the first server heard would trust whichever machine answers first.
      say(
        "--accept-new needs --host: on the local network it would trust whichever machine "
          + "answers first. Name the server (--host ADDRESS --accept-new, or --pin "
          + "FINGERPRINT), or leave --accept-new out and, at a terminal, compare the "
          + "identity code roshambo-server printed with the one shown.")
      throw ResolutionFailure(.usage)
    }
    let found: [DiscoveredServer]
    do {
      found = try await ServerDiscovery.find(timeout: .milliseconds(1_500))
    } catch {
      say("cannot look for servers on the local network (\(error)); use --host.")
      throw ResolutionFailure(.unavailable)
    }
    switch found.count {
    case 0:
      say(
        "no server announced itself on the local network within 1.5 s; check that "
          + "roshambo-server runs (without --no-announce) on this network, or use --host.")
      throw ResolutionFailure(.unavailable)
    case 1:
      say("found \(found[0].line)")
      return (found[0].host, found[0].port, found[0].announcement)
    default:
      let list = found.enumerated().map {
        "  \($0.offset + 1). \(TerminalText.sanitized($0.element.line))"
      }
      guard interactive else {
        complain(
          [
            "\(found.count) servers announce themselves on the local network; say which with "
              + "--host and --port:"
          ] + list)
        throw ResolutionFailure(.usage)
      }
      var question = (["Servers on the local network:"] + list).joined(separator: "\n") + "\n"
      while true {
        question += "Play on which (1–\(found.count), q to quit)? "
        guard let answer = ask(question)?.trimmingCharacters(in: .whitespaces), answer != "q"
        else { throw ResolutionFailure(.declined) }
        if let choice = Int(answer), (1...found.count).contains(choice) {
          let server = found[choice - 1]
          return (server.host, server.port, server.announcement)
        }
        question = ""
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
  /// libraries' with `--verbose`), and gives the failure for it.
  public func cannotConnect(host: String, port: Int, _ error: any Error) -> ResolutionFailure {
    let address = DiscoveredServer.address(host: host, port: port)
    if let error = error as? TLSError {
      say("cannot connect to \(address): \(error.message) \(advice(for: error, host: host))")
    } else {
      let failure = ConnectionFailure(error, host: host, address: address)
      say(failure.sentence + (settings.verbose ? " (\(failure.details))" : ""))
    }
    return ResolutionFailure(.unavailable)
  }

  /// Connects to `server`, saying what to do when it fails: a remembered server whose
  /// certificate changed is said loudly, as SSH does.
  public func connect(_ server: ResolvedServer) async throws -> ServerConnection {
    do {
      return try await server.connect()
    } catch {
      if let tls = error as? TLSError, case .pinMismatch(_, let actual) = tls.kind,
        let lines = server.changedIdentityMessage(actual: actual)
      {
        complain(lines)
        throw ResolutionFailure(.untrusted)
      }
      throw cannotConnect(host: server.host, port: server.port, error)
    }
  }

  /// What the player can do about a failed TLS connection, in this program's flags (the
  /// TLS layer says what failed; only the program knows its options).
  func advice(for error: TLSError, host: String) -> String {
    switch error.kind {
    case .untrustedIssuer:
      "Copy ca.pem from the server machine and use --ca ca.pem"
        + (settings.ca.map { " (you used \($0))" } ?? "")
        + ", or use --pin with the fingerprint the server printed."
    case .nameMismatch:
      "Connect with a name or address the certificate lists, or make a new certificate on the "
        + "server with scripts/gen-certs.sh --host \(host)."
    case .pinMismatch:
      "If the server made a new certificate, use the fingerprint it prints now with --pin; "
        + "otherwise do not connect."
    case .expired:
      "Make a new certificate on the server with scripts/gen-certs.sh."
    case .notYetValid:
      "Check both machines' clocks."
    case .protocolVersion:
      "Upgrade the server, or ask its host to start it with --allow-tls12."
    case .notTLS:
      "Check --host and --port: what answers there does not speak TLS."
    case .noPeerCertificate, .configuration:
      "Check the certificate files given to this program."
    case .truncated, .handshakeTimeout, .protocolFailure:
      "Check that roshambo-server runs there and try again."
    }
  }

  /// The player's identity (``PlayerIdentity``), made and said the first time (with the
  /// lines said); nil with no home directory to keep it in. A file that cannot be used is
  /// said, and fails as untrusted.
  public func playerIdentity() throws -> (PlayerIdentity, made: [String]?)? {
    let path = settings.identity ?? PlayerIdentity.defaultPath(environment: environment)
    guard let path else { return nil }
    do {
      let (me, created) = try PlayerIdentity.loadOrCreate(at: path)
      if created { complain(me.firstUseLines) }
      return (me, created ? me.firstUseLines : nil)
    } catch let problem as PlayerIdentity.Problem {
      say(problem.description)
      throw ResolutionFailure(.untrusted)
    }
  }

  /// A client TLS context trusting the server as `trust` says and presenting the
  /// player's identity; with what was said if the identity was made now.
  public func clientTLS(trust: ServerTrust) throws -> (TLSContext, madeIdentity: String?) {
    let identity = try playerIdentity()
    var configuration = TLSConfiguration.client(
      trust: trust, certificateChainFile: identity?.0.path, privateKeyFile: identity?.0.path)
    configuration.handshakeTimeoutSeconds = Int64(settings.tlsSeconds)
    return (try TLSContext(configuration), identity?.made?.joined(separator: " "))
  }

  /// The server at `host`:`port` trusted as `trust` says.
  public func resolved(_ host: String, _ port: Int, trust: ServerTrust) throws -> ResolvedServer {
    do {
      let (tls, made) = try clientTLS(trust: trust)
      var server = ResolvedServer(host: host, port: port, tls: tls)
      server.madeIdentity = made
      return server
    } catch let error as TLSError {
      say(error.message)
      throw ResolutionFailure(.dataError)
    }
  }
}
