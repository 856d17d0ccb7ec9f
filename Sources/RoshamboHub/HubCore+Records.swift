import RoshamboGame
import RoshamboProtocol

/// Match records for clients: a `match` request becomes a reading of the journal (off
/// the driver's loop), answered with a `record`.
extension HubCore {
  /// Reads that may be under way at once; past it a request is refused as busy (each
  /// one is a query, and a crowd asking must not queue without end).
  package static let maxRecordReadings = 8

  /// Asks for match `id`'s record; the answer is ``recordRead(_:_:)``.
  mutating func sendRecord(of id: Int64, origin: Origin) {
    guard configuration.hasJournal else {
      reply(
        origin.link,
        ProtocolError(
          code: .noSuchMatch,
          message: "This server keeps no matches (it runs without a data directory)."),
        re: origin.re)
      return
    }
    guard state.recordReadings.count < Self.maxRecordReadings, !state.stopping else {
      reply(
        origin.link,
        .rateLimited(
          "The server is busy reading other records; ask again in a moment.", fatal: false),
        re: origin.re)
      return
    }
    state.recordReadingsStarted += 1
    let number = state.recordReadingsStarted
    state.recordReadings[number] = RecordReading(origin: origin, match: id)
    emit(.readRecord(reading: number, match: id))
  }

  /// The reading numbered `reading` finished: the record, or why there is none.
  mutating func recordRead(_ reading: Int, _ result: Result<FinishedMatch?, JournalFailure>) {
    guard let asked = state.recordReadings.removeValue(forKey: reading), !state.stopping else {
      return
    }
    let (origin, id) = (asked.origin, asked.match)
    switch result {
    case .success(let match?) where match.rounds != nil:
      count(.recordSent)
      state.outbox.append(.message(origin.link, .record(match, re: origin.re)))
      scheduleFlush()
    case .success(.some):
      reply(
        origin.link,
        ProtocolError(
          code: .noSuchMatch,
          message: "Match \(id) was kept before this server kept rounds; it has no record."),
        re: origin.re)
    case .success(nil):
      reply(
        origin.link,
        ProtocolError(
          code: .noSuchMatch,
          message: "No match \(id) is kept here (it never finished here, or it was pruned)."),
        re: origin.re)
    case .failure:
      reply(
        origin.link,
        ProtocolError(
          code: .unavailable,
          message: "The server could not read its match records; try again later."),
        re: origin.re)
    }
  }
}

/// A reading of a kept match under way: who asked, and for which match.
struct RecordReading {
  var origin: Origin
  var match: Int64
}
