import NIOCore

/// A connection as the hub knows it: an id and the channel to write frames to.
///
/// Invariant: two links are the same connection exactly when their ids are equal.
struct ConnectionLink: Sendable, Hashable {
  let id: Int
  let channel: any Channel

  static func == (lhs: ConnectionLink, rhs: ConnectionLink) -> Bool { lhs.id == rhs.id }
  func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
