import RoshamboGame
import RoshamboProtocol

/// Match records for clients and for the party's board: a `match` request (or the
/// board's ``HubInput/boardAskedForRecord(request:match:)``) becomes a reading of the
/// journal (off the driver's loop), answered with a `record` (or a
/// ``BoardRecordAnswer`` to ``Delivery/boardID``).
extension HubCore {
  /// Reads that may be under way at once, the board's among them; past it a request is
  /// refused as busy (each one is a query, and a crowd asking must not queue without end).
  package static let maxRecordReadings = 8

  /// Asks for match `id`'s record for `origin`; the answer is ``recordRead(_:_:)``.
  mutating func sendRecord(of id: Int64, origin: Origin) {
    sendRecord(of: id, to: .client(origin))
  }

  /// Asks for match `id`'s record for `asker`: a reading, or at once why there is none.
  mutating func sendRecord(of id: Int64, to asker: RecordReading.Asker) {
    guard configuration.hasJournal else {
      answer(
        asker, about: id,
        .noSuchMatch("This server keeps no matches (it runs without a data directory)."))
      return
    }
    guard state.recordReadings.count < Self.maxRecordReadings, !state.stopping else {
      answer(
        asker, about: id,
        .busy("The server is busy reading other records; ask again in a moment."))
      return
    }
    state.recordReadingsStarted += 1
    let number = state.recordReadingsStarted
    state.recordReadings[number] = RecordReading(asker: asker, match: id)
    emit(.readRecord(reading: number, match: id))
  }

  /// The reading numbered `reading` finished: the record, or why there is none.
  mutating func recordRead(_ reading: Int, _ result: Result<FinishedMatch?, JournalFailure>) {
    guard let asked = state.recordReadings.removeValue(forKey: reading), !state.stopping else {
      return
    }
    let id = asked.match
    let outcome: BoardRecordAnswer.Outcome =
      switch result {
      case .success(let match?) where match.rounds != nil: .record(match)
      case .success(.some):
        .noSuchMatch("Match \(id) was kept before this server kept rounds; it has no record.")
      case .success(nil):
        .noSuchMatch(
          "No match \(id) is kept here (it never finished here, or it was pruned).")
      case .failure: .unreadable("The server could not read its match records; try again later.")
      }
    answer(asked.asker, about: id, outcome)
  }

  /// Tells `asker` what became of its request for match `id`.
  private mutating func answer(
    _ asker: RecordReading.Asker, about id: Int64, _ outcome: BoardRecordAnswer.Outcome
  ) {
    switch asker {
    case .board(let request):
      if case .record = outcome { count(.recordSent) }
      state.outbox.append(
        .boardRecord(BoardRecordAnswer(request: request, match: id, outcome: outcome)))
      scheduleFlush()
    case .client(let origin):
      switch outcome {
      case .record(let match):
        count(.recordSent)
        state.outbox.append(.message(origin.link, .record(match, re: origin.re)))
        scheduleFlush()
      case .noSuchMatch(let words):
        reply(origin.link, ProtocolError(code: .noSuchMatch, message: words), re: origin.re)
      case .busy(let words):
        reply(origin.link, .rateLimited(words, fatal: false), re: origin.re)
      case .unreadable(let words):
        reply(origin.link, ProtocolError(code: .unavailable, message: words), re: origin.re)
      }
    }
  }
}

/// A reading of a kept match under way: who asked, and for which match.
struct RecordReading {
  /// Who asked: a connection (answered with a protocol message) or the party's board.
  enum Asker {
    case client(Origin)
    /// The board, as its request number.
    case board(request: Int)
  }

  var asker: Asker
  var match: Int64
}
