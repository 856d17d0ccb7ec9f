import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboTLS

/// Where the server is and how to trust it: the options `play`, `watch`, `bot` and `load`
/// share.
///
/// Invariant: at most one of `--ca`, `--pin` and `--accept-new` is given, and `--port`
/// only with `--host`.
struct ServerOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "The server's host name or IP address (an IPv6 address may be in brackets).",
      discussion: """
        Without it, the servers announcing themselves on the local network are used: \
        the only one heard, or the one picked from a list (see `roshambo servers`).
        """),
    transform: { $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 })
  var host: String?

  @Option(help: "The server's port, with --host (7443 if not given).")
  var port: Int?

  @Option(
    help: ArgumentHelp("Trust the server's certificate if this CA signed it.", valueName: "file"))
  var ca: String?

  @Option(
    help: ArgumentHelp(
      "Trust the server whose certificate has this SHA-256 fingerprint.", valueName: "sha256"))
  var pin: String?

  @Flag(
    help: ArgumentHelp(
      "Trust a server never seen before without asking (for scripts and bots), with --host.",
      discussion: """
        The server's fingerprint is remembered in known_servers as when a player accepts \
        it; a server whose certificate changed since is still refused. Only with --host: \
        on the local network it would trust whichever machine answered first.
        """))
  var acceptNew = false

  @Option(
    help: ArgumentHelp(
      "Seconds of silence before the client pings the server to stay connected.",
      discussion: """
        The client promises these pings to the server: after three of them without a \
        word either way, each side takes the connection for lost (the client reconnects \
        and says so; the server shows the player's seat as away and holds it).
        """))
  var keepalive: Double = 3

  @Option(
    help: ArgumentHelp(
      "Your player identity: one PEM file with your key and certificate.",
      discussion: """
        Made on first use, by default ~/.config/roshambo/identity.pem (under \
        $XDG_CONFIG_HOME when set), and presented to every server, which binds the name \
        you play under to it. Scripts that run several bots give each a file of its own.
        """, valueName: "file"))
  var identity: String?

  @Flag(help: "Say what the network libraries said when something fails.")
  var verbose = false

  @Option(
    help: ArgumentHelp(
      "Seconds the TLS handshake with the server may take before giving up.",
      visibility: .hidden))
  var tlsSeconds = 10

  func validate() throws {
    guard (1...600).contains(tlsSeconds) else {
      throw ValidationError("--tls-seconds must be from 1 to 600, not \(tlsSeconds).")
    }
    if let port {
      guard (1...65_535).contains(port) else {
        throw ValidationError("--port must be 1 to 65535.")
      }
      guard host != nil else {
        throw ValidationError(
          "--port needs --host: without --host, the port comes from the server's announcement.")
      }
    }
    if [ca != nil, pin != nil, acceptNew].filter({ $0 }).count > 1 {
      throw ValidationError("Use one of --ca, --pin and --accept-new.")
    }
    if let pin, Fingerprint.normalize(pin) == nil {
      throw ValidationError(
        "--pin \(pin) is not a SHA-256 fingerprint (64 hex digits, colons allowed).")
    }
    guard keepalive >= 0.1, keepalive <= 3_600 else {
      throw ValidationError("--keepalive must be from 0.1 to 3600 seconds.")
    }
  }

  /// `--keepalive` in whole milliseconds, as the player's core takes it.
  var keepaliveMillis: Int64 { Int64(keepalive * 1_000) }

  /// These flags as the client library takes them, with the fleet's allocator if `fleet`
  /// names one.
  func access(fleet: FleetOptions? = nil) -> ServerAccess {
    ServerAccess(
      settings: ServerSettings(
        host: host, port: port, ca: ca, pin: pin, acceptNew: acceptNew, identity: identity,
        tlsSeconds: tlsSeconds, verbose: verbose),
      keepaliveMillis: keepaliveMillis, allocator: fleet?.allocatorSettings)
  }
}
