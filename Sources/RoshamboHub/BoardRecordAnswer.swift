import RoshamboGame

/// The hub's answer to the party board's request for a kept match's record
/// (``HubInput/boardAskedForRecord(request:match:)``), delivered to ``Delivery/boardID``:
/// the record, or why there is none, in words for the board's viewers.
///
/// Invariant: a record in it carries no player identity (what a `record` message carries
/// and nothing more: a finished match's names, scores and rounds are public).
package struct BoardRecordAnswer: Equatable, Sendable {
  package enum Outcome: Equatable, Sendable {
    case record(FinishedMatch)
    /// No record of that match here (never finished here, pruned, kept before rounds
    /// were, or the server keeps no matches at all).
    case noSuchMatch(String)
    /// Too many records are being read (or the server is stopping): ask again.
    case busy(String)
    /// The journal could not be read.
    case unreadable(String)
  }

  /// The board's number for its request, echoed.
  package var request: Int
  package var match: Int64
  package private(set) var outcome: Outcome

  package init(request: Int, match: Int64, outcome: Outcome) {
    self.request = request
    self.match = match
    if case .record(var record) = outcome {
      record.identities = record.identities.map { _ in nil }
      self.outcome = .record(record)
    } else {
      self.outcome = outcome
    }
  }
}
