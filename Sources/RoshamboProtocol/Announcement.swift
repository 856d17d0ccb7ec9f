import RoshamboJSON

/// What a server says about itself on the local network, and what a client sends to
/// ask servers to say it now: one UDP datagram of JSON each, to the multicast group
/// ``group`` on port ``port`` (see docs/PROTOCOL.md, "Finding servers on a LAN").
///
/// An announcement is only a hint for finding a server: its address is the datagram's
/// source, and TLS verification, never the announcement, decides whether to trust what
/// answers there.
///
/// Invariant: a decoded announcement's name keeps ``PlayerName``'s rule, its port is 1 to
/// 65535, its code is four groups of four digits, and its waiting count is 0 to
/// ``maxWaiting``; so nothing in it can draw outside its line on a screen.
public struct Announcement: Sendable, Equatable {
  /// The IPv4 multicast group (administratively scoped, RFC 2365) servers announce to.
  public static let group = "239.255.74.43"
  /// The UDP port of the group.
  public static let port = 7444
  /// Datagrams longer than this are not announcements and are dropped unread.
  public static let maxBytes = 512
  /// The largest waiting count an announcement may carry.
  public static let maxWaiting = 1_000_000

  /// The server's name for people (`roshambo-server --name`, by default the host name).
  public var name: String
  /// The TLS port players connect to.
  public var port: Int
  /// The wire protocol version the server speaks.
  public var protocolVersion: Int
  /// Players waiting for an opponent in quick match.
  public var waiting: Int
  /// The identity code of the server's certificate, for players to compare.
  public var code: String

  public init(name: String, port: Int, protocolVersion: Int, waiting: Int, code: String) {
    self.name = name
    self.port = port
    self.protocolVersion = protocolVersion
    self.waiting = waiting
    self.code = code
  }

  /// The announcement as the datagram's bytes.
  public func encoded() -> [UInt8] {
    var json = JSONText(capacity: 160)
    json.raw("{\"roshambo\":\"announce\",")
    json.key("protocol"); json.int(protocolVersion); json.comma()
    json.key("name"); json.string(name); json.comma()
    json.key("port"); json.int(port); json.comma()
    json.key("waiting"); json.int(waiting); json.comma()
    json.key("code"); json.string(code)
    json.raw("}")
    return json.bytes
  }

  /// The query a client multicasts so that servers announce themselves at once.
  public static func query() -> [UInt8] {
    Array("{\"roshambo\":\"query\",\"protocol\":\(WireProtocol.version)}".utf8)
  }

  /// What a datagram on the group is.
  public enum Datagram: Sendable, Equatable {
    case announcement(Announcement)
    case query
  }

  /// A problem with a datagram, named for a debug log.
  public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
  }

  /// Decodes a datagram heard on the group. Unknown fields are ignored (later versions
  /// may add some); anything else wrong throws a ``Problem`` naming it.
  public static func decode(_ bytes: some Collection<UInt8>) throws -> Datagram {
    guard bytes.count <= maxBytes else {
      throw Problem(description: "a datagram of \(bytes.count) bytes (at most \(maxBytes))")
    }
    var kind: String?
    var name: String?
    var port: Int?
    var version: Int?
    var waiting: Int?
    var code: String?
    do {
      try JSONReader.withBuffer(bytes) { buffer in
        try JSONReader.read(buffer) { reader in
          try reader.object { reader, key in
            switch key {
            case "roshambo": kind = try reader.string()
            case "protocol": version = try reader.int()
            case "name": name = try reader.string()
            case "port": port = try reader.int()
            case "waiting": waiting = try reader.int()
            case "code": code = try reader.string()
            default: try reader.skipValue()
            }
          }
        }
      }
    } catch let failure as JSONReader.Failure {
      throw Problem(description: "not JSON: \(failure)")
    }
    func required<T>(_ value: T?, _ field: String) throws -> T {
      guard let value else { throw Problem(description: "no \"\(field)\" field") }
      return value
    }
    switch try required(kind, "roshambo") {
    case "query":
      return .query
    case "announce":
      let name = try required(name, "name")
      guard PlayerName.isValid(name) else {
        throw Problem(description: "a name that breaks the player-name rule")
      }
      let port = try required(port, "port")
      guard (1...65_535).contains(port) else { throw Problem(description: "port \(port)") }
      let waiting = try required(waiting, "waiting")
      guard (0...maxWaiting).contains(waiting) else {
        throw Problem(description: "waiting \(waiting)")
      }
      let code = try required(code, "code")
      guard isCode(code) else {
        throw Problem(description: "a code that is not 0000-0000-0000-0000")
      }
      return .announcement(
        Announcement(
          name: name, port: port, protocolVersion: try required(version, "protocol"),
          waiting: waiting, code: code))
    case let other:
      throw Problem(description: "unknown kind \"\(other.prefix(16))\"")
    }
  }

  /// Whether `text` has the form of an identity code: four groups of four ASCII digits
  /// joined by hyphens.
  public static func isCode(_ text: String) -> Bool {
    let bytes = Array(text.utf8)
    guard bytes.count == 19 else { return false }
    for (index, byte) in bytes.enumerated() {
      if index % 5 == 4 {
        guard byte == UInt8(ascii: "-") else { return false }
      } else if !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
        return false
      }
    }
    return true
  }
}
