#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`), which bounds its connections:
/// each one is a socket. Debian's default soft limit is 1,024 while a server is asked
/// for 10,000 connections; past the limit `accept` fails and clients hang in the
/// handshake instead of hearing `server_full`.
///
/// Invariant: ``connections(fitting:soft:)`` never exceeds what the limit leaves once
/// ``reserve`` descriptors are kept for everything that is not a connection.
public enum OpenFileLimit {
  /// Descriptors kept for what is not a connection: standard streams, the listener, the
  /// journal's files, announcement sockets, the event loops' own descriptors, and
  /// connections being refused or closed at accept.
  public static let reserve = 128

  /// The soft and hard limits now.
  public static func current() -> (soft: Int, hard: Int) {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
  }

  /// Raises the soft limit to the hard one (what an unprivileged process may do), and
  /// returns the limits after.
  @discardableResult
  public static func raise() -> (soft: Int, hard: Int) {
    var limit = rlimit()
    getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < limit.rlim_max {
      limit.rlim_cur = limit.rlim_max
      setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
    return current()
  }

  /// How many of `requested` connections a soft limit of `soft` open files allows (at
  /// least 1).
  public static func connections(fitting requested: Int, soft: Int) -> Int {
    max(1, min(requested, soft - reserve))
  }

  private static func clamp(_ value: rlim_t) -> Int {
    value >= rlim_t(Int.max) ? Int.max : Int(value)
  }
}
