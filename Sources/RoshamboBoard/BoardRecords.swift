import NIOCore
import RoshamboGame
import RoshamboHub
import RoshamboJSON
import RoshamboProtocol

/// The board's requests for match records waiting for the hub's answer, as a value:
/// each is numbered when it starts and answered by whichever comes first, the hub's
/// answer or its deadline. `Waiter` is what answers the viewer (a promise, in the board).
///
/// Invariant: a request is finished at most once (a late answer, or a deadline after
/// the answer, finds nothing); at most ``capacity`` wait at once.
struct BoardRecordRequests<Waiter> {
  let capacity: Int
  private var started = 0
  private(set) var waiting: [Int: Waiter] = [:]

  init(capacity: Int) {
    self.capacity = max(0, capacity)
  }

  /// A request starts: its number, or nil when ``capacity`` wait already.
  mutating func start(_ waiter: Waiter) -> Int? {
    guard waiting.count < capacity else { return nil }
    started += 1
    waiting[started] = waiter
    return started
  }

  /// Request `number` is answered (or its time is up): its waiter, the first time only.
  mutating func finish(_ number: Int) -> Waiter? {
    waiting.removeValue(forKey: number)
  }

  /// Every waiter, leaving none (the board closes).
  mutating func finishAll() -> [Waiter] {
    defer { waiting.removeAll() }
    return waiting.keys.sorted().compactMap { waiting[$0] }
  }
}

/// What the board answers `/match/N.json`, made from what the hub answered (nil: it did
/// not answer in time): a status, and a JSON body: the record as ``MatchRecord`` writes
/// it with its check (``RecordVerification``, made here, on the board's loop), or the
/// words saying why there is none.
///
/// Invariant: the body is one JSON object in every case; a record's is
/// `{"match":N,"record":…,"verification":…}`, anything else's `{"match":N,"error":…}`.
struct BoardRecordReply: Equatable {
  var status: HTTPStatus
  var body: [UInt8]

  /// The statuses the board answers a record with.
  enum HTTPStatus: Int, Equatable {
    case ok = 200
    case notFound = 404
    case serviceUnavailable = 503
    case gatewayTimeout = 504
  }

  /// How long the board waits for the hub's answer.
  static let timeout = TimeAmount.seconds(5)

  init(_ outcome: BoardRecordAnswer.Outcome?, match: Int64) {
    switch outcome {
    case .record(let record)?:
      self.init(.ok, body: Self.recordBody(record, match: match))
    case .noSuchMatch(let words)?:
      self.init(.notFound, match: match, error: words)
    case .busy(let words)?, .unreadable(let words)?:
      self.init(.serviceUnavailable, match: match, error: words)
    case nil:
      self.init(
        .gatewayTimeout, match: match,
        error: "The game server did not answer within 5 seconds; try again in a moment.")
    }
  }

  /// The board waits for as many records as it can: this one is not asked for.
  static func boardBusy(match: Int64) -> BoardRecordReply {
    BoardRecordReply(
      .serviceUnavailable, match: match,
      error: "The board is fetching as many records as it can; try again in a moment.")
  }

  private init(_ status: HTTPStatus, body: [UInt8]) {
    self.status = status
    self.body = body
  }

  private init(_ status: HTTPStatus, match: Int64, error: String) {
    var json = JSONText()
    json.raw("{")
    json.key("match"); json.int(match); json.comma()
    json.key("error"); json.string(error)
    json.raw("}")
    self.init(status, body: json.bytes)
  }

  /// The record and its check. The verdict is the line `roshambo verify` ends with; each
  /// finding is `holds`, `fails` or `unchecked` (what a record cannot show).
  private static func recordBody(_ record: FinishedMatch, match: Int64) -> [UInt8] {
    let verification = RecordVerification(record)
    var json = JSONText(capacity: 1_024 + (record.rounds?.count ?? 0) * 200)
    json.raw("{")
    json.key("match"); json.int(match); json.comma()
    json.key("record"); json.matchRecord(record); json.comma()
    json.key("verification"); json.raw("{")
    json.key("fair"); json.bool(record.fair); json.comma()
    json.key("holds"); json.bool(verification.holds); json.comma()
    json.key("proof"); json.bool(verification.isProof); json.comma()
    json.key("verdict")
    json.string(MatchRecordText.verification(verification).last ?? "")
    json.comma()
    json.key("findings"); json.raw("[")
    for (index, finding) in verification.findings.enumerated() {
      if index > 0 { json.comma() }
      let (kind, text): (StaticString, String) =
        switch finding {
        case .holds(let text): ("holds", text)
        case .fails(let text): ("fails", text)
        case .unchecked(let text): ("unchecked", text)
        }
      json.raw("{")
      json.key("kind"); json.raw("\""); json.raw(kind); json.raw("\""); json.comma()
      json.key("text"); json.string(text)
      json.raw("}")
    }
    json.raw("]}}")
    return json.bytes
  }
}

/// The board's requests for match records on the board's own loop: each asked of the
/// hub (one hop), answered when the hub's answer comes back or after
/// ``BoardRecordReply/timeout``.
///
/// Invariant: touched on ``loop`` only; every future it returns completes, once: with
/// the hub's outcome, or nil at the deadline or when the board closes.
final class BoardRecords {
  let loop: any EventLoop
  private var requests: BoardRecordRequests<EventLoopPromise<BoardRecordAnswer.Outcome?>>
  private let ask: @Sendable (_ request: Int, _ match: Int64) -> Void
  private let timeout: TimeAmount

  init(
    loop: any EventLoop, capacity: Int, timeout: TimeAmount = BoardRecordReply.timeout,
    ask: @escaping @Sendable (_ request: Int, _ match: Int64) -> Void
  ) {
    self.loop = loop
    self.requests = BoardRecordRequests(capacity: capacity)
    self.timeout = timeout
    self.ask = ask
  }

  /// Asks for match `match`'s record: the hub's outcome, or nil if it did not answer in
  /// time; nil at once (no future) when as many requests wait as may.
  func record(of match: Int64) -> EventLoopFuture<BoardRecordAnswer.Outcome?>? {
    let promise = loop.makePromise(of: BoardRecordAnswer.Outcome?.self)
    guard let number = requests.start(promise) else {
      promise.succeed(nil)
      return nil
    }
    loop.assumeIsolated().scheduleTask(in: timeout) {
      self.requests.finish(number)?.succeed(nil)
    }
    ask(number, match)
    return promise.futureResult
  }

  /// The hub answered one of the board's requests.
  func answered(_ answer: BoardRecordAnswer) {
    requests.finish(answer.request)?.succeed(answer.outcome)
  }

  /// The board closes: whoever waits is answered now.
  func shutDown() {
    for waiter in requests.finishAll() { waiter.succeed(nil) }
  }
}
