import Foundation

/// Where a shared history lives: a PostgreSQL URL as `--history-url` takes it,
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require]`.
///
/// Invariant: made only by ``init(parsing:)``, so host, user and database are never
/// empty and the port is a valid TCP port.
public struct HistoryAddress: Sendable, Equatable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var user: String
  /// From the URL, else `PGPASSWORD` in the environment, else none (trust, or a socket).
  public var password: String?
  public var database: String
  /// Whether the connection must use TLS (`sslmode=require`; the default is `disable`,
  /// for a database on the same host or network).
  public var requiresTLS: Bool

  /// What went wrong with a URL, in the user's words.
  public struct Invalid: Error, CustomStringConvertible {
    public var description: String
  }

  public init(
    parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(Invalid) {
    let example = "postgres://roshambo@127.0.0.1:5432/roshambo"
    guard let url = URLComponents(string: text), let scheme = url.scheme,
      ["postgres", "postgresql"].contains(scheme.lowercased())
    else {
      throw Invalid(description: "\(Self.shown(text)) is not a postgres:// URL (e.g. \(example))")
    }
    guard let host = url.host, !host.isEmpty else {
      throw Invalid(description: "\(Self.shown(text)) names no host (e.g. \(example))")
    }
    guard let user = url.user, !user.isEmpty else {
      throw Invalid(description: "\(Self.shown(text)) names no user (e.g. \(example))")
    }
    let database = String(url.path.drop { $0 == "/" })
    guard !database.isEmpty, !database.contains("/") else {
      throw Invalid(description: "\(Self.shown(text)) names no database (e.g. \(example))")
    }
    let port = url.port ?? 5432
    guard (1...65_535).contains(port) else {
      throw Invalid(description: "\(Self.shown(text)) has port \(port); it must be 1 to 65535")
    }
    var requiresTLS = false
    for item in url.queryItems ?? [] {
      switch (item.name, item.value) {
      case ("sslmode", "disable"?): requiresTLS = false
      case ("sslmode", "require"?): requiresTLS = true
      default:
        throw Invalid(
          description: "\(Self.shown(text)): only sslmode=disable or sslmode=require is understood")
      }
    }
    self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    self.port = port
    self.user = user
    self.password = url.password ?? environment["PGPASSWORD"]
    self.database = database
    self.requiresTLS = requiresTLS
  }

  /// The address without its password, for logs and messages.
  public var description: String {
    let shownHost = host.contains(":") ? "[\(host)]" : host
    return "postgres://\(user)@\(shownHost):\(port)/\(database)"
  }

  /// A URL as given, its password (if any) hidden, cut to 200 characters.
  private static func shown(_ text: String) -> String {
    var shown = String(text.prefix(200))
    if let start = shown.range(of: "://")?.upperBound, let at = shown[start...].lastIndex(of: "@"),
      let colon = shown[start..<at].firstIndex(of: ":")
    {
      shown.replaceSubrange(shown.index(after: colon)..<at, with: "***")
    }
    return "\"" + shown + "\""
  }
}
