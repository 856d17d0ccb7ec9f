import RoshamboGame

/// A message the server refuses, as the contract's `error`: a code, a sentence for people,
/// and whether the connection is closed after it.
///
/// Invariant: the server only sends codes of ``ErrorCode/contract``; a client keeps
/// whatever code arrives.
public struct ProtocolError: Error, Sendable, Equatable {
  public var code: ErrorCode
  public var message: String
  public var fatal: Bool
  /// With `closing`: how many seconds the server has left before it closes.
  public var seconds: Int?

  public init(code: ErrorCode, message: String, fatal: Bool = false, seconds: Int? = nil) {
    self.code = code
    self.message = message
    self.fatal = fatal
    self.seconds = seconds
  }

  public static func badFrame(_ message: String) -> ProtocolError {
    ProtocolError(code: .badFrame, message: message, fatal: true)
  }

  public static func badMessage(_ message: String) -> ProtocolError {
    ProtocolError(code: .badMessage, message: message)
  }

  /// The server cannot save right now (its disk is failing): nothing of the message
  /// happened; try again. Play resumes by itself once the server can save again.
  public static func unavailable() -> ProtocolError {
    ProtocolError(
      code: .unavailable,
      message: "The server cannot save right now, so nothing was done; try again shortly.")
  }

  /// The contract's form of a refusal by the game's rules.
  public init(_ refusal: Refusal) {
    self.init(code: ErrorCode(refusal), message: refusal.message)
  }

  public static func notPlaying(_ message: String) -> ProtocolError {
    ProtocolError(code: .notPlaying, message: message)
  }

  /// Anything but `hello` (or `ping`) before `hello`.
  public static func helloFirst() -> ProtocolError {
    ProtocolError(code: .helloFirst, message: "Send hello before anything else.")
  }

  public static func unsupportedProtocol(_ version: Int) -> ProtocolError {
    ProtocolError(
      code: .unsupportedProtocol,
      message: "This server speaks protocol \(WireProtocol.version), not \(version).", fatal: true)
  }

  public static func badToken() -> ProtocolError {
    ProtocolError(
      code: .badToken,
      message:
        "That resume token holds no seat (the match may have ended); join again without it.",
      fatal: true)
  }

  /// The connection is closed for a silence of `message`'s kind.
  public static func timeout(_ message: String) -> ProtocolError {
    ProtocolError(code: .timeout, message: message, fatal: true)
  }

  public static func serverFull(_ message: String) -> ProtocolError {
    ProtocolError(code: .serverFull, message: message, fatal: true)
  }

  /// The server is draining before it stops: it closes in `seconds`. Not fatal: a match
  /// under way may still finish. Fatal for a `hello` that would start something new.
  public static func closing(seconds: Int, fatal: Bool = false) -> ProtocolError {
    let when = seconds > 0 ? "in \(seconds) s" : "now"
    return ProtocolError(
      code: .closing,
      message: fatal
        ? "The server is closing \(when) and takes no new players; join again once it is back."
        : "The server is closing \(when): a match under way may finish; one that does not "
          + "resumes when the server is back. No new matches start.",
      fatal: fatal, seconds: seconds)
  }

  public static func rateLimited(_ message: String, fatal: Bool) -> ProtocolError {
    ProtocolError(code: .rateLimited, message: message, fatal: fatal)
  }

  /// A refusal because the client is older than `release`, the first that can do what
  /// was asked: `reason`, then the advice to upgrade to it, then `otherwise` (what else
  /// the person may do), if any. The one wording of that advice on the wire.
  public static func needsUpgrade(
    _ code: ErrorCode, _ reason: String, to release: String, otherwise: String? = nil
  ) -> ProtocolError {
    let advice = "upgrade to roshambo \(release) or later"
    return ProtocolError(
      code: code, message: "\(reason); \(advice)\(otherwise.map { ", \($0)" } ?? "").")
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
