import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The party's board asks the hub for a kept match's record as a value
/// (``HubInput/boardAskedForRecord(request:match:)``): the hub reads it off its loop, as
/// it does for a client's `match`, within the same bound, and answers the board alone.
@Suite("Hub: the board's match records")
struct HubBoardRecordTests {
  typealias H = HubHarness

  /// A started hub with a journal (or not) that feeds a board, everything sent.
  static func boardHub(journal: Bool = true) -> HubHarness {
    var hub = HubHarness { configuration in
      configuration.hasJournal = journal
      configuration.feedsBoard = true
    }
    _ = hub.handle(.start(releasing: []))
    _ = hub.settle()
    return hub
  }

  /// An ordinary best-of-1 match between Ann and Ben, as the journal keeps it (with the
  /// identities that held their names).
  static let kept: FinishedMatch = {
    var match = FinishedMatch(
      id: 42, room: "duel-1", finishedAt: 1_000, ruleset: "classic", bestOf: 1,
      players: ["Ann", "Ben"], scores: [1, 0], winner: "Ann", forfeit: false, fair: false,
      rounds: [
        RoundResult(
          round: 1, weapons: [.rock, .scissors], winner: .one, reason: "rock crushes scissors")
      ])
    match.identities = ["key-ann", "key-ben"]
    return match
  }()

  /// The deliveries among `outputs`.
  static func deliveries(_ outputs: [HubOutput]) -> [Delivery] {
    outputs.flatMap { output -> [Delivery] in
      if case .deliver(let deliveries) = output { return deliveries }
      return []
    }
  }

  /// The board's record answers among `outputs`.
  static func answers(_ outputs: [HubOutput]) -> [BoardRecordAnswer] {
    deliveries(outputs).compactMap(\.boardRecord)
  }

  @Test("a request is a reading; its record goes to the board alone, without identities")
  func recordToTheBoard() throws {
    var hub = Self.boardHub()
    let asked = hub.handle(.boardAskedForRecord(request: 5, match: 42))
    #expect(asked == ["read record 42 (1)"])
    let outputs = HubWithdrawalTests.settled(&hub, .recordRead(reading: 1, .success(Self.kept)))
    let delivered = Self.deliveries(outputs).filter { $0.boardRecord != nil }
    #expect(delivered.count == 1)
    let delivery = try #require(delivered.first)
    #expect(delivery.to == [Delivery.boardID], "to the board, no connection")
    var shown = Self.kept
    shown.identities = [nil, nil]
    #expect(
      delivery.boardRecord == BoardRecordAnswer(request: 5, match: 42, outcome: .record(shown)))
    guard case .record(let match)? = delivery.boardRecord?.outcome else { return }
    #expect(match.identities == [nil, nil], "no identity reaches the board")
    let payload = try #require(delivery.payload)
    #expect(!String(decoding: payload, as: UTF8.self).contains("key-ann"))
    #expect(try ServerMessage.decode(payload) == .record(shown, re: 5))
    #expect(hub.state.recordReadings.isEmpty)
  }

  @Test("a match not kept, or one kept before rounds, is answered in words")
  func noSuchMatch() {
    var hub = Self.boardHub()
    _ = hub.handle(.boardAskedForRecord(request: 1, match: 7))
    _ = hub.handle(.boardAskedForRecord(request: 2, match: 8))
    var old = Self.kept
    old.rounds = nil
    let outputs =
      HubWithdrawalTests.settled(&hub, .recordRead(reading: 1, .success(nil)))
      + HubWithdrawalTests.settled(&hub, .recordRead(reading: 2, .success(old)))
    #expect(
      Self.answers(outputs) == [
        BoardRecordAnswer(
          request: 1, match: 7,
          outcome: .noSuchMatch(
            "No match 7 is kept here (it never finished here, or it was pruned).")),
        BoardRecordAnswer(
          request: 2, match: 8,
          outcome: .noSuchMatch(
            "Match 8 was kept before this server kept rounds; it has no record.")),
      ])
  }

  @Test("a server without a journal says it keeps no matches, reading nothing")
  func noJournal() {
    var hub = Self.boardHub(journal: false)
    let outputs = HubWithdrawalTests.settled(&hub, .boardAskedForRecord(request: 3, match: 1))
    #expect(!outputs.contains { if case .readRecord = $0 { true } else { false } })
    #expect(
      Self.answers(outputs) == [
        BoardRecordAnswer(
          request: 3, match: 1,
          outcome: .noSuchMatch("This server keeps no matches (it runs without a data directory)."))
      ])
  }

  @Test("the board's requests count in the bound on readings: past it, the board hears busy")
  func boundShared() {
    var hub = Self.boardHub()
    let ann = Peer(id: 1, identity: "key-a")
    _ = hub.say(ann, H.hello("Ann", role: .lobby))
    _ = hub.settle()
    // A client's readings and the board's fill the bound together.
    for id in 1..<HubCore.maxRecordReadings {
      _ = hub.say(ann, .match(match: id, id: 10 + id))
    }
    let last = hub.handle(.boardAskedForRecord(request: 1, match: 99))
    #expect(last == ["read record 99 (\(HubCore.maxRecordReadings))"])
    let outputs = HubWithdrawalTests.settled(&hub, .boardAskedForRecord(request: 2, match: 100))
    #expect(!outputs.contains { if case .readRecord = $0 { true } else { false } })
    #expect(
      Self.answers(outputs) == [
        BoardRecordAnswer(
          request: 2, match: 100,
          outcome: .busy("The server is busy reading other records; ask again in a moment."))
      ])
    // And a client past it, while the board's reading is under way, is refused too.
    let refused = HubWithdrawalTests.settled(&hub, .received(.match(match: 5, id: 77), from: ann))
    #expect(H.messages(to: ann, in: refused).map(H.summary) == ["error rate_limited"])
  }

  @Test("a failed read is answered as unreadable; the board's answer survives a failed commit")
  func unreadableAndFailedCommit() {
    var hub = Self.boardHub()
    _ = hub.handle(.boardAskedForRecord(request: 4, match: 42))
    let outputs = HubWithdrawalTests.settled(
      &hub, .recordRead(reading: 1, .failure(JournalFailure("disk"))))
    #expect(
      Self.answers(outputs) == [
        BoardRecordAnswer(
          request: 4, match: 42,
          outcome: .unreadable("The server could not read its match records; try again later."))
      ])
    var outbox = Outbox()
    outbox.append(
      .boardRecord(BoardRecordAnswer(request: 1, match: 1, outcome: .record(Self.kept))))
    outbox.append(.roomState("den"))
    outbox.keepOnlyErrorsAndCloses()
    #expect(outbox.take().count == 1, "a record read from the journal says nothing unsaved")
    var delivery = Delivery(to: [Delivery.boardID], payload: [1], kind: .other)
    delivery.boardRecord = BoardRecordAnswer(request: 1, match: 1, outcome: .record(Self.kept))
    #expect(delivery.survivesFailedCommit)
  }
}
