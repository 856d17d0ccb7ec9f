/// The version both executables print with `--version`.
///
/// Invariant: bumped with every release that changes what a user or a peer sees.
public enum RoshamboVersion {
  public static let number = "1.2.0"
  /// What `--version` prints for a binary built from `commit`.
  public static func description(commit: String) -> String {
    "\(number) (protocol \(WireProtocol.version), commit \(commit))"
  }
}
