import RoshamboProtocol

/// A server heard announcing itself on the local network: where the announcement came
/// from and what it said. Only a hint: TLS decides whether to trust what answers there.
///
/// Invariant: `host` is the numeric source address of the datagram (never a name from
/// the announcement), so a server cannot send players to a third machine by naming it.
public struct DiscoveredServer: Sendable, Equatable {
  public var host: String
  public var announcement: Announcement

  public init(host: String, announcement: Announcement) {
    self.host = host
    self.announcement = announcement
  }

  public var port: Int { announcement.port }

  /// `host:port`, with an IPv6 address in brackets.
  public var address: String { Self.address(host: host, port: port) }

  /// `host:port` for any server, with an IPv6 address in brackets (how every message
  /// names a server).
  public static func address(host: String, port: Int) -> String {
    (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
  }

  /// One line for people: name, address, waiting players, code. The name keeps the
  /// player-name rule (no control or format characters), so the line is safe to print.
  public var line: String {
    let waiting = announcement.waiting == 1 ? "1 waiting" : "\(announcement.waiting) waiting"
    return "\(announcement.name)  \(address)  \(waiting)  code \(announcement.code)"
  }
}
