import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS
import Testing

/// A replay shows what a spectator saw live: two bots play a fair match on a real
/// server while a spectator watches; the match's record, replayed step by step through
/// the client's reducer, gives the spectator's screen of each round.
@MainActor
@Suite("Replaying a match", .serialized)
struct MatchReplayTests {
  /// What a screen shows of a round once it is resolved (not the clock or connection).
  struct Shown: Equatable {
    var title: String
    var players: [String]
    var reveal: String?
    var banner: String?
    /// The history's lines without their "✓ verified" marks (compared on their own).
    var history: [String]
    /// The rounds marked verified.
    var verified: Set<Int>

    init(_ props: ScreenProps) {
      title = props.title
      players = props.players.map { "\($0.seat.rawValue) \($0.name) \($0.score)" }
      reveal = props.reveal
      banner = props.banner
      let mark = "  ✓ verified"
      history = props.history.map { $0.hasSuffix(mark) ? String($0.dropLast(mark.count)) : $0 }
      verified = Set(
        props.history.enumerated().filter { $0.element.hasSuffix(mark) }.map { $0.offset + 1 })
    }
  }

  @Test("each step of the replay is the live spectator's screen of that round")
  func replayMatchesLive() async throws {
    let data =
      NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/replay-\(UUID().uuidString)"
    try await withTestServer(dataDirectory: data) { server in
      let tls = try ClientTestCertificates.clientTLS()
      func connect() async throws -> ServerConnection {
        try await ServerConnection.connect(host: "127.0.0.1", port: server.port, tls: tls)
      }
      // The cycling bot opens the room; Carol watches from before the match starts (so she
      // sees all of it); then the second bot comes and they play. The bots stay after the
      // match (no rematch, one more match wanted), so its last state is the room's last,
      // which Carol always gets (a client may skip a state only for a newer one).
      var runs: [Task<Void, Never>] = []
      var bots: [Bot] = []  // A bot plays while it is held.
      var sessions: [ClientSession] = []
      @MainActor func bot(_ strategy: BotStrategy) async throws -> ClientSession {
        let session = ClientSession(connection: try await connect())
        sessions.append(session)
        let bot = Bot(session: session, strategy: strategy, matches: 2, asksRematch: false) { _ in }
        bot.start()
        bots.append(bot)
        session.join(name: strategy.rawValue, room: "arena", fair: true)
        runs.append(Task { @MainActor in _ = await session.run() })
        return session
      }
      let first = try await bot(.cycle)
      try await waitUntil("the room is open") { first.store.state.room == "arena" }
      let spectator = ClientSession(connection: try await connect())
      var live: [Int: Shown] = [:]
      let watching = spectator.store.subscribe(select: \.view) { view in
        guard let view, view.phase != .waiting else { return }
        // The first screen of each round's result (players leave after the match).
        if live[view.history.count] == nil {
          live[view.history.count] = Shown(spectator.store.state.props)
        }
      }
      spectator.join(name: "Carol", room: "arena", role: .spectator)
      let watch = Task { @MainActor in _ = await spectator.run() }
      try await waitUntil("Carol is in the room") { spectator.store.state.room == "arena" }
      _ = try await bot(.random)
      try await waitUntil("the match is over") { bots.allSatisfy { $0.tally.matches == 1 } }
      let record = try await RecordRequest.fetch(try await connect(), name: "Dave", id: 1)
      let rounds = try #require(record.rounds).count
      try await waitUntil("Carol saw the last round") { live[rounds] != nil }
      for session in sessions { await session.connection?.close() }
      for run in runs { await run.value }
      await spectator.connection?.close()
      await watch.value
      _ = watching
      var replay = try #require(MatchReplay(record))
      #expect(replay.lastStep == rounds && rounds >= 2)
      // A state queued behind another may be replaced by it (the client keeps the newest),
      // so Carol may skip a round; she always sees the last.
      #expect(live[rounds] != nil)
      for (step, seen) in live.sorted(by: { $0.key < $1.key }) where step >= 1 {
        replay.seek(to: step)
        var shown = Shown(replay.state.props)
        var seen = seen
        // Live, Carol herself was counted in the room; a replay has no audience.
        seen.title = seen.title.replacingOccurrences(of: " · 1 watching", with: "")
        shown.title = shown.title.replacingOccurrences(of: " · 1 watching", with: "")
        // The replay checks every round; Carol only those whose reveal stage she saw
        // (a skipped state can hide it): what she verified, the replay verified too.
        #expect(shown.verified == Set(1...step), "step \(step)")
        #expect(seen.verified.isSubset(of: shown.verified), "step \(step)")
        (seen.verified, shown.verified) = ([], [])
        #expect(shown == seen, "step \(step)")
      }
      // Back to the start: re-reduced from nothing, no round shown.
      replay.seek(to: 0)
      #expect(replay.state.view?.history.isEmpty == true && replay.roundShown == nil)
      replay.stepBack()
      #expect(replay.position == 0)
    }
  }

