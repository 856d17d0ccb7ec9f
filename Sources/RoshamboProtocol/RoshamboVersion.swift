/// The version both executables print with `--version`.
///
/// Invariant: bumped with every release that changes what a user or a peer sees.
public enum RoshamboVersion {
  public static let number = "1.1.0"
  public static var description: String {
    "\(number) (protocol \(WireProtocol.version))"
  }
}
