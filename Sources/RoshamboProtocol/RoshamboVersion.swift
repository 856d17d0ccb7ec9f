/// The version both executables print with `--version`.
///
/// Invariant: bumped with every release that changes what a user or a peer sees.
public enum RoshamboVersion {
  public static let number = "1.2.0"
  /// The first release that plays fair rooms (commit–reveal).
  public static let playsFairSince = "1.2"
  /// The first release that presents a player identity (a key) to the server.
  public static let presentsIdentitySince = "1.3"
  /// What `--version` prints for a binary built from `commit`.
  public static func description(commit: String) -> String {
    "\(number) (protocol \(WireProtocol.version), commit \(commit))"
  }
}
