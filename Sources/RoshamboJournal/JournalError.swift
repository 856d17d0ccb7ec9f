/// What went wrong reading the journal, with the file and row and what to do about it.
///
/// Invariant: every description names the file and says what to do.
public enum JournalError: Error, CustomStringConvertible {
  /// A journal row that cannot be read, or that the rules refuse when it is replayed.
  case badRow(path: String, seq: Int64, problem: String)
  /// The snapshot the rows fold onto cannot be read.
  case badSnapshot(path: String, problem: String)
  /// A reader that does not migrate found a journal an older release wrote.
  case olderRelease(path: String)
  /// A rating kept in the journal that cannot be one (another program changed the file):
  /// `holder` says whose and where.
  case badRating(path: String, holder: String, problem: String)
  /// Another process holds the journal (a server keeps its journal to itself while it runs).
  case inUse(path: String)

  public var description: String {
    switch self {
    case .badRow(let path, let seq, let problem):
      "\(path): journal row \(seq) cannot be replayed (\(problem)). Start the server with "
        + "--recover to move this file aside (it is kept) and start from the last good state, "
        + "the rows before \(seq)."
    case .badSnapshot(let path, let problem):
      "\(path): the snapshot cannot be read (\(problem)). Start the server with --recover to "
        + "move this file aside (it is kept) and start with empty rooms; finished matches and "
        + "the leaderboard are carried over."
    case .badRating(let path, let holder, let problem):
      "\(path): the rating kept for \(holder) cannot be one (\(problem)); another program "
        + "changed the file. Start the server with --recover to move this file aside (it is "
        + "kept) and rate every player again from the matches it keeps."
    case .inUse(let path):
      "\(path) is in use by another process, a roshambo-server that holds it while it runs "
        + "(one server writes a journal at a time). Stop that server, or give this one another "
        + "--data-dir."
    case .olderRelease(let path):
      "\(path) was written by an older release. Start roshambo-server once with this data "
        + "directory to bring it up to date, then ask again."
    }
  }
}
