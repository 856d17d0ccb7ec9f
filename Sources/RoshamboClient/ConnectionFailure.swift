import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Why a TCP connection to a server could not be made, in a player's words: nothing
/// listening, no answer, no route, no such host. The library's own description is kept
/// for `--verbose`.
///
/// Invariant: ``sentence`` names the address and what to check, never a library type.
public struct ConnectionFailure: Error, Sendable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The host answered that no program listens on the port (ECONNREFUSED).
    case refused
    /// No answer in time (a wrong address, a firewall that drops, a host that is off).
    case timedOut
    /// No route to the host or its network from this machine.
    case unreachable
    /// The name could not be resolved to an address.
    case unknownHost
    /// Anything else.
    case other
  }

  public let kind: Kind
  /// "10.99.0.1:7999".
  public let address: String
  public let host: String
  /// The library's description of the error, for `--verbose`.
  public let details: String

  public init(_ error: any Error, host: String, address: String) {
    self.host = host
    self.address = address
    self.details = "\(error)"
    self.kind = Self.kind(of: error)
  }

  private static func kind(of error: any Error) -> Kind {
    switch error {
    case let error as NIOConnectionError:
      if error.dnsAError != nil || error.dnsAAAAError != nil { return .unknownHost }
      let kinds = error.connectionErrors.map { kind(of: $0.error) }
      // Each address tried may have failed its own way; the most telling one is said.
      for kind in [Kind.refused, .unreachable, .timedOut] where kinds.contains(kind) {
        return kind
      }
      return kinds.isEmpty ? .unknownHost : .other
    case let error as IOError:
      switch error.errnoCode {
      case ECONNREFUSED: return .refused
      case ETIMEDOUT: return .timedOut
      case EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, ENETDOWN, EADDRNOTAVAIL: return .unreachable
      default: return .other
      }
    case ChannelError.connectTimeout:
      return .timedOut
    case is SocketAddressError.UnknownHost:
      return .unknownHost
    default:
      return .other
    }
  }

  /// What went wrong and what to do.
  public var sentence: String {
    switch kind {
    case .refused:
      "nothing is listening on \(address): is roshambo-server running there, on that port?"
    case .timedOut:
      "\(address) did not answer in time: check the address, that the machine is on, and "
        + "that no firewall drops the port."
    case .unreachable:
      "\(address) cannot be reached from this machine: check the address and that you are "
        + "on the same network."
    case .unknownHost:
      "cannot find the host \(host): check its spelling, or give its IP address with --host."
    case .other:
      "cannot connect to \(address): check the address and that roshambo-server runs there."
    }
  }

  public var description: String { sentence }

  /// Why a session's connection ended, for a person: this program's own errors say it
  /// themselves; a network library's becomes one plain sentence.
  public static func ended(_ error: any Error) -> String {
    switch error {
    case let error as ProtocolViolation: error.description
    case let error as ServerCheated: error.message
    case let error as ReconnectFailed: error.message
    case let error as ConnectionLost: error.message
    case let error as NoAnswer: error.description
    default: "the connection to the server was lost (the server stopped, or the network dropped)"
    }
  }
}
