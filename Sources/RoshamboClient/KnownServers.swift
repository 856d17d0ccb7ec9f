import Foundation
import RoshamboTLS

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
    self.path = path
    self.entries = []
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch CocoaError.fileReadNoSuchFile {
      return
    } catch {
      throw Problem(description: "cannot read \(path): \(error.localizedDescription)")
    }
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
  /// directory, mode 0700, when needed) and returns the entry.
  @discardableResult
  public mutating func remember(host: String, port: Int, fingerprint: String) throws -> Entry {
    if let known = entry(host: host, port: port) { return known }
    guard let canonical = Fingerprint.normalize(fingerprint),
      !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "#" })
    else {
      throw Problem(description: "cannot remember \(host) \(port) \(fingerprint): not a server")
    }
    let manager = FileManager.default
    let directory = (path as NSString).deletingLastPathComponent
    do {
      try manager.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      if !manager.fileExists(atPath: path) {
        guard
          manager.createFile(
            atPath: path,
            contents: Data("# Servers roshambo trusts: HOST PORT SHA256-FINGERPRINT\n".utf8),
            attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown) }
      }
      let existing = try String(contentsOfFile: path, encoding: .utf8)
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      defer { try? handle.close() }
      try handle.seekToEnd()
      let separator = existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n"
      try handle.write(contentsOf: Data("\(separator)\(host) \(port) \(canonical)\n".utf8))
      let line =
        existing.split(separator: "\n", omittingEmptySubsequences: false).count
        + (separator.isEmpty ? 0 : 1)
      let entry = Entry(host: host, port: port, fingerprint: canonical, line: line)
      entries.append(entry)
      return entry
    } catch {
      throw Problem(
        description: "cannot write \(path): \(error.localizedDescription); check that its "
          + "directory is writable, or trust the server with --pin")
    }
  }
}
