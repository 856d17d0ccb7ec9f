import NIOCore
import RoshamboConnections

/// Decides, the moment a TCP connection is accepted and before any TLS, whether it may
/// start: by its address (an IPv6 address by its /64, which one host usually holds
/// whole), by how many connections are open, and by how many are still in their TLS
/// handshake. A connection over a limit is refused with `server_full` after its
/// handshake while few such refusals are under way from its address; past that it is
/// closed at once, so connections that never finish a handshake cannot fill the server.
///
/// Invariant: at most `maxHandshakes` connections, and `maxHandshakesPerAddress` from
/// one address, are in their handshake at once; at most `maxConnectionsPerAddress`
/// admitted connections come from one address; a connection that was closed at once is
/// counted nowhere.
struct AdmissionGate {
  struct Limits: Equatable {
    var maxConnections: Int
    var maxConnectionsPerAddress: Int
    var maxHandshakes: Int
    var maxHandshakesPerAddress: Int
    /// Refusals (connections told `server_full` after their handshake) under way from one
    /// address at once; more are closed without a word.
    var maxRefusalsPerAddress = 2
  }

  enum Decision: Equatable {
    /// Start TLS; the connection is admitted.
    case admit
    /// Start TLS, then refuse with `server_full` for this reason and close.
    case refuse(ConnectionStateMachine.Admission)
    /// Close now, before TLS.
    case drop
  }

  private struct Counts {
    var open = 0
    var handshaking = 0
    var refusing = 0
  }

  private struct Entry {
    var key: String
    var handshaking: Bool
    var refusing: Bool
  }

  let limits: Limits
  private var entries: [Int: Entry] = [:]
  private var byKey: [String: Counts] = [:]
  private var admitted = 0
  private(set) var handshaking = 0

  init(limits: Limits) {
    self.limits = limits
  }

  /// How many connections are open (admitted, or being refused).
  var open: Int { entries.count }

  /// A connection `id` from `address` was accepted.
  mutating func accept(_ id: Int, from address: SocketAddress?) -> Decision {
    let key = Self.key(for: address)
    var counts = byKey[key] ?? Counts()
    guard handshaking < limits.maxHandshakes,
      counts.handshaking < limits.maxHandshakesPerAddress
    else { return .drop }
    let decision: Decision
    if admitted >= limits.maxConnections {
      decision = .refuse(.serverFull)
    } else if counts.open - counts.refusing >= limits.maxConnectionsPerAddress {
      decision = .refuse(.addressFull)
    } else {
      decision = .admit
    }
    let refusing = decision != .admit
    if refusing, counts.refusing >= limits.maxRefusalsPerAddress { return .drop }
    counts.open += 1
    counts.handshaking += 1
    if refusing { counts.refusing += 1 } else { admitted += 1 }
    byKey[key] = counts
    handshaking += 1
    entries[id] = Entry(key: key, handshaking: true, refusing: refusing)
    return decision
  }

  /// The connection's TLS handshake is done.
  mutating func handshakeFinished(_ id: Int) {
    guard var entry = entries[id], entry.handshaking else { return }
    entry.handshaking = false
    entries[id] = entry
    handshaking -= 1
    byKey[entry.key]?.handshaking -= 1
  }

  /// The connection closed (whatever it was doing).
  mutating func closed(_ id: Int) {
    guard let entry = entries.removeValue(forKey: id) else { return }
    if entry.handshaking { handshaking -= 1 }
    if !entry.refusing { admitted -= 1 }
    var counts = byKey[entry.key]!
    counts.open -= 1
    if entry.handshaking { counts.handshaking -= 1 }
    if entry.refusing { counts.refusing -= 1 }
    byKey[entry.key] = counts.open == 0 ? nil : counts
  }

  /// What the per-address limits count by: an IPv4 address whole, an IPv6 address by its
  /// first 64 bits (an IPv4-mapped IPv6 address as the IPv4 address it maps).
  static func key(for address: SocketAddress?) -> String {
    switch address {
    case .v4(let v4)?:
      return address?.ipAddress ?? "\(v4)"
    case .v6(let v6)?:
      let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
      if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
        return bytes[12..<16].map(String.init).joined(separator: ".")
      }
      let groups = stride(from: 0, to: 8, by: 2).map {
        String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
      }
      return groups.joined(separator: ":") + "::/64"
    default:
      return "?"
    }
  }
}
