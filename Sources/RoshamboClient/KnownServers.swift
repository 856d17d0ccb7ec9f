import Foundation
import RoshamboTLS

#if canImport(Glibc)
  import Glibc
#endif

/// The servers a player has trusted on first use, as SSH keeps known_hosts: one line per
/// server, `HOST PORT SHA256-FINGERPRINT`, in `$XDG_CONFIG_HOME/roshambo/known_servers`
/// (by default `~/.config/roshambo/known_servers`). Blank lines and lines starting with
/// `#` are comments.
///
/// Invariant: a server (host and port) is looked up by its first valid line, and
/// ``remember(host:port:fingerprint:)`` never adds a line for a server already listed, so
/// a changed certificate is refused until its line is removed by hand.
public struct KnownServers: Sendable, Equatable {
  /// One remembered server, with the line it is on (1-based) for messages.
  public struct Entry: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var fingerprint: String
    public var line: Int
  }

  /// Why the file could not be used; each names the file (and line) and what to do.
  public struct Problem: Error, Equatable, CustomStringConvertible {
    public let description: String
  }

  public let path: String
  public private(set) var entries: [Entry]

  /// The file's path from the environment: `$XDG_CONFIG_HOME/roshambo/known_servers`,
  /// else `$HOME/.config/roshambo/known_servers`; nil when neither is set.
  public static func defaultPath(environment: [String: String]) -> String? {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      return config + "/roshambo/known_servers"
    }
    guard let home = environment["HOME"], !home.isEmpty else { return nil }
    return home + "/.config/roshambo/known_servers"
  }

  /// Reads the file; a missing file is an empty list. A line that is not
  /// `HOST PORT FINGERPRINT` throws, naming the file and line (a damaged file must not
  /// quietly forget a server whose certificate then changes).
  public init(path: String) throws {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch CocoaError.fileReadNoSuchFile {
      text = ""
    } catch {
      throw Problem(description: "cannot read \(path): \(error.localizedDescription)")
    }
    try self.init(path: path, text: text)
  }

  /// The servers listed in `text`, the contents of the file at `path`.
  private init(path: String, text: String) throws {
    self.path = path
    self.entries = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count == 3, let port = Int(fields[1]), (1...65_535).contains(port),
        let fingerprint = Fingerprint.normalize(String(fields[2]))
      else {
        throw Problem(
          description:
            "line \(index + 1) of \(path) is not \"HOST PORT SHA256-FINGERPRINT\"; fix or "
            + "remove that line")
      }
      entries.append(
        Entry(host: String(fields[0]), port: port, fingerprint: fingerprint, line: index + 1))
    }
  }

  /// The remembered entry for a server, if any.
  public func entry(host: String, port: Int) -> Entry? {
    entries.first { $0.host == host && $0.port == port }
  }

  /// Adds a line for a server not listed yet (creating the file, mode 0600, and its
  /// directory, mode 0700, when needed) and returns the entry. The file is locked while
  /// it is read again and written, so two clients trusting a server at once add one line.
  @discardableResult
  public mutating func remember(host: String, port: Int, fingerprint: String) throws -> Entry {
    if let known = entry(host: host, port: port) { return known }
    guard let canonical = Fingerprint.normalize(fingerprint),
      !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "#" })
    else {
      throw Problem(description: "cannot remember \(host) \(port) \(fingerprint): not a server")
    }
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw Problem(
        description: "cannot create \(directory): \(error.localizedDescription); trust the "
          + "server with --pin instead")
    }
    let descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Problem(
        description: "cannot write \(path): \(String(cString: strerror(errno))); check that it "
          + "is writable, or trust the server with --pin")
    }
    defer { close(descriptor) }
    flock(descriptor, LOCK_EX)
    defer { flock(descriptor, LOCK_UN) }
    // Another client may have added lines since this list was read: read it again, once.
    let existing: String
    do {
      existing = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw Problem(description: "cannot read \(path): \(error.localizedDescription)")
    }
    self = try KnownServers(path: path, text: existing)
    if let known = entry(host: host, port: port) { return known }
    var text = ""
    if existing.isEmpty { text += "# Servers roshambo trusts: HOST PORT SHA256-FINGERPRINT\n" }
    if !existing.isEmpty, !existing.hasSuffix("\n") { text += "\n" }
    text += "\(host) \(port) \(canonical)\n"
    let bytes = Array(text.utf8)
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == bytes.count else {
      throw Problem(
        description: "cannot write \(path): \(String(cString: strerror(errno))); the server was "
          + "not remembered")
    }
    let line = (existing + text).split(separator: "\n", omittingEmptySubsequences: false).count - 1
    let entry = Entry(host: host, port: port, fingerprint: canonical, line: line)
    entries.append(entry)
    return entry
  }
}
