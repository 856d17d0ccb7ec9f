import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboTLS
import Sysexits

/// Where Agones' allocator service is and how to talk to it: the options `play`, `watch`
/// and `bot` take to find their server in a fleet rather than by `--host` or on the
/// local network.
///
/// Invariant: the `--allocator-*` options and `--namespace`/`--fleet` are given only with
/// `--allocator`, which is an `https://` address; the certificate and key come together.
struct FleetOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Ask the fleet's allocator at this address for the server (instead of --host).",
      discussion: """
        Agones' allocator service, https://HOST[:PORT] (443 if not given): it chooses \
        the server that holds --room, or one with a player waiting for quick match, \
        or one with space. Then the client connects to that server and trusts it as \
        --ca, --pin or known_servers say (the fleet's servers usually share one \
        certificate, so --pin with its fingerprint trusts them all). See \
        docs/OPERATIONS.md.
        """,
      valueName: "https://host[:port]"))
  var allocator: String?

  @Option(
    help: ArgumentHelp(
      "The CA certificate that signed the allocator's (PEM; Agones' allocator-tls-ca).",
      valueName: "file"))
  var allocatorCa: String?

  @Option(
    help: ArgumentHelp(
      "Your client certificate for the allocator (PEM), for mutual TLS.", valueName: "file"))
  var allocatorCert: String?

  @Option(help: ArgumentHelp("The private key of --allocator-cert (PEM).", valueName: "file"))
  var allocatorKey: String?

  @Option(help: "The Kubernetes namespace the fleet runs in, with --allocator.")
  var namespace = "default"

  @Option(help: "The Fleet's name, with --allocator.")
  var fleet = "roshambo"

  func validate() throws {
    guard let allocator else {
      let stray = [
        (allocatorCa, "--allocator-ca"), (allocatorCert, "--allocator-cert"),
        (allocatorKey, "--allocator-key"),
      ].first { $0.0 != nil }
      if let stray { throw ValidationError("\(stray.1) needs --allocator.") }
      if namespace != "default" || fleet != "roshambo" {
        throw ValidationError("--namespace and --fleet need --allocator.")
      }
      return
    }
    guard Self.address(allocator) != nil else {
      throw ValidationError(
        "--allocator \(allocator) is not an https://HOST[:PORT] address (the allocator "
          + "service speaks HTTPS only).")
    }
    guard allocatorCa != nil else {
      throw ValidationError(
        "--allocator needs --allocator-ca: the CA certificate to check the allocator with.")
    }
    if (allocatorCert == nil) != (allocatorKey == nil) {
      throw ValidationError("--allocator-cert and --allocator-key go together.")
    }
    for (value, option) in [(namespace, "--namespace"), (fleet, "--fleet")] {
      guard (1...63).contains(value.utf8.count),
        value.utf8.allSatisfy({
          $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0)
        })
      else {
        throw ValidationError(
          "\(option) \(value) is not a Kubernetes name (lower-case letters, digits and -).")
      }
    }
  }

  /// `https://HOST[:PORT][/]` as host and port, or nil.
  static func address(_ text: String) -> (host: String, port: Int)? {
    guard text.hasPrefix("https://") else { return nil }
    var rest = Substring(text.dropFirst("https://".count))
    if rest.hasSuffix("/") { rest = rest.dropLast() }
    guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@") else { return nil }
    var host = rest
    var port = 443
    if rest.hasPrefix("[") {
      guard let close = rest.firstIndex(of: "]") else { return nil }
      host = rest[rest.index(after: rest.startIndex)..<close]
      let after = rest[rest.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
        port = number
      }
    } else if let colon = rest.lastIndex(of: ":") {
      guard let number = Int(rest[rest.index(after: colon)...]) else { return nil }
      host = rest[..<colon]
      port = number
    }
    guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
    return (String(host), port)
  }

  /// Asks the allocator for the server for `purpose`; says which it chose. Throws an
  /// exit code after saying why there is none.
  func allocate(_ purpose: FleetAllocation.Purpose) async throws -> (host: String, port: Int) {
    guard let allocator, let (host, port) = Self.address(allocator), let allocatorCa else {
      throw ExitCode(ExitStatus.usage)
    }
    let tls: TLSContext
    do {
      tls = try TLSContext(
        .client(
          trust: .caFile(allocatorCa), certificateChainFile: allocatorCert,
          privateKeyFile: allocatorKey))
    } catch let error as TLSError {
      complain(error.message)
      throw ExitCode(ExitStatus.dataError)
    }
    let allocation = FleetAllocation(purpose: purpose, namespace: namespace, fleet: fleet)
    do {
      let chosen = try await AllocatorClient.allocate(allocation, host: host, port: port, tls: tls)
      complain(
        "the allocator chose the server \(chosen.gameServerName) at "
          + DiscoveredServer.address(host: chosen.host, port: chosen.port))
      return (chosen.host, chosen.port)
    } catch {
      complain(error.message)
      if case .watch = purpose, error.kind == .noServer { throw ExitCode(ExitStatus.failure) }
      throw ExitCode(ExitStatus.unavailable)
    }
  }
}
