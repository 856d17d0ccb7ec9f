import NIOCore
import RoshamboGame
import RoshamboProtocol

/// Match records for clients: a `match` request is read off the journal's low-priority
/// thread (never the hub's loop) and answered with a `record`.
extension GameHub {
  /// Reads that may be under way at once; past it a request is refused as busy (each
  /// one is a query, and a crowd asking must not queue without end).
  static let maxRecordReadings = 8

  /// Answers a request for match `id`'s record: the record, or `no_such_match`.
  func sendRecord(of id: Int64, origin: Origin) {
    guard let journal else {
      reply(
        origin.link,
        ProtocolError(
          code: .noSuchMatch,
          message: "This server keeps no matches (it runs without a data directory)."),
        re: origin.re)
      return
    }
    guard recordReadings.count < Self.maxRecordReadings, !stopping else {
      reply(
        origin.link,
        .rateLimited(
          "The server is busy reading other records; ask again in a moment.", fatal: false),
        re: origin.re)
      return
    }
    recordReadingsStarted += 1
    let number = recordReadingsStarted
    let reading = journal.match(id: id).hop(to: loop)
    recordReadings[number] = reading.map { _ in }.recover { _ in }
    reading.assumeIsolated().whenComplete { result in
      self.recordReadings[number] = nil
      guard !self.stopping else { return }
      switch result {
      case .success(let match?) where match.rounds != nil:
        self.metrics?.recordsSent.increment()
        self.outbox.append(.message(origin.link, .record(match, re: origin.re)))
        self.scheduleFlush()
      case .success(.some):
        self.reply(
          origin.link,
          ProtocolError(
            code: .noSuchMatch,
            message: "Match \(id) was kept before this server kept rounds; it has no record."),
          re: origin.re)
      case .success(nil):
        self.reply(
          origin.link,
          ProtocolError(
            code: .noSuchMatch,
            message: "No match \(id) is kept here (it never finished here, or it was pruned)."),
          re: origin.re)
      case .failure:
        self.reply(
          origin.link,
          ProtocolError(
            code: .unavailable,
            message: "The server could not read its match records; try again later."),
          re: origin.re)
      }
    }
  }
}
