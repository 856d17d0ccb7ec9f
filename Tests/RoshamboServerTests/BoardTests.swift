import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import RoshamboGame
import RoshamboJournal
import RoshamboOperations
import RoshamboProtocol
import Testing

@testable import RoshamboBoard
@testable import RoshamboHub
@testable import RoshamboServer

/// The party's board (`--board`): what it answers (as values), and over a real socket the
/// page with its headers, the refusals, and the event stream against the lobby's
/// followers' own bytes.
@Suite("Server: the party's board")
struct BoardTests {
  // MARK: - Values

  @Test("only GET is answered; the page, its files and the stream by path; big headers refused")
  func routes() {
    #expect(BoardRoute(method: "GET", uri: "/", headerBytes: 40) == .asset(.page))
    #expect(BoardRoute(method: "GET", uri: "/board.js?v=1", headerBytes: 40) == .asset(.script))
    #expect(BoardRoute(method: "GET", uri: "/board.css", headerBytes: 40) == .asset(.style))
    #expect(BoardRoute(method: "GET", uri: "/events", headerBytes: 40) == .events)
    #expect(BoardRoute(method: "GET", uri: "/../etc/passwd", headerBytes: 40) == .notFound)
    #expect(BoardRoute(method: "POST", uri: "/", headerBytes: 40) == .methodNotAllowed)
    #expect(BoardRoute(method: "HEAD", uri: "/", headerBytes: 40) == .methodNotAllowed)
    #expect(
      BoardRoute(method: "GET", uri: "/", headerBytes: BoardRoute.maxHeaderBytes + 1)
        == .headersTooLarge)
  }

  @Test("/match/N is a match's replay page, /match/N.json its record; anything else there 404")
  func replayRoutes() {
    func route(_ uri: String) -> BoardRoute { BoardRoute(method: "GET", uri: uri, headerBytes: 40) }
    #expect(route("/match/42") == .replay(match: 42))
    #expect(route("/match/42?round=last") == .replay(match: 42), "the query names no match")
    #expect(route("/match/42.json") == .record(match: 42))
    #expect(route("/match/999999999999999999") == .replay(match: 999_999_999_999_999_999))
    #expect(route("/replay.js") == .asset(.replayScript))
    #expect(route("/replay.css") == .asset(.replayStyle))
    for bad in [
      "/match/", "/match/0", "/match/007", "/match/-3", "/match/+3", "/match/abc", "/match/4x",
      "/match/1e3", "/match/ 1", "/match/%31", "/match/42/", "/match/42.json.json",
      "/match/1000000000000000000", "/match/99999999999999999999999999", "/match/.json",
      "/match/42.JSON", "/match/٣",
    ] {
      #expect(route(bad) == .notAMatchNumber, "\(bad)")
    }
    #expect(route("/matches/1") == .notFound)
    #expect(BoardRoute(method: "POST", uri: "/match/1", headerBytes: 40) == .methodNotAllowed)
  }

  @Test("a request waits until the hub answers or its deadline, whichever is first, once")
  func recordRequests() {
    var requests = BoardRecordRequests<String>(capacity: 2)
    let started = [requests.start("a"), requests.start("b"), requests.start("c")]
    #expect(started == [1, 2, nil], "the third finds the board's requests full")
    #expect(requests.finish(1) == "a")
    #expect(requests.finish(1) == nil, "a deadline after the answer finds nothing")
    #expect(requests.start("d") == 3, "numbers are never used twice")
    #expect(requests.finishAll() == ["b", "d"])
    #expect(requests.waiting.isEmpty)
  }

  @Test("a record's reply: 200 with the record and its check; 404, 503, 504 with words")
  func recordReplies() throws {
    let fair = try Self.fairMatch()
    let ok = BoardRecordReply(.record(fair), match: 3)
    #expect(ok.status == .ok)
    let body = try JSONSerialization.jsonObject(with: Data(ok.body)) as? [String: Any]
    #expect(body?["match"] as? Int == 3)
    let record = try #require(body?["record"] as? [String: Any])
    #expect(try MatchRecord.decode(Array(JSONSerialization.data(withJSONObject: record))) == fair)
    let check = try #require(body?["verification"] as? [String: Any])
    #expect(check["fair"] as? Bool == true)
    #expect(check["holds"] as? Bool == true)
    #expect(check["proof"] as? Bool == true)
    #expect((check["verdict"] as? String)?.hasPrefix("Consistent: every reveal matches") == true)
    let findings = try #require(check["findings"] as? [[String: String]])
    #expect(findings.map { $0["kind"] } == ["holds", "holds", "holds", "holds"])

    var forged = fair
    forged.rounds?[0].weapons = [.paper, .scissors]
    let refused = BoardRecordReply(.record(forged), match: 3)
    let refusedCheck = try #require(
      (try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])?[
        "verification"] as? [String: Any])
    #expect(refusedCheck["holds"] as? Bool == false)
    #expect((refusedCheck["verdict"] as? String)?.hasPrefix("Refused:") == true)

    func error(_ reply: BoardRecordReply) -> String? {
      (try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])?["error"]
        as? String
    }
    let missing = BoardRecordReply(.noSuchMatch("No match 9 is kept here."), match: 9)
    #expect(missing.status == .notFound)
    #expect(error(missing) == "No match 9 is kept here.")
    #expect(BoardRecordReply(.busy("busy"), match: 9).status == .serviceUnavailable)
    #expect(BoardRecordReply(.unreadable("disk"), match: 9).status == .serviceUnavailable)
    let late = BoardRecordReply(nil, match: 9)
    #expect(late.status == .gatewayTimeout)
    #expect(error(late)?.contains("did not answer within 5 seconds") == true)
    #expect(BoardRecordReply.boardBusy(match: 9).status == .serviceUnavailable)
  }

  /// A fair best-of-1 match whose reveal matches its commitment.
  static func fairMatch() throws -> FinishedMatch {
    let nonces = [String(repeating: "ab", count: 32), String(repeating: "cd", count: 32)]
    func digest(_ seat: Seat, _ weapon: Weapon, _ nonce: String) throws -> String {
      Commitment.digest(
        room: "den", round: 1, seat: seat, weapon: weapon,
        nonce: try #require(Commitment.bytes(ofHex: nonce)))
    }
    let commitments = [
      try digest(.one, .rock, nonces[0]), try digest(.two, .scissors, nonces[1]),
    ]
    return FinishedMatch(
      id: 3, room: "den", finishedAt: 1_000, ruleset: "classic", bestOf: 1,
      players: ["Ann", "<b>Ben</b>"], scores: [1, 0], winner: "Ann", forfeit: false, fair: true,
      rounds: [
        RoundResult(
          round: 1, weapons: [.rock, .scissors], winner: .one, reason: "rock crushes scissors",
          commitments: commitments, nonces: nonces, at: 900)
      ])
  }

  @Test("at most `capacity` viewers; one whose connection cannot take more is dropped")
  func viewers() {
    var viewers = BoardViewers(capacity: 2)
    let admitted = [viewers.admit(1), viewers.admit(2), viewers.admit(3)]
    #expect(admitted == [true, true, false], "the third finds the board full")
    let deliveries = [
      viewers.deliver(to: 1, writable: true), viewers.deliver(to: 2, writable: false),
    ]
    #expect(deliveries == [.write, .drop], "a stalled viewer goes")
    #expect(viewers.open == [1])
    let again = viewers.admit(3)
    #expect(again, "its place is free again")
    viewers.leave(1)
    #expect(viewers.open == [3])
    let gone = viewers.deliver(to: 1, writable: true)
    #expect(gone == .drop, "a viewer gone is written nothing")
  }

  @Test("the stream: the followers' whole view first, then patches that apply, with their hash")
  func feed() throws {
    var feed = BoardFeed()
    #expect(feed.welcome == nil)
    let empty = LobbyView(people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [])
    var busy = empty
    busy.people = [.init(name: "Alice", status: .waiting, room: "den")]
    busy.peopleCount = 1
    let first = sent(seq: 1, empty)
    let whole = feed.received(first, at: 1)
    #expect(whole == BoardFeed.event(first.message), "the first view goes whole")
    #expect(feed.welcome == BoardFeed.event(first.message))
    let event = feed.received(sent(seq: 3, busy), at: 2)
    let message = try ServerMessage.decode(Array(try data(of: event).utf8))
    guard case .lobbyPatch(let seq, let base, let hash, let patch) = message else {
      Issue.record("expected a patch, got \(message)")
      return
    }
    #expect((seq, base) == (3, 1), "from the view the viewers have, whatever was lost between")
    #expect(hash == busy.fingerprint)
    #expect(empty.applying(patch) == busy)
    #expect(feed.welcome == BoardFeed.event(sent(seq: 3, busy).message), "a newcomer: whole")
  }

  /// The evening's rating chart starts from what the feed kept: a point for each listed
  /// rating when it first shows and each time it changes, none for one that did not.
  @Test("the stream: the leaders' ratings as they changed, before the view they came with")
  func ratingsKept() throws {
    var feed = BoardFeed()
    var view = LobbyView(people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [])
    view.leaders = [
      .init(name: "Ann", won: 3, lost: 0, rating: .init(points: 1_600.5, deviation: 90)),
      .init(name: "<b>Bo</b>", won: 0, lost: 3, rating: .init(points: 1_400, deviation: 90)),
      .init(name: "Cy", won: 1, lost: 0),
    ]
    let first = feed.received(sent(seq: 1, view), at: 1_000)
    let text = String(decoding: first, as: UTF8.self)
    #expect(
      text.hasPrefix(
        "event: ratings\ndata: "
          + #"{"type":"ratings","points":[{"at":1000,"name":"Ann","rating":1600.5},"#
          + #"{"at":1000,"name":"<b>Bo</b>","rating":1400}]}"# + "\n\ndata: "),
      "\(text)")
    // Nothing changed: no ratings event, and none kept.
    let same = feed.received(sent(seq: 2, view), at: 2_000)
    #expect(!String(decoding: same, as: UTF8.self).contains("ratings"))
    view.leaders[1].rating = .init(points: 1_390.25, deviation: 88)
    let changed = String(decoding: feed.received(sent(seq: 3, view), at: 3_000), as: UTF8.self)
    #expect(changed.contains(#"[{"at":3000,"name":"<b>Bo</b>","rating":1390.25}]"#), "\(changed)")
    #expect(feed.ratings.map(\.at) == [1_000, 1_000, 3_000])
    // A newcomer gets every point, then the whole view.
    let welcome = String(decoding: try #require(feed.welcome), as: UTF8.self)
    #expect(welcome.hasPrefix("event: ratings\n"))
    #expect(welcome.contains(#""rating":1390.25}]}"# + "\n\ndata: {\"type\":\"lobby\""))
    // Bounded: the oldest points go.
    for step in 0..<BoardFeed.maxRatingPoints {
      view.leaders[0].rating = .init(points: Double(step), deviation: 80)
      _ = feed.received(sent(seq: 4 + step, view), at: Int64(10_000 + step))
    }
    #expect(feed.ratings.count == BoardFeed.maxRatingPoints)
    #expect(feed.ratings.last?.at == Int64(10_000 + BoardFeed.maxRatingPoints - 1))
  }

  func sent(seq: Int, _ view: LobbyView) -> SentLobbyView {
    SentLobbyView(
      seq: seq, view: view, message: ServerMessage.lobby(seq: seq, view: view).encoded())
  }

  /// The `data:` line of one event.
  func data(of event: [UInt8]) throws -> String {
    let text = String(decoding: event, as: UTF8.self)
    let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: ") })
    return String(line.dropFirst("data: ".count))
  }

  // MARK: - Over a socket

  @Test("GET / is the page, its script a file of its own, under a CSP that forbids inline script")
  func page() async throws {
    try await withBoard { _, board in
      let page = try await boardRequest(port: board.port, "GET / HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(page.status == 200)
      #expect(page.headers["content-security-policy"] == "default-src 'self'; script-src 'self'")
      #expect(page.headers["x-content-type-options"] == "nosniff")
      #expect(page.headers["content-type"] == "text/html; charset=utf-8")
      #expect(page.body.contains(#"<script src="/board.js" defer></script>"#))
      #expect(!page.body.contains("<script>"), "no inline script")
      let script = try await boardRequest(
        port: board.port, "GET /board.js HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(script.status == 200)
      #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
      #expect(!script.body.contains("innerHTML"), "names go in as text only")
      #expect(script.body.contains("textContent"))
    }
  }

  @Test("anything but GET is refused with 405; an unknown path is 404; huge headers 431")
  func refusals() async throws {
    try await withBoard { _, board in
      let post = try await boardRequest(
        port: board.port, "POST / HTTP/1.1\r\nHost: tv\r\nContent-Length: 2\r\n\r\nhi")
      #expect(post.status == 405)
      #expect(post.headers["allow"] == "GET")
      let missing = try await boardRequest(
        port: board.port, "GET /admin HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(missing.status == 404)
      let padding = String(repeating: "a", count: 9_000)
      let huge = try await boardRequest(
        port: board.port, "GET / HTTP/1.1\r\nHost: tv\r\nX-Pad: \(padding)\r\n\r\n")
      #expect(huge.status == 431)
    }
  }

  @Test("the stream's first event is the lobby's view, byte for byte what a follower gets")
  func streamMatchesFollowers() async throws {
    try await withBoard { server, board in
      let eve = try await TestClient.connect(port: server.port)
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          id: 1))
      _ = try await eve.lobby { $0.people.contains { $0.name == "Eve" } }
      // A change after Eve is in step: it reaches her as a view to every follower.
      let alice = try await TestClient.connect(port: server.port)
      try await alice.hello(name: "Alice", room: "den")
      _ = try await eve.lobby { view in view.rooms.map(\.name) == ["den"] }

      let viewer = try await EventStream.open(port: board.port)
      let first = try await viewer.nextData()
      guard case .lobby(let seq, let view) = try ServerMessage.decode(first) else {
        Issue.record("the first event is not a whole view")
        return
      }
      #expect(view.rooms.map(\.name) == ["den"])
      let followerFrame = eve.inbox.frames.last { frame in
        if case .lobby(seq, _) = try? ServerMessage.decode(frame) { return true }
        return false
      }
      #expect(first == followerFrame, "the follower's own bytes")
      await viewer.close()
    }
  }

  /// What the board sends is what any lobby follower may see: a match played from its
  /// first welcome to a resolved round, every event read, none with a seat's token, a
  /// pick, a commitment or nonce, or an address.
  @Test("every byte to the board: no token, no pick, no address")
  func nothingPrivate() async throws {
    try await withBoard { server, board in
      let viewer = try await EventStream.open(port: board.port)
      var events: [[UInt8]] = [try await viewer.nextData()]
      func readUntil(_ text: String) async throws {
        while true {
          let event = try await viewer.nextData()
          events.append(event)
          if String(decoding: event, as: UTF8.self).contains(text) { return }
        }
      }
      let alice = try await TestClient.connect(port: server.port)
      _ = try await alice.hello(name: "Alice", room: "den")
      let bob = try await TestClient.connect(port: server.port)
      _ = try await bob.hello(name: "Bob", room: "den")
      try await readUntil(#""players":["Alice","Bob"]"#)
      // A pick waits for the other's; then the round resolves (Bob's rock beats scissors).
      alice.send(.choose(round: 1, weapon: .scissors, id: 5))
      _ = try await alice.state { $0.players.first { $0.seat == alice.seat }?.weapon != nil }
      bob.send(.choose(round: 1, weapon: .rock, id: 5))
      try await readUntil(#""scores":[0,1]"#)
      let tokens = try [#require(alice.token), #require(bob.token)]
      for event in events {
        let text = String(decoding: event, as: UTF8.self)
        for secret in tokens + [
          "rock", "paper", "scissors", "weapon", "commitment", "nonce", "token", "127.0.0.1",
          "identity",
        ] {
          #expect(!text.contains(secret), "\(secret) in an event to the board: \(text)")
        }
      }
      await viewer.close()
    }
  }

  @Test("a viewer over the bound is refused with 503; a name with markup is only data")
  func fullAndMarkup() async throws {
    try await withBoard(viewers: 1) { server, board in
      let viewer = try await EventStream.open(port: board.port)
      _ = try await viewer.nextData()
      let refused = try await boardRequest(
        port: board.port, "GET /events HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(refused.status == 503)

      let markup = "<img src=x onerror=f()>"
      let mallory = try await TestClient.connect(port: server.port)
      try await mallory.hello(name: markup, room: "den")
      let event = try await viewer.nextData { String(decoding: $0, as: UTF8.self).contains("img") }
      let text = String(decoding: event, as: UTF8.self)
      // In the stream, the name is a JSON string; nothing on the board's page is markup
      // from data (the page's script sets `textContent` only, checked above).
      #expect(text.contains(#""name":"<img src=x onerror=f()>""#))
      await viewer.close()
    }
  }

  @Test("when the server stops, its viewers hear that it is closing")
  func closing() async throws {
    let server = try await Self.boardFeedingServer()
    let board = try await BoardServer.start(
      host: "127.0.0.1", port: 0, viewers: 4, server: server.server, logger: Self.logger)
    let viewer = try await EventStream.open(port: board.port)
    _ = try await viewer.nextData()
    await board.close()
    let closing = try await viewer.nextData {
      String(decoding: $0, as: UTF8.self).contains("closing")
    }
    #expect(String(decoding: closing, as: UTF8.self) == #"{"type":"closing"}"#)
    await viewer.close()
    try await server.stop()
  }

  @Test("a finished match's page and record over the socket; no journal, no answer: in words")
  func replayOverTheSocket() async throws {
    try await withBoard(dataDirectory: temporaryDataDirectory()) { server, board in
      _ = try await TestClient.matchPlayed(port: server.port)
      // The match is kept once the lobby lists it.
      let eve = try await TestClient.connect(port: server.port)
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          id: 1))
      let recent = try await eve.lobby { !$0.recent.isEmpty }.recent
      let id = try #require(recent.first?.id)

      let page = try await boardRequest(
        port: board.port, "GET /match/\(id) HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(page.status == 200)
      #expect(page.headers["content-security-policy"] == "default-src 'self'; script-src 'self'")
      #expect(page.body.contains(#"<script src="/replay.js" defer></script>"#))
      #expect(!page.body.contains("<script>"), "no inline script")
      let script = try await boardRequest(
        port: board.port, "GET /replay.js HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(script.status == 200 && script.body.contains("textContent"))
      #expect(!script.body.contains("innerHTML"), "names go in as text only")

      let record = try await boardRequest(
        port: board.port, "GET /match/\(id).json HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(record.status == 200)
      #expect(record.headers["content-type"] == "application/json; charset=utf-8")
      let body = try #require(
        try JSONSerialization.jsonObject(with: Data(record.body.utf8)) as? [String: Any])
      let kept = try MatchRecord.decode(
        Array(try JSONSerialization.data(withJSONObject: try #require(body["record"]))))
      #expect(kept.players == ["Alice", "Bob"] && kept.winner == "Alice")
      #expect(kept.rounds?.map(\.weapons) == [[.rock, .scissors]])
      #expect((body["verification"] as? [String: Any])?["holds"] as? Bool == true)
      #expect(!record.body.contains("identit"), "no identity reaches the board")

      let unknown = try await boardRequest(
        port: board.port, "GET /match/999999.json HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(unknown.status == 404)
      #expect(unknown.body.contains("No match 999999 is kept here"))
      let bad = try await boardRequest(
        port: board.port, "GET /match/x1 HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(bad.status == 404)
      #expect(bad.body.contains("a match's page is /match/N"))
    }
    // Without a data directory the server keeps no matches, and says so.
    try await withBoard { _, board in
      let none = try await boardRequest(
        port: board.port, "GET /match/1.json HTTP/1.1\r\nHost: tv\r\n\r\n")
      #expect(none.status == 404)
      #expect(none.body.contains("keeps no matches"))
    }
  }

  @Test("a hub that does not answer in time: 504 with words, and the board goes on")
  func recordTimeout() async throws {
    let board = try await BoardServer.start(
      host: "127.0.0.1", port: 0, viewers: 2, logger: Self.logger, watch: { _ in },
      records: (ask: { _, _ in }, answers: { _ in }), recordTimeout: .milliseconds(200))
    let late = try await boardRequest(
      port: board.port, "GET /match/5.json HTTP/1.1\r\nHost: tv\r\n\r\n")
    #expect(late.status == 504)
    #expect(late.body.contains("did not answer within 5 seconds"))
    let page = try await boardRequest(port: board.port, "GET / HTTP/1.1\r\nHost: tv\r\n\r\n")
    #expect(page.status == 200)
    await board.close()
  }

  static let logger: Logger = {
    var logger = Logger(label: "test.board")
    logger.logLevel = .warning
    return logger
  }()

  /// A server on 127.0.0.1 whose hub feeds a board, keeping nothing (or keeping its
  /// matches in `dataDirectory`); its rooms play best of 1.
  static func boardFeedingServer(dataDirectory: String? = nil) async throws -> ServedServer {
    var configuration = testConfiguration(dataDirectory: dataDirectory)
    configuration.roomSettings = .init(bestOf: 1)
    configuration.threads = 2
    configuration.limits.maxConnectionsPerAddress = 10_000
    configuration.feedsBoard = true
    return try await ServedServer.start(
      configuration, logger: logger, storage: dataDirectory == nil ? nil : JournalStorage())
  }

  /// Runs `body` with a server that feeds a board, and the board, stopped afterwards.
  func withBoard(
    viewers: Int = 4, dataDirectory: String? = nil,
    _ body: (ServedServer, BoardServer) async throws -> Void
  ) async throws {
    let server = try await Self.boardFeedingServer(dataDirectory: dataDirectory)
    let board: BoardServer
    do {
      board = try await BoardServer.start(
        host: "127.0.0.1", port: 0, viewers: viewers, server: server.server, logger: Self.logger)
    } catch {
      try? await server.stop()
      throw error
    }
    do {
      try await body(server, board)
    } catch {
      await board.close()
      try? await server.stop()
      throw error
    }
    await board.close()
    try await server.stop()
  }
}

/// One answer of the board's port: its status, headers (lower-case names) and body.
struct BoardAnswer {
  var status: Int
  var headers: [String: String]
  var body: String
}

/// Sends `request` as it is to 127.0.0.1:`port` and reads the answer to its end (the
/// board closes after each answer but the stream's).
func boardRequest(port: Int, _ request: String) async throws -> BoardAnswer {
  let raw = try await loopbackExchange(port: port, Array(request.utf8))
  let parts = raw.components(separatedBy: "\r\n\r\n")
  let head = parts.first ?? ""
  var lines = head.components(separatedBy: "\r\n")
  let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap {
    Int($0)
  }
  lines.removeFirst()
  var headers: [String: String] = [:]
  for line in lines {
    guard let colon = line.firstIndex(of: ":") else { continue }
    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
      .trimmingCharacters(in: .whitespaces)
  }
  return BoardAnswer(
    status: status ?? 0, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
}

/// A browser's `EventSource`, as far as a test needs: `GET /events`, then each event's
/// `data` as it comes.
final class EventStream: Sendable {
  private struct State {
    var buffer: [UInt8] = []
    var closed = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let channel: any Channel
  private let state: NIOLockedValueBox<State>

  private init(channel: any Channel, state: NIOLockedValueBox<State>) {
    self.channel = channel
    self.state = state
  }

  static func open(port: Int) async throws -> EventStream {
    let state = NIOLockedValueBox(State())
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHTTPClientHandlers()
          try channel.pipeline.syncOperations.addHandler(Reader(state: state))
        }
      }
      .connect(host: "127.0.0.1", port: port).get()
    var headers = HTTPHeaders([("Host", "tv"), ("Accept", "text/event-stream")])
    headers.add(name: "Cache-Control", value: "no-cache")
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/events", headers: headers)
    channel.write(HTTPClientRequestPart.head(head), promise: nil)
    try await channel.writeAndFlush(HTTPClientRequestPart.end(nil))
    return EventStream(channel: channel, state: state)
  }

  /// The next event's data that satisfies `condition` (events before it are skipped);
  /// fails if none comes within 10 s or the stream ends.
  func nextData(where condition: @escaping @Sendable ([UInt8]) -> Bool = { _ in true })
    async throws -> [UInt8]
  {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
      if let data = takeEvent() {
        if condition(data) { return data }
        continue
      }
      guard !state.withLockedValue(\.closed) else { throw TestClientError.closed("stream ended") }
      guard ContinuousClock.now < deadline else { throw TestClientError.timeout }
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await self.waitForBytes() }
        group.addTask {
          try await Task.sleep(until: deadline)
          throw TestClientError.timeout
        }
        try await group.next()
        group.cancelAll()
      }
    }
  }

  func close() async {
    try? await channel.close()
  }

  /// Removes the next whole event from the buffer (a `retry:` or a comment has no data:
  /// skipped), returning its data.
  private func takeEvent() -> [UInt8]? {
    state.withLockedValue { state in
      while true {
        let text = state.buffer
        guard let end = Self.find([10, 10], in: text) else { return nil }
        let block = Array(text[..<end])
        state.buffer.removeFirst(end + 2)
        let lines = block.split(separator: 10, omittingEmptySubsequences: false)
        if let data = lines.first(where: { $0.starts(with: Array("data: ".utf8)) }) {
          return Array(data.dropFirst(6))
        }
      }
    }
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for index in 0...(haystack.count - needle.count)
    where haystack[index] == needle[0] && Array(haystack[index..<index + needle.count]) == needle {
      return index
    }
    return nil
  }

  private func waitForBytes() async {
    await withCheckedContinuation { continuation in
      let now = state.withLockedValue { state in
        if state.closed || Self.find([10, 10], in: state.buffer) != nil { return true }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// Hands the answer's body (de-chunked by NIO's HTTP client codec) to the buffer.
  private final class Reader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    let state: NIOLockedValueBox<State>

    init(state: NIOLockedValueBox<State>) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      guard case .body(let buffer) = unwrapInboundIn(data) else { return }
      let waiters = state.withLockedValue { state in
        state.buffer += Array(buffer: buffer)
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }

    func channelInactive(context: ChannelHandlerContext) {
      let waiters = state.withLockedValue { state in
        state.closed = true
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume() }
    }
  }
}
