import Foundation
import RoshamboCrypto
import RoshamboProtocol

/// Files a client writes for its player (evidence of a lie, its own match records):
/// created new in a directory only the player can read.
///
/// Invariant: a file is created with `O_EXCL` and mode 0600, never overwriting another;
/// its name never comes raw from the network.
public enum PrivateFile {
  /// Writes `contents` to a new file in `directory` (made 0700 if missing) named by
  /// `name` for a millisecond stamp; a name taken already gets the next stamp. Returns
  /// the path.
  public static func create(
    _ contents: Data, in directory: String, name: (Int64) -> String
  ) throws -> String {
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let stamp = Int64(Date().timeIntervalSince1970 * 1000)
    // A second file within the same millisecond gets the next free name.
    for attempt in 0..<100 {
      let path = "\(directory)/\(name(stamp + Int64(attempt)))"
      let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd < 0 {
        if errno == EEXIST { continue }
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      defer { close(fd) }
      let written = contents.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      guard written == contents.count else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      }
      return path
    }
    throw POSIXError(.EEXIST)
  }

  /// A room's name for a file name: itself when it keeps the protocol's room rule
  /// (`[A-Za-z0-9_-]{1,32}`), else `room-` and the first 16 hex digits of its SHA-256, so
  /// a name from a server can never leave the directory, nor be too long.
  public static func safeName(_ room: String) -> String {
    ClientMessage.isValidRoom(room) ? room : "room-" + SHA256Digest.hex(room).prefix(16)
  }
}
