/// The exit statuses of `roshambo` and `roshambo-server`, from sysexits(3), chosen from
/// typed errors and never from the text of a message.
///
/// Invariant: each failure a person can act on has its own status.
public enum ExitStatus {
  public static let success: Int32 = 0
  /// The game ended badly: the server refused, or the connection was lost.
  public static let failure: Int32 = 1
  /// EX_USAGE: a bad flag or value.
  public static let usage: Int32 = 64
  /// EX_DATAERR: a file was read but is wrong (not a certificate, a key that does not fit).
  public static let dataError: Int32 = 65
  /// EX_NOINPUT: a file named on the command line cannot be read.
  public static let noInput: Int32 = 66
  /// EX_UNAVAILABLE: the server cannot be reached or trusted.
  public static let unavailable: Int32 = 69
  /// EX_NOPERM: the server is not trusted: its identity changed since it was remembered,
  /// or a new server was not accepted.
  public static let untrusted: Int32 = 77
  /// EX_SOFTWARE: a bot's program (`roshambo bot --exec`) exited or was stopped while
  /// it had a match to play.
  public static let botProgram: Int32 = 70
  /// EX_PROTOCOL: the server sent something that breaks the protocol.
  public static let protocolViolation: Int32 = 76
}
