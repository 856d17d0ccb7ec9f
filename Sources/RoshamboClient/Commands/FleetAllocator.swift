import RoshamboTLS
import Sysexits

/// Where a fleet's allocator is and how to talk to it (`--allocator` and its options):
/// what `play`, `watch` and `bot` ask for their server in a fleet rather than by `--host`
/// or on the local network.
///
/// Invariant: ``allocate(_:)`` returns a server's address only after saying on standard
/// error which server the allocator chose; every other way out is a ``CommandExit`` after
/// saying why.
public struct FleetAllocator: Sendable {
  /// `https://HOST[:PORT]`.
  public var address: String
  /// The CA certificate that signed the allocator's.
  public var ca: String
  /// The client certificate and its key, for mutual TLS.
  public var certificate: String?
  public var key: String?
  public var namespace: String
  public var fleet: String

  public init(
    address: String, ca: String, certificate: String?, key: String?, namespace: String,
    fleet: String
  ) {
    self.address = address
    self.ca = ca
    self.certificate = certificate
    self.key = key
    self.namespace = namespace
    self.fleet = fleet
  }

  /// `https://HOST[:PORT][/]` as host and port (443 when not given), or nil.
  public static func address(_ text: String) -> (host: String, port: Int)? {
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

  /// The exit when the allocator gave no server for `purpose`: 1 when there is no room to
  /// watch (nothing is wrong but the room's name), 69 otherwise.
  public static func exit(after failure: AllocatorFailure, for purpose: FleetAllocation.Purpose)
    -> CommandExit
  {
    if case .watch = purpose, failure.kind == .noServer { return CommandExit(ExitStatus.failure) }
    return CommandExit(ExitStatus.unavailable)
  }

  /// Asks the allocator for the server for `purpose`; says which it chose.
  public func allocate(_ purpose: FleetAllocation.Purpose) async throws -> (
    host: String, port: Int
  ) {
    guard let (host, port) = Self.address(address) else { throw CommandExit(ExitStatus.usage) }
    let tls: TLSContext
    do {
      tls = try TLSContext(
        .client(trust: .caFile(ca), certificateChainFile: certificate, privateKeyFile: key))
    } catch let error as TLSError {
      StandardError.complain(error.message)
      throw CommandExit(ExitStatus.dataError)
    }
    let allocation = FleetAllocation(purpose: purpose, namespace: namespace, fleet: fleet)
    do {
      let chosen = try await AllocatorClient.allocate(allocation, host: host, port: port, tls: tls)
      StandardError.complain(
        "the allocator chose the server \(chosen.gameServerName) at "
          + DiscoveredServer.address(host: chosen.host, port: chosen.port))
      return (chosen.host, chosen.port)
    } catch {
      StandardError.complain(error.message)
      throw Self.exit(after: error, for: purpose)
    }
  }
}
