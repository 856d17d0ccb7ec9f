import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The name a player gets when they do not give one: their login name, from the
/// environment or else the password database, as long as it keeps the player-name rule.
///
/// Invariant: what it returns is a valid ``PlayerName`` (normalized), or nil.
public enum LoginName {
  /// `USER`, then `LOGNAME`, then `account` (the password database's name for this
  /// user): the first that is set, not empty, and a valid player name.
  public static func resolve(environment: [String: String], account: String?) -> String? {
    for candidate in [environment["USER"], environment["LOGNAME"], account] {
      guard let candidate, !candidate.isEmpty else { continue }
      if case .success(let name) = PlayerName.normalize(candidate) { return name }
    }
    return nil
  }

  /// This process's user name in the password database (`getpwuid`), if it has one.
  public static func account() -> String? {
    guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return nil }
    return String(cString: name)
  }
}
