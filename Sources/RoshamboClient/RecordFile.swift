import Foundation
import RoshamboGame
import RoshamboProtocol

/// A match record on disk: what `--save-record` writes and `replay`/`verify` read.
///
/// Invariant: ``read(path:)`` reads at most ``MatchRecord/maxBytes`` (and one byte more
/// to tell a larger file), so no file can make the client hold more.
public enum RecordFile {
  /// Writes `match`'s record (a line of JSON) in a new file in `directory`:
  /// `match-ROOM-STAMP.json`. Returns its path.
  public static func write(_ match: FinishedMatch, in directory: String) throws -> String {
    var bytes = MatchRecord.encode(match)
    bytes.append(UInt8(ascii: "\n"))
    return try PrivateFile.create(Data(bytes), in: directory) { stamp in
      "match-\(PrivateFile.safeName(match.room))-\(stamp).json"
    }
  }

  /// Why a record could not be read, in the words a person needs.
  public struct Unreadable: Error, CustomStringConvertible {
    public var description: String
  }

  /// Reads the record in `path` (`-`: standard input).
  public static func read(path: String) throws(Unreadable) -> FinishedMatch {
    let handle: FileHandle
    if path == "-" {
      handle = .standardInput
    } else {
      guard let opened = FileHandle(forReadingAtPath: path) else {
        throw Unreadable(description: "cannot open \(path): \(String(cString: strerror(errno)))")
      }
      handle = opened
    }
    defer { if path != "-" { try? handle.close() } }
    let data: Data
    do {
      data = try handle.read(upToCount: MatchRecord.maxBytes + 1) ?? Data()
    } catch {
      throw Unreadable(description: "cannot read \(path): \(error.localizedDescription)")
    }
    do {
      return try MatchRecord.decode(data)
    } catch {
      throw Unreadable(description: "\(path) is not a match record: \(error.reason)")
    }
  }
}
