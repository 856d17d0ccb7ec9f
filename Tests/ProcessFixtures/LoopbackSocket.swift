import Foundation

/// A TCP socket bound to a free port on 127.0.0.1, listening or not, for tests that
/// need a port nothing answers on or a hand-written peer. The caller closes `descriptor`.
///
/// Invariant: `port` is the port the socket holds, so no other connection can take it
/// while the socket is open.
public struct LoopbackSocket {
  public let descriptor: Int32
  public let port: Int

  /// Binds a new socket (and listens, with a backlog of one, when `listening`); nil if
  /// the system refused any step.
  public static func bound(listening: Bool) -> LoopbackSocket? {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && (!listening || listen(descriptor, 1) == 0)
          && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else {
      close(descriptor)
      return nil
    }
    return LoopbackSocket(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port)))
  }
}