  /// A fair match of rock against scissors, twice, with real commitments.
  static func fairRecord() -> FinishedMatch {
    let rounds = (1...2).map { number -> RoundResult in
      let nonces = [Commitment.makeNonce(), Commitment.makeNonce()]
      let weapons: [Weapon] = [.rock, .scissors]
      return RoundResult(
        round: number, weapons: weapons, winner: .one, reason: "rock crushes scissors",
        commitments: Seat.allCases.map {
          Commitment.digest(
            room: "den", round: number, seat: $0, weapon: weapons[$0.rawValue - 1],
            nonce: nonces[$0.rawValue - 1])
        }, nonces: nonces.map(Commitment.hex))
    }
    return FinishedMatch(
      id: 3, room: "den", finishedAt: 1, ruleset: "classic", bestOf: 3, players: ["Ann", "Bob"],
      scores: [2, 0], winner: "Ann", forfeit: false, fair: true, rounds: rounds)
  }

  @Test("a replay checks each fair round as a spectator did: a forged weapon is a lie")
  func forgedReplay() throws {
    var replay = try #require(MatchReplay(Self.fairRecord()))
    replay.seek(to: replay.lastStep)
    #expect(replay.state.fair.verifiedRounds == [1, 2])
    #expect(replay.state.fair.evidence == nil)
    #expect(replay.state.props.banner == "PLAYER 1 WINS! Ann wins.")
    var forged = Self.fairRecord()
    forged.rounds![1].weapons[1] = .paper
    forged.rounds![1].winner = .two
    forged.rounds![1].reason = "paper covers rock"
    forged.scores = [1, 1]
    var caught = try #require(MatchReplay(forged))
    caught.seek(to: 2)
    #expect(caught.state.fair.verifiedRounds == [1])
    #expect(caught.state.context.notice?.hasPrefix("The server cheated in round 2") == true)
    // Stepping back before the forged round: re-reduced from the start, nothing caught.
    caught.seek(to: 1)
    #expect(caught.state.fair.evidence == nil && caught.state.context.notice == nil)
  }

  @Test("piped, a replay prints a line a round: who picked what, what it made, the result")
  func pipedLines() throws {
    var record = Self.fairRecord()
    // A third round, resolved in the commit stage: Ann committed, Bob never did.
    record.rounds!.insert(
      RoundResult(
        round: 1, weapons: [nil, nil], winner: .one, reason: nil,
        commitments: [String(repeating: "a", count: 64), nil], nonces: [nil, nil]), at: 0)
    for index in 1..<3 { record.rounds![index].round = index + 1 }
    record.bestOf = 5
    record.scores = [3, 0]
    let lines = ReplayScreen.lines(for: try #require(MatchReplay(record)))
    #expect(lines.count == 3)
    #expect(lines[0].hasPrefix("round 1 | Ann sealed, Bob nothing | "), "\(lines)")
    #expect(lines[1].hasPrefix("round 2 | Ann rock, Bob scissors | "), "\(lines)")
    #expect(lines[2].hasPrefix("round 3 | Ann rock, Bob scissors | "), "\(lines)")
    #expect(lines[2].hasSuffix("| PLAYER 1 WINS! Ann wins."), "\(lines)")
  }

  @Test("piped, a match given up after a round says so on its last line, and who won it")
  func pipedForfeit() throws {
    let round = RoundResult(
      round: 1, weapons: [.rock, .scissors], winner: .one, reason: "rock crushes scissors")
    let record = FinishedMatch(
      id: 1, room: "den", finishedAt: 1, ruleset: "classic", bestOf: 3,
      players: ["Alice", "Bob"], scores: [1, 0], winner: "Bob", forfeit: true, fair: false,
      rounds: [round])
    let lines = ReplayScreen.lines(for: try #require(MatchReplay(record)))
    // (Round 2 was open when Alice left, as the live screens said.)
    #expect(
      lines == [
        "round 1 | Alice rock, Bob scissors | Alice wins the round: rock crushes scissors",
        "Alice gave up in round 2: Bob wins by forfeit. | PLAYER 2 WINS! Bob wins.",
      ], "\(lines)")
  }

  @Test("keys: arrows, letters, Home and End as the replay reads them")
  func keys() {
    var decoder = KeyDecoder()
    func keys(_ bytes: [UInt8]) -> [ReplayScreen.Command] {
      bytes.compactMap { decoder.feed($0) }.compactMap(ReplayScreen.Command.init)
    }
    #expect(keys([0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44]) == [.forward, .back])
    #expect(keys(Array("lhgG q".utf8)) == [.forward, .back, .start, .end, .togglePlay, .quit])
    #expect(keys([0x1B, 0x5B, 0x48, 0x1B, 0x5B, 0x46]) == [.start, .end])
    #expect(keys([0x1B, 0x5B, 0x31, 0x7E, 0x1B, 0x5B, 0x34, 0x7E]) == [.start, .end])
    // An unknown sequence is dropped whole: none of its letters is a key.
    #expect(keys([0x1B, 0x5B, 0x5A, 0x6C]) == [.forward])
    #expect(keys([0x1B, 0x4F, 0x6C]) == [.forward])
  }
}
