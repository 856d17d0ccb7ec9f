import RoshamboGame

/// A message the server refuses, as the contract's `error`: a code, a sentence for people,
/// and whether the connection is closed after it.
///
/// Invariant: `code` is one of the contract's error codes (or a documented extension).
public struct ProtocolError: Error, Sendable, Equatable {
  public var code: String
  public var message: String
  public var fatal: Bool

  public init(code: String, message: String, fatal: Bool = false) {
    self.code = code
    self.message = message
    self.fatal = fatal
  }

  public static func badFrame(_ message: String) -> ProtocolError {
    ProtocolError(code: "bad_frame", message: message, fatal: true)
  }

  public static func badMessage(_ message: String) -> ProtocolError {
    ProtocolError(code: "bad_message", message: message)
  }

  /// The server cannot save right now (its disk is failing): nothing of the message
  /// happened; try again. Play resumes by itself once the server can save again.
  public static func unavailable() -> ProtocolError {
    ProtocolError(
      code: "unavailable",
      message: "The server cannot save right now, so nothing was done; try again shortly.")
  }

  /// The contract's form of a refusal by the game's rules.
  public init(_ refusal: Refusal) {
    self.init(code: refusal.code, message: refusal.message)
  }
}

/// The protocol's fixed numbers.
public enum WireProtocol {
  /// The protocol version this code speaks.
  public static let version = 1
  /// The largest frame payload, in bytes.
  public static let maxFrameLength = 65_536
  /// The default TCP port.
  public static let defaultPort = 7443
  /// The longest encoding of a weapon field's value (`"scissors"` with its quotes), the
  /// width that frames carrying a hidden pick are padded to.
  static let weaponFieldWidth = 10
}
