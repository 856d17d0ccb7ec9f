import Foundation
import RoshamboClient
import RoshamboTLS
import Testing

/// The key a player's clients present: made once, private, the same key after.
@Suite("Client: the player's identity")
struct PlayerIdentityTests {
  func folder() -> String {
    NSTemporaryDirectory() + "roshambo-identity-\(getpid())-\(UUID().uuidString)/roshambo"
  }

  @Test("made on first use, private, and the same key every time after")
  func madeOnce() throws {
    let path = folder() + "/identity.pem"
    let (first, created) = try PlayerIdentity.loadOrCreate(at: path)
    #expect(created)
    #expect(first.key.count == 64 && first.key.allSatisfy(\.isHexDigit))
    let file = try FileManager.default.attributesOfItem(atPath: path)
    #expect((file[.posixPermissions] as? Int) == 0o600)
    let folder = try FileManager.default.attributesOfItem(
      atPath: (path as NSString).deletingLastPathComponent)
    #expect((folder[.posixPermissions] as? Int) == 0o700)
    let (again, createdAgain) = try PlayerIdentity.loadOrCreate(at: path)
    #expect(!createdAgain)
    #expect(again == first)
    #expect(first.firstUseLines.joined().contains(path))
    // Two players, two keys.
    let (other, _) = try PlayerIdentity.loadOrCreate(at: self.folder() + "/identity.pem")
    #expect(other.key != first.key)
  }

  @Test("a file others can read, or one that holds no identity, is refused with what to do")
  func refused() throws {
    let path = folder() + "/identity.pem"
    _ = try PlayerIdentity.loadOrCreate(at: path)
    chmod(path, 0o644)
    #expect(throws: PlayerIdentity.Problem.self) { try PlayerIdentity.loadOrCreate(at: path) }
    do {
      _ = try PlayerIdentity.loadOrCreate(at: path)
    } catch {
      #expect("\(error)".contains("chmod 600"))
    }
    let garbage = self.folder() + "/identity.pem"
    try FileManager.default.createDirectory(
      atPath: (garbage as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    #expect(
      FileManager.default.createFile(
        atPath: garbage, contents: Data("not a key".utf8), attributes: [.posixPermissions: 0o600]))
    do {
      _ = try PlayerIdentity.loadOrCreate(at: garbage)
      Issue.record("a file holding no identity was taken")
    } catch {
      #expect("\(error)".contains("holds no player identity"))
    }
  }
}
