import RoshamboGame
import RoshamboServer

/// What `roshambo-server` prints once it listens: the address with its TLS versions and
/// rules, the identity code and the certificate's fingerprint that players check, the
/// operations endpoint, the name it announces, and the commands players run to join.
///
/// Invariant: a value, made from the configuration; ``lines(_:localAddresses:)`` reads no
/// socket and no clock, so the same facts always give the same lines.
struct ServerBanner: Sendable, Equatable {
  /// What is known only once the server is bound.
  struct Listening: Sendable, Equatable {
    var port: Int
    /// The certificate's identity code.
    var code: String
    /// The certificate's SHA-256 fingerprint, for `--pin`.
    var fingerprint: String
    /// The operations endpoint's port, when there is one.
    var operationsPort: Int?
    /// Whether the server announces itself on the local network.
    var isAnnouncing: Bool
    /// The board's port, when there is one.
    var boardPort: Int? = nil
  }

  var host: String
  var allowTLS12: Bool
  var roomSettings: RoomState.Settings
  /// Where the operations endpoint listens, when asked for.
  var operationsHost: String?
  /// Where the board listens, when asked for (set by the application).
  var boardHost: String?
  /// The name announced on the local network, when asked for.
  var announceName: String?
  /// The CA certificate players are given, or nil for a certificate of the host's own
  /// ("your CA file").
  var caFile: String?

  init(_ configuration: ServerConfiguration, caFile: String?) {
    host = configuration.host
    allowTLS12 = configuration.allowTLS12
    roomSettings = configuration.roomSettings
    operationsHost = configuration.operationsAddress?.host
    announceName = configuration.announceName
    self.caFile = caFile
  }

  /// The lines to print. `localAddresses` gives this machine's addresses; it is asked only
  /// when the server listens on every address (for a single address, that is the one to
  /// give; for loopback, none).
  func lines(_ listening: Listening, localAddresses: () -> [String]) -> [String] {
    let versions = allowTLS12 ? "TLS 1.2 and 1.3" : "TLS 1.3"
    let rules =
      "\(roomSettings.ruleset.rawValue), best of \(roomSettings.bestOf)"
      + (roomSettings.fair ? ", fair rooms" : "")
    var lines = [
      "roshambo-server listening on \(host):\(listening.port) (\(versions); \(rules))",
      "identity code: \(listening.code) (players compare it when they first connect)",
      "certificate SHA-256 fingerprint: \(listening.fingerprint)",
    ]
    if let operationsHost, let port = listening.operationsPort {
      lines.append(
        "operations on http://\(Self.bracketed(operationsHost)):\(port) (/metrics, /livez, /readyz)"
      )
    }
    var asked: [String]?
    func addresses() -> [String] {
      if asked == nil { asked = localAddresses() }
      return asked!
    }
    if let boardHost, let port = listening.boardPort {
      lines += Self.boardLines(host: boardHost, port: port, addresses: addresses)
    }
    if let announceName, listening.isAnnouncing {
      lines.append(
        "announcing \"\(announceName)\" on the local network: players run `roshambo` (the lobby)")
    }
    let wildcard = ["0.0.0.0", "::", ""].contains(host)
    let loopback = host.hasPrefix("127.") || host == "::1" || host == "localhost"
    let reachable = wildcard ? addresses() : loopback ? [] : [host]
    if reachable.isEmpty {
      lines.append("players on this machine run the lobby with:")
      lines.append("  roshambo --host \(loopback ? host : "127.0.0.1") --port \(listening.port)")
      return lines
    }
    lines.append(
      listening.isAnnouncing
        ? "or, where multicast does not pass, with (one of):"
        : "players on other machines run the lobby with (one of):")
    for address in reachable {
      lines.append(
        "  roshambo --host \(Self.bracketed(address)) --port \(listening.port) "
          + "--pin \(listening.fingerprint)")
    }
    lines.append("or copy \(caFile ?? "your CA file") to their machine and use --ca ca.pem")
    return lines
  }

  /// Where the TV opens the board: the address it listens on, or, when it listens on every
  /// address, this machine's addresses a browser can open (IPv4 first; a link-local IPv6
  /// address needs a zone a URL cannot carry), or this machine alone when it has none.
  static func boardLines(host: String, port: Int, addresses: () -> [String]) -> [String] {
    guard ["0.0.0.0", "::", ""].contains(host) else {
      return ["the party's board on http://\(bracketed(host)):\(port)/ (open it on the TV)"]
    }
    let urls = addresses().filter { !$0.lowercased().hasPrefix("fe80") }
      .sorted { !$0.contains(":") && $1.contains(":") }
      .map { "http://\(bracketed($0)):\(port)/" }
    guard let first = urls.first else {
      return [
        "the party's board on http://127.0.0.1:\(port)/ (on this machine: no network address "
          + "was found for the TV)"
      ]
    }
    return ["the party's board on \(first) (open it on the TV)"]
      + urls.dropFirst().map { "  or \($0)" }
  }

  /// An IPv6 address in brackets, as a URL or `--host` takes it; others as they are.
  private static func bracketed(_ host: String) -> String {
    host.contains(":") ? "[\(host)]" : host
  }
}
