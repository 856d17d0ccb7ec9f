/// Which player holds which name on a server: the first identity (the SHA-256 of a
/// client's key) to play under a name holds it, on this server, until the host releases
/// it. Part of the lobby's state, so the journal keeps it across restarts.
///
/// Invariant: a name is held by at most one identity; an identity may hold several names.
public struct NameBook: Sendable, Equatable {
  /// Each held name's identity.
  public private(set) var holders: [String: String] = [:]

  public init(holders: [String: String] = [:]) {
    self.holders = holders
  }

  /// The identity holding `name`, if one does.
  public func holder(of name: String) -> String? { holders[name] }

  /// Whether `identity` may play under `name`: nobody holds it, or `identity` does.
  public func allows(_ name: String, for identity: String?) -> Bool {
    guard let holder = holders[name] else { return true }
    return holder == identity
  }

  mutating func claim(_ name: String, for identity: String) {
    if holders[name] == nil { holders[name] = identity }
  }

  mutating func release(_ name: String) {
    holders[name] = nil
  }
}

/// What can happen to the names held on a server.
public enum NameAction: Sendable, Equatable {
  /// `identity` takes `name`, which nobody holds.
  case claim(name: String, identity: String)
  /// The host frees `name` for anyone.
  case release(name: String)
}

extension NameAction {
  /// An identity: the SHA-256 of a key, 64 lower-case hex digits.
  public static func isIdentity(_ text: String) -> Bool {
    text.utf8.count == 64
      && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
