import Foundation
import Sysexits

/// `roshambo servers`: the servers announcing themselves on the local network, one line
/// each.
///
/// Invariant: it succeeds only when at least one server was heard.
public struct ServerListing: Sendable {
  /// Seconds to listen.
  public var timeout: Double

  public init(timeout: Double) {
    self.timeout = timeout
  }

  public func run() async throws {
    let found: [DiscoveredServer]
    do {
      found = try await ServerDiscovery.find(timeout: .milliseconds(Int64(timeout * 1000)))
    } catch {
      StandardError.complain("cannot listen for servers: \(error); use --host to name one.")
      throw CommandExit(ExitStatus.unavailable)
    }
    for server in found { print(TerminalText.sanitized(server.line)) }
    if found.isEmpty {
      StandardError.complain(
        "no server announced itself within \(timeout) s; check that roshambo-server runs on "
          + "this network without --no-announce, and that the network passes multicast.")
      throw CommandExit(ExitStatus.failure)
    }
  }
}
