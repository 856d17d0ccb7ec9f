import NIOCore
import RoshamboHub

/// A connection as the hub knows it: an id, the channel to write frames to, and the
/// address it came from, as the per-address limits count it.
///
/// Invariant: two links are the same connection exactly when their ids are equal.
struct ConnectionLink: Sendable, Hashable {
  let id: Int
  let channel: any Channel
  /// The peer's address as ``AdmissionGate/key(for:)`` counts it (an IPv6 address by its
  /// /64); nil when unknown (tests of the hub alone).
  var address: String? = nil
  /// The key the client presented in its TLS handshake, if any: its player identity.
  var identity: String? = nil

  /// The connection as the hub names it.
  var peer: Peer { Peer(id: id, address: address, identity: identity) }

  static func == (lhs: ConnectionLink, rhs: ConnectionLink) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
