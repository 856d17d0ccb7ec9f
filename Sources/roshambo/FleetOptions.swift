import ArgumentParser
import Foundation
import RoshamboClient

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
    guard FleetAllocator.address(allocator) != nil else {
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

  /// The allocator as the client library takes it (nil without `--allocator`).
  var allocatorSettings: FleetAllocator? {
    guard let allocator, let allocatorCa else { return nil }
    return FleetAllocator(
      address: allocator, ca: allocatorCa, certificate: allocatorCert, key: allocatorKey,
      namespace: namespace, fleet: fleet)
  }
}
