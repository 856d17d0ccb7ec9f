import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

/// Tournaments through the lobby's own actions: entries, rounds paired and seated,
/// matches decided in their rooms (a forfeit decides one at once), to a champion.
@Suite("Tournaments", .cpuBound)
struct TournamentTests {
  @Test("a tournament's rooms are cup-N-R-M, every part digits, and no other room is one")
  func tournamentRooms() {
    for name in ["cup-1-2-1", "cup-12-3-45"] { #expect(Tournament.isTournamentRoom(name)) }
    for name in [
      "cup-1-2", "cup-1-2-1-1", "cup-1-x-1", "cup--2-1", "cupa-1-2-1", "cup", "duel-1", "",
      "quick-3", "Cup-1-2-1",
    ] {
      #expect(!Tournament.isTournamentRoom(name), "\(name)")
    }
  }

  static let settings = RoomState.Settings(bestOf: 1)

  /// A lobby with a tournament of `kind` and `count` entrants `p1`…, not started.
  static func lobby(_ kind: Tournament.Kind, _ count: Int) -> LobbyState {
    var lobby = LobbyState()
    #expect(lobby.apply(.tournament(.open(kind, settings: settings))) == nil)
    for index in 1...count { #expect(lobby.apply(.tournament(.enter(name: "p\(index)"))) == nil) }
    return lobby
  }

  /// Plays the tournament to its end: each round started with tokens, each match decided
  /// by one seat leaving (the other wins by forfeit; `pick` says which seat wins).
  /// Returns the rounds as they were paired.
  @discardableResult
  static func play(
    _ lobby: inout LobbyState, pick: (String, String) -> Seat = { _, _ in .one }
  ) -> [[Tournament.Pairing]] {
    var at: Int64 = 1_000
    while lobby.tournament?.phase != .finished {
      let entrants = lobby.tournament!.entrants
      let tokens = Dictionary(uniqueKeysWithValues: entrants.map { ($0, "t-\($0)-\(at)") })
      let before = lobby.tournament!.rounds.count
      #expect(lobby.apply(.tournament(.startRound(tokens: tokens, at: at))) == nil)
      #expect(lobby.tournament!.rounds.count == before + 1)
      for pairing in lobby.tournament!.rounds.last! where !pairing.isBye {
        let room = pairing.room!
        #expect(lobby.rooms[room]?.phase == .choosing)
        let winner = pick(pairing.players[0], pairing.players[1])
        at += 1
        #expect(lobby.apply(.room(room, .left(seat: winner.opponent, at: at))) == nil)
      }
      at += 1_000
      if lobby.tournament!.rounds.count > 80 { break }
    }
    return lobby.tournament!.rounds
  }

  /// Which seat wins each match, tossed from `seed` (the same seed, the same tosses).
  static func coin(_ seed: Int) -> (String, String) -> Seat {
    var bits = UInt64(seed)
    return { _, _ in
      bits = bits &* 6_364_136_223_846_793_005 &+ 1
      return (bits >> 33) % 2 == 0 ? .one : .two
    }
  }

  /// ⌈log2 n⌉, counted independently of the code under test.
  static func log2ceil(_ n: Int) -> Int {
    var bits = 0
    while (1 << bits) < n { bits += 1 }
    return bits
  }

  @Test("round robin, 2 to 12 players: everyone meets everyone once, one bye each when odd")
  func roundRobin() {
    for count in 2...12 {
      var lobby = Self.lobby(.roundRobin, count)
      let rounds = Self.play(&lobby)
      #expect(rounds.count == (count % 2 == 0 ? count - 1 : count))
      var met: [Set<String>] = []
      var byes: [String] = []
      for round in rounds {
        let players = round.flatMap(\.players)
        #expect(Set(players).count == players.count, "someone twice in a round")
        #expect(players.count == count)
        for pairing in round {
          if pairing.isBye {
            byes.append(pairing.players[0])
          } else {
            met.append(Set(pairing.players))
          }
        }
      }
      #expect(met.count == count * (count - 1) / 2)
      #expect(Set(met).count == met.count, "a pairing repeated with \(count) players")
      #expect(byes.sorted() == (count % 2 == 1 ? (1...count).map { "p\($0)" }.sorted() : []))
      #expect(lobby.tournament?.champion == lobby.tournament?.standings.first?.name)
    }
  }

  @Test("single elimination, 2 to 64 players with random winners: ⌈log2 n⌉ rounds, one champion")
  func singleElimination() async {
    await propertyCheck(count: 100, input: Gen.int(in: 2...64), Gen.int(in: 0...Int(Int32.max))) {
      count, seed in
      var lobby = Self.lobby(.singleElimination, count)
      let rounds = Self.play(&lobby, pick: Self.coin(seed))
      let expected = Self.log2ceil(count)
      #expect(rounds.count == expected)
      // Each round is played by exactly the winners of the one before.
      for (index, round) in rounds.enumerated().dropFirst() {
        #expect(
          Set(round.flatMap(\.players)) == Set(rounds[index - 1].compactMap(\.winner)))
      }
      // Round 2 holds a power of two; the last round is the final.
      if rounds.count >= 2 { #expect(rounds[1].flatMap(\.players).count == 1 << (expected - 1)) }
      #expect(rounds.last?.count == 1 && rounds.last?.first?.isBye == false)
      let champion = lobby.tournament?.champion
      #expect(champion == rounds.last?.first?.winner)
      #expect(lobby.tournament?.standings.filter(\.alive).map(\.name) == [champion!])
    }
  }

  @Test("Swiss: a player who withdrew gets no bye while someone still playing can have it")
  func swissByeNotToTheWithdrawn() {
    var tournament = Tournament(kind: .swiss, settings: Self.settings)
    tournament.entrants = ["p1", "p2", "p3", "p4", "p5"]
    tournament.phase = .running
    tournament.withdrawn = ["p5"]
    let round = tournament.nextRound()
    let byes = round.filter(\.isBye).flatMap(\.players)
    #expect(byes == ["p4"])
    // p5 is paired (a walkover to the opponent), not left out.
    #expect(round.contains { !$0.isBye && $0.players.contains("p5") })
  }

  @Test("round robin: a withdrawn player's scheduled bye is no pairing, so not a free win")
  func roundRobinByeNotToTheWithdrawn() {
    var tournament = Tournament(kind: .roundRobin, settings: Self.settings)
    tournament.entrants = ["p1", "p2", "p3"]
    tournament.phase = .running
    // The circle gives each of the three one bye; find the round of p3's.
    let byeRound = (1...3).first { round in
      var scheduled = tournament
      scheduled.rounds = Array(repeating: [], count: round - 1)
      return scheduled.nextRound().contains { $0.isBye && $0.players == ["p3"] }
    }!
    tournament.rounds = Array(repeating: [], count: byeRound - 1)
    tournament.withdrawn = ["p3"]
    let round = tournament.nextRound()
    #expect(!round.contains { $0.players.contains("p3") })
    // The round's match is the other two's, as scheduled.
    #expect(round.map(\.players) == [["p1", "p2"]] || round.map(\.players) == [["p2", "p1"]])
    tournament.rounds.append(round)
    #expect(tournament.standings.first { $0.name == "p3" }?.wins == 0)
  }

  @Test("Swiss, 2 to 20 players: ⌈log2 n⌉ rounds, no rematch from 6 players on, byes spread")
  func swiss() async {
    await propertyCheck(count: 100, input: Gen.int(in: 2...20), Gen.int(in: 0...Int(Int32.max))) {
      count, seed in
      var lobby = Self.lobby(.swiss, count)
      let rounds = Self.play(&lobby, pick: Self.coin(seed))
      let expected = Self.log2ceil(count)
      #expect(rounds.count == expected)
      var met: [Set<String>] = []
      var byes: [String] = []
      for round in rounds {
        let players = round.flatMap(\.players)
        #expect(players.count == count && Set(players).count == count)
        met += round.filter { !$0.isBye }.map { Set($0.players) }
        byes += round.filter(\.isBye).map { $0.players[0] }
      }
      // With 6 or more, a pairing without a rematch always exists (Dirac), so none comes.
      if count >= 6 { #expect(Set(met).count == met.count, "a rematch with \(count) players") }
      if count >= 3 { #expect(Set(byes).count == byes.count, "a second bye with \(count)") }
      let standings = lobby.tournament!.standings
      #expect(lobby.tournament?.champion == standings.first?.name)
      #expect(standings.map(\.wins) == standings.map(\.wins).sorted(by: >))
      #expect(standings.map(\.wins).reduce(0, +) == rounds.joined().count)
    }
  }

  @Test("entries: refused when closed, twice, or full; rematches and joins in its rooms refused")
  func refusals() {
    var lobby = LobbyState()
    #expect(lobby.apply(.tournament(.enter(name: "A")))?.kind == .tournamentClosed)
    lobby.apply(.tournament(.open(.roundRobin, settings: Self.settings)))
    #expect(
      lobby.apply(.tournament(.open(.swiss, settings: Self.settings)))?.kind == .tournamentClosed)
    lobby.apply(.tournament(.enter(name: "A")))
    #expect(lobby.apply(.tournament(.enter(name: "A")))?.kind == .nameTaken)
    #expect(
      lobby.apply(.tournament(.startRound(tokens: ["A": "a"], at: 1)))?.kind
        == .tournamentClosed, "one player is no tournament")
    lobby.apply(.tournament(.enter(name: "B")))
    // Tokens missing for a player: the round cannot be seated.
    #expect(lobby.apply(.tournament(.startRound(tokens: ["A": "a"], at: 1)))?.kind == .stale)
    #expect(lobby.apply(.tournament(.startRound(tokens: ["A": "a", "B": "b"], at: 1))) == nil)
    #expect(lobby.apply(.tournament(.enter(name: "C")))?.kind == .tournamentClosed)
    let room = lobby.tournament!.rounds[0][0].room!
    #expect(room == "cup-1-1-1")
    #expect(lobby.apply(.join(room: room, name: "X", token: "x", at: 2))?.kind == .notPlaying)
    #expect(lobby.apply(.spectate(room: room)) == nil)
    lobby.apply(.room(room, .chose(seat: .one, round: 1, weapon: .rock, at: 3)))
    lobby.apply(.room(room, .chose(seat: .two, round: 1, weapon: .paper, at: 4)))
    #expect(lobby.tournament?.phase == .finished)
    #expect(lobby.tournament?.champion == "B")
    #expect(lobby.tournament?.rounds[0][0].scores == [0, 1])
    #expect(
      lobby.apply(.room(room, .rematchRequested(seat: .one, at: 7)))?.kind == .notPlaying)
    // A finished tournament makes way for the next, whose rooms are its own.
    #expect(lobby.apply(.tournament(.open(.swiss, settings: Self.settings))) == nil)
    #expect(lobby.tournament?.number == 2)
    #expect(lobby.tournament?.room(round: 1, index: 0) == "cup-2-1-1")
  }

  @Test("the events say what happened: paired, a round over, finished")
  func events() throws {
    var lobby = Self.lobby(.singleElimination, 3)
    let paired = try lobby.reduce(
      .tournament(.startRound(tokens: ["p1": "a", "p2": "b", "p3": "c"], at: 1))
    ).get()
    #expect(paired.contains(.opened("cup-1-1-1")))
    #expect(paired.last == .tournament(.roundPaired(1)))
    // p1 has a bye; p2 meets p3, and p3 leaves.
    let over = try lobby.reduce(.room("cup-1-1-1", .left(seat: .two, at: 2))).get()
    #expect(over.last == .tournament(.roundOver(1)))
    _ = try lobby.reduce(.tournament(.startRound(tokens: ["p1": "d", "p2": "e"], at: 3))).get()
    let final = try lobby.reduce(.room("cup-1-2-1", .left(seat: .one, at: 4))).get()
    // Round 1's room, still open, moves on with it: those in it hear the champion.
    #expect(
      final.suffix(2) == [
        .tournament(.finished(champion: "p2")), .room("cup-1-1-1", .tournamentMovedOn),
      ])
  }

  @Test("a room's stage: its tournament's round, rounds, byes and champion; nil for other rooms")
  func roomStage() {
    var lobby = Self.lobby(.roundRobin, 3)
    let tokens = Dictionary(uniqueKeysWithValues: ["p1", "p2", "p3"].map { ($0, "t-\($0)") })
    #expect(lobby.apply(.tournament(.startRound(tokens: tokens, at: 1))) == nil)
    let tournament = lobby.tournament!
    let room = tournament.rounds[0].first { !$0.isBye }!.room!
    let bye = tournament.rounds[0].first(where: \.isBye)!.players
    #expect(
      tournament.stage(ofRoom: room, startsAt: 9_000)
        == RoomView.TournamentStage(
          kind: .roundRobin, phase: .running, round: 1, rounds: 3, startsAt: 9_000, byes: bye))
    #expect(tournament.stage(ofRoom: "den", startsAt: nil) == nil)
    // A room of an earlier tournament (another number) is not this one's.
    #expect(tournament.stage(ofRoom: "cup-7-1-1", startsAt: nil) == nil)
    // Its rooms' views carry it (the server adds it where it sends them).
    #expect(lobby.rooms[room]!.view(for: .one).tournament == nil)
  }
}
