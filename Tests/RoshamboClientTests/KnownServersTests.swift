import Foundation
import RoshamboClient
import Testing

@Suite("known_servers")
struct KnownServersTests {
  let fingerprint = String(repeating: "AB:", count: 31) + "AB"
  let other = String(repeating: "CD:", count: 31) + "CD"

  func temporaryPath() -> String {
    NSTemporaryDirectory() + "roshambo-known-\(UUID().uuidString)/roshambo/known_servers"
  }

  @Test("the path: $XDG_CONFIG_HOME, else ~/.config, else none")
  func path() {
    #expect(
      KnownServers.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
        == "/x/roshambo/known_servers")
    #expect(
      KnownServers.defaultPath(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])
        == "/h/.config/roshambo/known_servers")
    #expect(
      KnownServers.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/roshambo/known_servers")
    #expect(KnownServers.defaultPath(environment: [:]) == nil)
  }

  @Test("a missing file knows nothing; remembering creates it private, and a reload finds it")
  func remember() throws {
    let path = temporaryPath()
    var known = try KnownServers(path: path)
    #expect(known.entries.isEmpty)
    let entry = try known.remember(
      host: "10.0.0.5", port: 7443, fingerprint: fingerprint.lowercased())
    #expect(entry.line == 2)  // after the header comment
    #expect(entry.fingerprint == fingerprint)
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let directory = try FileManager.default.attributesOfItem(
      atPath: (path as NSString).deletingLastPathComponent)
    #expect((directory[.posixPermissions] as? Int) == 0o700)

    let reloaded = try KnownServers(path: path)
    #expect(reloaded.entry(host: "10.0.0.5", port: 7443) == entry)
    #expect(reloaded.entry(host: "10.0.0.5", port: 7444) == nil)
    #expect(reloaded.entry(host: "10.0.0.6", port: 7443) == nil)
  }

  @Test("a server already listed keeps its line: a new fingerprint is not added beside it")
  func firstLineWins() throws {
    var known = try KnownServers(path: temporaryPath())
    let first = try known.remember(host: "h", port: 1, fingerprint: fingerprint)
    let second = try known.remember(host: "h", port: 1, fingerprint: other)
    #expect(second == first)
    #expect(try KnownServers(path: known.path).entries.count == 1)
  }

  @Test("lines are counted as an editor counts them, with comments and a missing last newline")
  func lineNumbers() throws {
    let path = temporaryPath()
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try "# mine\n\n[::1] 7443 \(fingerprint)".write(toFile: path, atomically: true, encoding: .utf8)
    var known = try KnownServers(path: path)
    #expect(known.entries.map(\.line) == [3])
    let added = try known.remember(host: "10.0.0.9", port: 9, fingerprint: other)
    #expect(added.line == 4)
    #expect(try KnownServers(path: path).entries.map(\.line) == [3, 4])
  }

  @Test("a damaged line is refused naming the file and line, not skipped")
  func damaged() throws {
    let path = temporaryPath()
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try "h 1 \(fingerprint)\nh 2 not-a-fingerprint\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    #expect {
      try KnownServers(path: path)
    } throws: { error in
      "\(error)".contains("line 2 of \(path)")
    }
  }
}
