import Foundation
import RoshamboTLS

/// The key a player's clients present to every server, as a self-signed TLS client
/// certificate: made on first use, kept private beside `known_servers` (one PEM file,
/// key and certificate, mode 0600), so that a server can bind the player's name to it.
/// Nothing else about the player is in it.
///
/// Invariant: a file readable by anyone but its owner is refused, as SSH refuses such a
/// key, so a name's key never leaks through loose permissions unnoticed.
public struct PlayerIdentity: Sendable, Equatable {
  /// The PEM file holding the key and the certificate.
  public let path: String
  /// The SHA-256 of the public key (64 hex digits): what a server knows the player by.
  public let key: String

  /// Why the identity could not be used; says what to do.
  public struct Problem: Error, CustomStringConvertible, Equatable {
    public let description: String
  }

  /// `$XDG_CONFIG_HOME/roshambo/identity.pem`, else `$HOME/.config/roshambo/identity.pem`;
  /// nil when neither is set.
  public static func defaultPath(environment: [String: String]) -> String? {
    guard let known = KnownServers.defaultPath(environment: environment) else { return nil }
    return (known as NSString).deletingLastPathComponent + "/identity.pem"
  }

  /// The identity in `path`, made there first if the file does not exist (the directory
  /// too, mode 0700); `created` says whether it was.
  public static func loadOrCreate(at path: String) throws -> (PlayerIdentity, created: Bool) {
    let manager = FileManager.default
    if !manager.fileExists(atPath: path) {
      let directory = (path as NSString).deletingLastPathComponent
      do {
        try manager.createDirectory(
          atPath: directory, withIntermediateDirectories: true,
          attributes: [.posixPermissions: 0o700])
        let key = try DevelopmentCertificates.createIdentity(at: path)
        return (PlayerIdentity(path: path, key: key), true)
      } catch {
        throw Problem(
          description: "cannot make your player identity in \(path): \(error); check that "
            + "the folder is writable, or give another file with --identity")
      }
    }
    let attributes = try? manager.attributesOfItem(atPath: path)
    if let mode = attributes?[.posixPermissions] as? Int, mode & 0o077 != 0 {
      throw Problem(
        description: "your player identity \(path) can be read by others; make it yours "
          + "alone with `chmod 600 \(path)` and try again")
    }
    guard let key = try? Fingerprint.publicKeySHA256(ofPEMFile: path) else {
      throw Problem(
        description: "\(path) holds no player identity (a PEM key and certificate); remove "
          + "it to have a new one made, or give another file with --identity")
    }
    return (PlayerIdentity(path: path, key: key), false)
  }

  /// What the player is told the first time: what was made, where, and what it is for.
  public var firstUseLines: [String] {
    [
      "Made your player identity in \(path).",
      "Servers know you by it: once you play under a name there, nobody else can take "
        + "that name. Keep the file private; copy it to play as yourself on another machine.",
    ]
  }
}
