/// A connection as the hub knows it: a number, the address it came from (as the
/// per-address limits count it) and the player identity it presented in its TLS
/// handshake. The driver keeps what it needs to write to it; the hub only names it.
///
/// Invariant: two peers are the same connection exactly when their ids are equal.
package struct Peer: Sendable, Hashable {
  package let id: Int
  /// The peer's address as the admission gate counts it (an IPv6 address by its /64);
  /// nil when unknown.
  package var address: String?
  /// The key's SHA-256 the client presented in its TLS handshake, if any.
  package var identity: String?

  package init(id: Int, address: String? = nil, identity: String? = nil) {
    self.id = id
    self.address = address
    self.identity = identity
  }

  package static func == (lhs: Peer, rhs: Peer) -> Bool { lhs.id == rhs.id }
  package func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
