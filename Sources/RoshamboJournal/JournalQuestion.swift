import Foundation
import GRDB
import RoshamboGame
import RoshamboProtocol

/// What a tool asks of a journal (`roshambo-server history`, `roshambo-server replay`),
/// and the time zone it prints times in. Asked of the server that holds the journal, over
/// its local socket (``JournalSocket``), or of the file when no server holds it.
///
/// Invariant: however it is asked, one function answers it (``answer(on:path:)``), in one
/// read transaction, so both routes print the same.
public struct JournalQuestion: Sendable, Equatable, Codable {
  public enum Kind: Sendable, Equatable, Codable {
    /// One kept match, round by round with the check of its record, or as its JSON record.
    case match(id: Int64, json: Bool)
    /// The kept matches a filter lets through, newest first, and the leaderboard; or the
    /// matches' JSON records, one a line.
    case matches(MatchHistory.Filter, json: Bool)
    /// The lobby as it stood after a row (nil: the last row).
    case lobby(until: Int64?)
  }

  public var kind: Kind
  /// The asker's time zone (an identifier such as "Europe/Berlin"), for the times printed.
  public var timeZone: String

  public init(_ kind: Kind, timeZone: String = TimeZone.current.identifier) {
    self.kind = kind
    self.timeZone = timeZone
  }

  /// The largest question a socket reads: a filter's player name is the only free text.
  static let maxBytes = 16 * 1024

  /// The answer, read on `db` (the journal at `path`), in one transaction.
  func answer(on db: Database, path: String) throws -> JournalAnswer {
    let zone = TimeZone(identifier: timeZone) ?? .current
    switch kind {
    case .match(let id, let json):
      guard let found = try Journal.match(db, id: id) else {
        return JournalAnswer(
          status: JournalAnswer.noInput,
          complaint:
            "no match \(id) is kept in \(Self.directory(of: path))/ (it never finished, or was "
            + "pruned).")
      }
      if json {
        return JournalAnswer(printed: String(decoding: MatchRecord.encode(found), as: UTF8.self))
      }
      let lines =
        MatchRecordText.heading(found, timeZone: zone)
        + MatchRecordText.rounds(found).map { "  " + $0 }
        + ["Check of the record:"] + MatchRecordText.verification(RecordVerification(found))
      return JournalAnswer(printed: lines.joined(separator: "\n"))
    case .matches(let filter, let json):
      guard json else {
        return JournalAnswer(
          printed: try MatchHistory.report(db, path: path, filter, timeZone: zone))
      }
      return JournalAnswer(
        printed: try MatchHistory.matches(db, filter)
          .map { String(decoding: MatchRecord.encode($0), as: UTF8.self) }
          .joined(separator: "\n"))
    case .lobby(let until):
      do {
        return JournalAnswer(printed: try JournalReplay.report(db, path: path, until: until))
      } catch let unreachable as JournalReplay.Unreachable {
        return JournalAnswer(status: JournalAnswer.dataError, complaint: unreachable.description)
      }
    }
  }

  /// Where an answer came from.
  public enum Source: Sendable, Equatable {
    /// The server running on the data directory, which holds the journal.
    case server
    /// The file itself: no server runs on it.
    case file
    /// Neither (the answer is a complaint saying why).
    case neither
  }

  /// Asks the server running on `dataDirectory` (``JournalSocket``), or reads the journal
  /// there when no server answers; the answer, and where it came from.
  public func ask(dataDirectory: String) -> (answer: JournalAnswer, source: Source) {
    do {
      if case .answered(let answer) = try JournalSocket.ask(self, dataDirectory: dataDirectory) {
        return (answer, .server)
      }
    } catch {
      return (
        JournalAnswer(
          status: JournalAnswer.unavailable,
          complaint: "cannot ask the server running on \(dataDirectory)/: \(error)"),
        .neither
      )
    }
    return (answerFromFile(dataDirectory: dataDirectory), .file)
  }

  /// The answer read from the journal file in `dataDirectory`, read-only.
  func answerFromFile(dataDirectory: String) -> JournalAnswer {
    let file = (dataDirectory as NSString).appendingPathComponent("roshambo.sqlite")
    guard FileManager.default.fileExists(atPath: file) else {
      return JournalAnswer(
        status: JournalAnswer.noInput,
        complaint: "no journal in \(dataDirectory)/ (run the server first, or give --data-dir).")
    }
    do {
      // A server that was killed may have left its last rows in the journal's tail: they
      // go into the database first, as that server's next start would put them.
      if try !JournalTail.rows(inFileAt: file + Journal.tailSuffix).isEmpty {
        _ = try Journal(directory: dataDirectory)
      }
      let (database, path) = try Journal.openReadOnly(dataDirectory: dataDirectory)
      return try database.read { try answer(on: $0, path: path) }
    } catch let error as JournalError {
      if case .inUse = error { return Self.heldByASilentServer(dataDirectory) }
      return JournalAnswer(status: JournalAnswer.dataError, complaint: error.description)
    } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
      return Self.heldByASilentServer(dataDirectory)
    } catch {
      return JournalAnswer(
        status: JournalAnswer.dataError, complaint: "cannot read \(file): \(error)")
    }
  }

  private static func heldByASilentServer(_ dataDirectory: String) -> JournalAnswer {
    JournalAnswer(
      status: JournalAnswer.unavailable,
      complaint:
        "a running server holds the journal in \(dataDirectory)/ but does not answer at "
        + "\(JournalSocket.path(in: dataDirectory)) (a release from before it had one, or "
        + "a data directory whose path is too long for it): ask again once it has stopped, "
        + "or start it from a shorter path.")
  }

  private static func directory(of path: String) -> String {
    (path as NSString).deletingLastPathComponent
  }
}

/// What a tool prints for a ``JournalQuestion``, and the status it exits with.
///
/// Invariant: `status` 0 has no complaint; any other status has one that says what to do.
public struct JournalAnswer: Sendable, Equatable, Codable {
  /// What goes to standard output ("" for none).
  public var printed: String
  /// What goes to standard error, or nil.
  public var complaint: String?
  /// The exit status (sysexits: 0 printed, 65 bad data, 66 no such match or journal).
  public var status: Int32

  public init(printed: String = "", status: Int32 = 0, complaint: String? = nil) {
    self.printed = printed
    self.status = status
    self.complaint = complaint
  }

  /// `EX_USAGE`: the question itself was wrong.
  public static let usage: Int32 = 64
  /// `EX_DATAERR`: the journal holds what cannot be shown.
  public static let dataError: Int32 = 65
  /// `EX_NOINPUT`: no such journal or match.
  public static let noInput: Int32 = 66
  /// `EX_UNAVAILABLE`: neither the server nor the file could answer.
  public static let unavailable: Int32 = 69
}
