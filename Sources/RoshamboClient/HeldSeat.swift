import Foundation
import RoshamboCrypto
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The seat a player holds on one server while its match runs (a match, a challenge's
/// room, a tournament match), kept on disk so that `roshambo` started again after a
/// closed terminal or a crash takes it back within the server's grace period. One file
/// per server and name in `$XDG_CONFIG_HOME/roshambo/seats/` (by default
/// `~/.config/roshambo/seats/`), three lines: the name, the room, the resume token.
///
/// Invariant: the files are 0600 in a 0700 directory, named by a digest (nothing from the
/// network names a file); a file is read back only when every field keeps the protocol's
/// rules, and one that does not is removed.
public struct HeldSeat: Equatable, Sendable {
  public var name: String
  public var room: String
  public var token: String

  public init(name: String, room: String, token: String) {
    self.name = name
    self.room = room
    self.token = token
  }

  /// Where the seats are kept: `seats/` beside `known_servers`
  /// (``KnownServers/defaultPath(environment:)``); nil when there is no such place.
  public static func defaultDirectory(environment: [String: String]) -> String? {
    guard let known = KnownServers.defaultPath(environment: environment) else { return nil }
    return (known as NSString).deletingLastPathComponent + "/seats"
  }

  /// The file for `name` on the server at `host` and `port`.
  public static func path(in directory: String, host: String, port: Int, name: String) -> String {
    directory + "/" + SHA256Digest.hex("\(host) \(port) \(name)").prefix(32)
  }

  /// Whether a token is one the protocol's servers issue: 1 to 128 characters of ASCII
  /// letters, digits, `-` and `_`.
  static func isToken(_ token: String) -> Bool {
    (1...128).contains(token.utf8.count)
      && token.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
          || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
      }
  }

  /// The seat in the file, if there is one and it holds: the same name, a valid room and
  /// token. A damaged file is removed (it can hold nothing to come back to).
  public static func read(at path: String, name: String) -> HeldSeat? {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard lines.count >= 3, lines[0] == name, ClientMessage.isValidRoom(lines[1]),
      isToken(lines[2])
    else {
      unlink(path)
      return nil
    }
    return HeldSeat(name: lines[0], room: lines[1], token: lines[2])
  }

  /// Writes the seat (replacing what the file held), mode 0600; the directory is made
  /// 0700 when missing.
  public func write(to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let temporary = path + ".new"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    let bytes = Array("\(name)\n\(room)\n\(token)\n".utf8)
    let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard written == bytes.count, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
  }

  /// Forgets the seat kept at `path`, if any.
  public static func forget(at path: String) {
    unlink(path)
  }
}

/// What a session keeps of its seat while a match runs, and forgets when it ends: a
/// ``HeldSeat`` file for one server and name.
///
/// Invariant: the file is written only when the seat changes, and removed once the match
/// is over, the player leaves, or the server says the token holds no seat.
@MainActor
public final class SeatMemory {
  public let path: String
  private let name: String
  private var kept: HeldSeat?
  /// Whether the file is known to be gone (so each state of a finished match does not
  /// remove it again).
  private var forgotten = false

  public init(path: String, name: String) {
    self.path = path
    self.name = name
  }

  /// The seat this player may take back on starting, if one is kept.
  public var held: HeldSeat? { HeldSeat.read(at: path, name: name) }

  /// Keeps `room` and `token` (a failure to write loses only the way back).
  func keep(room: String, token: String) {
    let seat = HeldSeat(name: name, room: room, token: token)
    guard seat != kept else { return }
    kept = seat
    forgotten = false
    try? seat.write(to: path)
  }

  public func forget() {
    guard !forgotten else { return }
    kept = nil
    forgotten = true
    HeldSeat.forget(at: path)
  }
}
