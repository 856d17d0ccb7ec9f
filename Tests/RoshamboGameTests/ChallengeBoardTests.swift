import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

/// The lobby's challenges alone: each action's events exactly, the bounds, and a property
/// over random sequences that every challenge ends once and the caps always hold.
@Suite("Challenges", .cpuBound)
struct ChallengeBoardTests {
  let alice = ChallengeBoard.Person(id: 1, name: "Alice")
  let bob = ChallengeBoard.Person(id: 2, name: "Bob")
  let carol = ChallengeBoard.Person(id: 3, name: "Carol")
  let terms = ChallengeBoard.Terms(bestOf: 5, ruleset: .lizardSpock, fair: true)
  /// Bob and Mallory with identities and addresses of their own (the blocks' tests).
  let keyedBob = ChallengeBoard.Person(id: 2, name: "Bob", identity: key(2), address: "10.0.0.2")
  let mallory = ChallengeBoard.Person(
    id: 5, name: "Mallory", identity: key(5), address: "10.0.0.5")

  /// Player identity number `n`, as 64 hex digits.
  static func key(_ n: Int) -> String {
    String(repeating: "0", count: 60) + String(format: "%04x", n)
  }

  func challenge(
    _ id: Int, _ from: ChallengeBoard.Person, _ to: ChallengeBoard.Person, at: Int64
  ) -> ChallengeBoard.Challenge {
    .init(id: id, from: from, to: to, terms: terms, expiresAt: at + 30_000)
  }

  @Test("offer, then accept: the one challenged takes it, and both their others end")
  func accept() throws {
    var board = ChallengeBoard()
    #expect(
      try board.reduce(.offer(from: alice, to: bob, terms: terms, at: 1_000)).get()
        == [.offered(challenge(1, alice, bob, at: 1_000))])
    _ = try board.reduce(.offer(from: carol, to: bob, terms: terms, at: 1_100)).get()
    _ = try board.reduce(.offer(from: alice, to: carol, terms: terms, at: 1_200)).get()
    // Only Bob may answer challenge 1.
    #expect(board.reduce(.accept(id: 1, by: alice.id)) == .failure(.noSuchChallenge(1)))
    #expect(board.reduce(.accept(id: 9, by: bob.id)) == .failure(.noSuchChallenge(9)))
    #expect(
      try board.reduce(.accept(id: 1, by: bob.id)).get() == [
        .withdrawn(challenge(2, carol, bob, at: 1_100)),
        .withdrawn(challenge(3, alice, carol, at: 1_200)),
        .accepted(challenge(1, alice, bob, at: 1_000)),
      ])
    #expect(board.pending.isEmpty)
    // Answered once: a second answer is refused.
    #expect(board.reduce(.accept(id: 1, by: bob.id)) == .failure(.noSuchChallenge(1)))
  }

  @Test("decline, expire (not before its time, not after an answer), departure")
  func endings() throws {
    var board = ChallengeBoard(lifetimeMillis: 10_000)
    _ = try board.reduce(.offer(from: alice, to: bob, terms: terms, at: 0)).get()
    _ = try board.reduce(.offer(from: alice, to: carol, terms: terms, at: 0)).get()
    _ = try board.reduce(.offer(from: bob, to: carol, terms: terms, at: 0)).get()
    let first = ChallengeBoard.Challenge(
      id: 1, from: alice, to: bob, terms: terms, expiresAt: 10_000)
    #expect(try board.reduce(.expire(id: 1, at: 9_999)).get() == [])
    #expect(try board.reduce(.decline(id: 1, by: bob.id)).get() == [.declined(first)])
    #expect(try board.reduce(.expire(id: 1, at: 10_000)).get() == [], "answered already")
    #expect(try board.reduce(.expire(id: 2, at: 10_000)).get().map(\.challenge.id) == [2])
    // Carol goes: Bob's challenge to her ends, told as withdrawn.
    #expect(
      try board.reduce(.departed(carol.id)).get()
        == [.withdrawn(.init(id: 3, from: bob, to: carol, terms: terms, expiresAt: 10_000))])
    #expect(try board.reduce(.departed(carol.id)).get() == [])
  }

  @Test("bounds: yourself, twice, back, 3 out, 5 in, 10 a minute; a refusal changes nothing")
  func bounds() throws {
    var board = ChallengeBoard()
    func refused(_ action: ChallengeBoard.Action) -> Refusal.Kind? {
      let before = board
      guard case .failure(let refusal) = board.reduce(action) else { return nil }
      #expect(board == before, "refused \(action) but the board changed")
      return refusal.kind
    }
    #expect(refused(.offer(from: alice, to: alice, terms: terms, at: 0)) == .noSuchPlayer)
    _ = try board.reduce(.offer(from: alice, to: bob, terms: terms, at: 0)).get()
    #expect(refused(.offer(from: alice, to: bob, terms: terms, at: 1)) == .challengeLimit)
    #expect(refused(.offer(from: bob, to: alice, terms: terms, at: 1)) == .challengeLimit)
    let others = (10..<20).map { ChallengeBoard.Person(id: $0, name: "P\($0)") }
    _ = try board.reduce(.offer(from: alice, to: others[0], terms: terms, at: 2)).get()
    _ = try board.reduce(.offer(from: alice, to: others[1], terms: terms, at: 3)).get()
    #expect(refused(.offer(from: alice, to: others[2], terms: terms, at: 4)) == .challengeLimit)
    // Five waiting for Carol's answer: the sixth challenger is told she is busy.
    for person in others.prefix(5) {
      _ = try board.reduce(.offer(from: person, to: carol, terms: terms, at: 5)).get()
    }
    #expect(refused(.offer(from: others[5], to: carol, terms: terms, at: 6)) == .busy)
    // Ten a minute: Bob challenges and each is declined at once; the eleventh waits.
    var made = 0
    for (index, person) in others.enumerated() {
      let at = Int64(1_000 + index)
      let offer = ChallengeBoard.Action.offer(from: bob, to: person, terms: terms, at: at)
      guard case .success(let events) = board.reduce(offer) else { continue }
      made += 1
      _ = try board.reduce(.decline(id: events[0].challenge.id, by: person.id)).get()
    }
    #expect(made == 10)
    #expect(
      refused(.offer(from: bob, to: others[9], terms: terms, at: 30_000)) == .challengeLimit)
    #expect(
      (try? board.reduce(.offer(from: bob, to: others[9], terms: terms, at: 62_000)).get()) != nil)
  }

  @Test("one identity is one person to the limits, however many connections it uses")
  func limitsPerIdentity() throws {
    var board = ChallengeBoard()
    let key = String(repeating: "ab", count: 32)
    // Ten connections of one identity are one challenger: three waiting at once…
    let mallory = (100..<110).map {
      ChallengeBoard.Person(id: $0, name: "M\($0)", identity: key)
    }
    let targets = (10..<30).map { ChallengeBoard.Person(id: $0, name: "P\($0)") }
    var waiting: [ChallengeBoard.Challenge] = []
    for index in 0..<3 {
      let events = try board.reduce(
        .offer(from: mallory[index], to: targets[index], terms: terms, at: 0)
      ).get()
      waiting.append(events[0].challenge)
    }
    guard
      case .failure(let outgoing) = board.reduce(
        .offer(from: mallory[3], to: targets[3], terms: terms, at: 1))
    else {
      Issue.record("a fourth connection of one identity had a fourth challenge waiting")
      return
    }
    #expect(outgoing.kind == .challengeLimit)
    for challenge in waiting {
      _ = try board.reduce(.decline(id: challenge.id, by: challenge.to.id)).get()
    }
    // …and ten a minute, even when its connections leave and others come instead.
    _ = try board.reduce(.departed(mallory[0].id)).get()
    var made = 3
    for index in 3..<20 {
      let offer = ChallengeBoard.Action.offer(
        from: mallory[index % mallory.count], to: targets[index], terms: terms,
        at: Int64(10 + index))
      guard case .success(let events) = board.reduce(offer) else { continue }
      made += 1
      _ = try board.reduce(.decline(id: events[0].challenge.id, by: targets[index].id)).get()
    }
    #expect(made == ChallengeBoard.maxPerMinute)
  }

  @Test("griefers at one address cannot keep someone busy: keyless ones, nor fresh identities")
  func griefersAtOneAddress() throws {
    var board = ChallengeBoard()
    let victim = ChallengeBoard.Person(
      id: 1, name: "Vic", identity: String(repeating: "1", count: 64), address: "10.0.0.1")
    func offer(_ from: ChallengeBoard.Person, at: Int64 = 0) -> Result<
      [ChallengeBoard.Event], Refusal
    > {
      board.reduce(.offer(from: from, to: victim, terms: terms, at: at))
    }
    // Five connections without an identity from one address: one person to the limits.
    let keyless = (10..<15).map {
      ChallengeBoard.Person(id: $0, name: "G\($0)", address: "203.0.113.9")
    }
    #expect((try? offer(keyless[0]).get()) != nil)
    for griefer in keyless.dropFirst() {
      guard case .failure(let refusal) = offer(griefer) else {
        Issue.record("\(griefer.name) had a second challenge from the address waiting for Vic")
        continue
      }
      #expect(refusal.kind == .challengeLimit)
    }
    // Identities cost nothing to make: one address has at most two waiting for one person.
    let minted = (20..<25).map {
      ChallengeBoard.Person(
        id: $0, name: "M\($0)", identity: String(repeating: "\($0 % 10)", count: 64),
        address: "203.0.113.9")
    }
    var made = 0
    for griefer in minted {
      switch offer(griefer) {
      case .success: made += 1
      case .failure(let refusal): #expect(refusal.kind == .challengeLimit)
      }
    }
    #expect(made == ChallengeBoard.maxIncomingPerAddress - 1)
    #expect(board.pending.values.count { $0.to.id == victim.id } == 2)
    // Vic is not busy to anyone else: people at other addresses still challenge her.
    for index in 0..<3 {
      let friend = ChallengeBoard.Person(
        id: 30 + index, name: "F\(index)", address: "192.0.2.\(index)")
      #expect((try? offer(friend).get()) != nil, "F\(index) was refused")
    }
    // The keyless ones share the 3 waiting and the 10 a minute, as one identity does.
    let others = (40..<44).map {
      ChallengeBoard.Person(id: $0, name: "P\($0)", address: "198.51.100.\($0)")
    }
    _ = try board.reduce(.offer(from: keyless[1], to: others[0], terms: terms, at: 1)).get()
    _ = try board.reduce(.offer(from: keyless[2], to: others[1], terms: terms, at: 1)).get()
    guard
      case .failure(let fourth) = board.reduce(
        .offer(from: keyless[3], to: others[2], terms: terms, at: 1))
    else {
      Issue.record("a fourth keyless connection at one address had a fourth challenge waiting")
      return
    }
    #expect(fourth.kind == .challengeLimit)
  }

  @Test("declined for the evening: that challenger's challenges are refused, everyone else's not")
  func declinedForTheEvening() throws {
    var board = ChallengeBoard()
    let (key, bob, mallory) = (Self.key, keyedBob, mallory)
    let first = try board.reduce(.offer(from: mallory, to: bob, terms: terms, at: 0)).get()
    let challenge = first[0].challenge
    #expect(
      try board.reduce(.block(id: challenge.id, by: bob.id, at: 0)).get() == [.declined(challenge)])
    // Mallory again, on another connection of her identity, later in the evening: refused.
    let again = ChallengeBoard.Person(
      id: 6, name: "Mallory", identity: key(5), address: "10.0.0.6")
    for (who, at) in [(mallory, Int64(1_000)), (again, 3_600_000)] {
      guard
        case .failure(let refusal) = board.reduce(.offer(from: who, to: bob, terms: terms, at: at))
      else {
        Issue.record("a challenge from someone Bob declined for the evening reached him")
        continue
      }
      #expect(refusal.kind == .busy)
      #expect(refusal.message.contains("Bob declines your challenges"), "\(refusal.message)")
    }
    // Bob's own new connection keeps the block (it is his identity's).
    let bobAgain = ChallengeBoard.Person(id: 7, name: "Bob", identity: key(2), address: "10.0.0.2")
    _ = try board.reduce(.departed(bob.id)).get()
    #expect(board.reduce(.offer(from: mallory, to: bobAgain, terms: terms, at: 2_000)).isFailure)
    // Others still challenge Bob, and Bob may still challenge Mallory.
    #expect(board.reduce(.offer(from: alice, to: bobAgain, terms: terms, at: 2_000)).isSuccess)
    #expect(board.reduce(.offer(from: bobAgain, to: mallory, terms: terms, at: 2_000)).isSuccess)
    // A challenger without an identity is blocked by its address.
    let kim = ChallengeBoard.Person(id: 8, name: "Kim", address: "10.0.0.8")
    let fromKim = try board.reduce(.offer(from: kim, to: carol, terms: terms, at: 0)).get()
    _ = try board.reduce(.block(id: fromKim[0].challenge.id, by: carol.id, at: 0)).get()
    let kimAgain = ChallengeBoard.Person(id: 9, name: "Kim2", address: "10.0.0.8")
    #expect(board.reduce(.offer(from: kimAgain, to: carol, terms: terms, at: 10)).isFailure)
    // Only the one challenged may block, and only a challenge still waiting.
    let pending = try board.reduce(.offer(from: alice, to: carol, terms: terms, at: 20)).get()
    #expect(
      board.reduce(.block(id: pending[0].challenge.id, by: alice.id, at: 0))
        == .failure(.noSuchChallenge(pending[0].challenge.id)))
  }

  @Test("fresh identities from one address make at most 30 challenges a minute between them")
  func freshIdentitiesPerAddress() {
    var board = ChallengeBoard()
    let key = Self.key
    var made = 0
    for index in 0..<40 {
      // A new identity each time, each challenging someone new: only the address is shared.
      let from = ChallengeBoard.Person(
        id: 1_000 + index, name: "s\(index)", identity: key(index), address: "10.0.0.9")
      let to = ChallengeBoard.Person(
        id: 2_000 + index, name: "t\(index)", identity: key(500 + index))
      if board.reduce(.offer(from: from, to: to, terms: terms, at: Int64(index))).isSuccess {
        made += 1
      }
    }
    #expect(made == ChallengeBoard.maxPerMinutePerAddress)
    // A minute later the address may challenge again; another address never waited.
    let late = ChallengeBoard.Person(
      id: 3_000, name: "late", identity: key(900), address: "10.0.0.9")
    let to = ChallengeBoard.Person(id: 3_001, name: "t", identity: key(901))
    #expect(board.reduce(.offer(from: late, to: to, terms: terms, at: 60_000)).isSuccess)
  }

  @Test("a block covers the challenger's address too, and lasts the evening (12 hours)")
  func blockCoversTheAddress() throws {
    var board = ChallengeBoard()
    let (key, bob, mallory) = (Self.key, keyedBob, mallory)
    let first = try board.reduce(.offer(from: mallory, to: bob, terms: terms, at: 0)).get()
    _ = try board.reduce(.block(id: first[0].challenge.id, by: bob.id, at: 0)).get()
    // A fresh identity, and a keyless connection, from Mallory's address: refused.
    let fresh = ChallengeBoard.Person(id: 6, name: "M2", identity: key(6), address: "10.0.0.5")
    let keyless = ChallengeBoard.Person(id: 7, name: "M3", address: "10.0.0.5")
    for who in [fresh, keyless] {
      #expect(board.reduce(.offer(from: who, to: bob, terms: terms, at: 1_000)).isFailure)
    }
    // Mallory's identity from another address: refused too.
    let moved = ChallengeBoard.Person(id: 8, name: "Mallory", identity: key(5), address: "10.9.9.9")
    #expect(board.reduce(.offer(from: moved, to: bob, terms: terms, at: 1_000)).isFailure)
    // The next evening the block is over.
    #expect(
      board.reduce(.offer(from: fresh, to: bob, terms: terms, at: ChallengeBoard.eveningMillis))
        .isSuccess)
    // What the hub journals for it, and a board rebuilt from that refuses the same.
    let blocks = ChallengeBoard.blocks(of: first[0].challenge, at: 0)
    #expect(blocks.map(\.of) == ["identity " + key(5), "address 10.0.0.5"])
    var rebuilt = ChallengeBoard(blocks: blocks)
    #expect(rebuilt.reduce(.offer(from: keyless, to: bob, terms: terms, at: 5)).isFailure)
  }

  @Test("random sequences: the caps hold, and every challenge ends with exactly one event")
  func property() async {
    let script = Gen.int(in: 0...Int(Int32.max)).array(of: 0...200)
    await propertyCheck(count: 300, input: script) { numbers in
      let people = (1...5).map { ChallengeBoard.Person(id: $0, name: "P\($0)") }
      var board = ChallengeBoard(lifetimeMillis: 5_000)
      var clock: Int64 = 0
      var offered: Set<Int> = []
      var ended: [Int: Int] = [:]
      for r in numbers {
        clock += Int64((r >> 3) % 2_000)
        let a = people[(r >> 8) % 5]
        let b = people[(r >> 12) % 5]
        let id = 1 + (r >> 16) % 12
        let action: ChallengeBoard.Action =
          switch r % 6 {
          case 0, 1: .offer(from: a, to: b, terms: terms, at: clock)
          case 2: .accept(id: id, by: b.id)
          case 3: .decline(id: id, by: b.id)
          case 4: .expire(id: id, at: clock)
          default: .departed(a.id)
          }
        let before = board
        switch board.reduce(action) {
        case .failure:
          #expect(board == before)
        case .success(let events):
          for event in events {
            if case .offered(let challenge) = event {
              #expect(offered.insert(challenge.id).inserted)
            } else {
              ended[event.challenge.id, default: 0] += 1
            }
          }
        }
        let pending = board.pending.values
        for person in people {
          #expect(pending.count(where: { $0.from.id == person.id }) <= ChallengeBoard.maxOutgoing)
          #expect(pending.count(where: { $0.to.id == person.id }) <= ChallengeBoard.maxIncoming)
        }
        #expect(Set(pending.map { [$0.from.id, $0.to.id].sorted() }).count == pending.count)
      }
      #expect(ended.values.allSatisfy { $0 == 1 }, "a challenge ended twice")
      #expect(Set(ended.keys).union(board.pending.keys) == offered)
      #expect(Set(ended.keys).isDisjoint(with: board.pending.keys))
    }
  }
}

extension Result {
  var isSuccess: Bool { if case .success = self { true } else { false } }
  var isFailure: Bool { !isSuccess }
}

@Suite("Matches opened for two players")
struct OpenMatchTests {
  let players = [
    LobbyAction.Entrant(name: "Alice", token: "a"), LobbyAction.Entrant(name: "Bob", token: "b"),
  ]

  @Test("openMatch seats both in duel-N with its settings: the match starts at once")
  func opens() throws {
    var lobby = LobbyState()
    let settings = RoomState.Settings(ruleset: .lizardSpock, bestOf: 7, fair: true)
    #expect(lobby.nextMatchRoom == "duel-1")
    let events = try lobby.reduce(.openMatch(players: players, settings: settings, at: 5)).get()
    let room = try #require(lobby.rooms["duel-1"])
    #expect(room.settings == settings)
    #expect(room.phase == .choosing)
    #expect(room.seats[.one]?.name == "Alice" && room.seats[.two]?.name == "Bob")
    #expect(events.first == .opened("duel-1"))
    #expect(events.contains(.room("duel-1", .matchStarted)))
    #expect(lobby.nextMatchRoom == "duel-2")
    #expect(lobby.quickMatchRoom == nil)
    // The server's names: a join may not create one, but may enter one.
    #expect(
      lobby.apply(.join(room: "duel-2", name: "C", token: "c", at: 6))?.kind == .reservedRoomName)
    #expect(lobby.apply(.spectate(room: "duel-1")) == nil)
  }

  @Test("openMatch needs two different players and playable settings; refused, nothing changes")
  func refusals() {
    var lobby = LobbyState()
    for (entrants, settings) in [
      (Array(players.prefix(1)), RoomState.Settings()),
      ([players[0], players[0]], RoomState.Settings()),
      (players, RoomState.Settings(bestOf: 4)),
    ] {
      #expect(
        lobby.apply(.openMatch(players: entrants, settings: settings, at: 1))?.kind == .notPlaying)
      #expect(lobby == LobbyState())
    }
  }

  @Test("replaying openMatch rebuilds the same rooms and numbering")
  func replay() {
    let journal: [LobbyAction] = [
      .openMatch(players: players, settings: .init(), at: 1),
      .room("duel-1", .left(seat: .one, at: 2)),
      .room("duel-1", .left(seat: .two, at: 3)),
      .openMatch(players: players, settings: .init(bestOf: 1), at: 4),
    ]
    var live = LobbyState()
    for action in journal { #expect(live.apply(action) == nil) }
    var again = LobbyState()
    for action in journal { again.apply(action) }
    #expect(again == live)
    #expect(live.rooms.keys.sorted() == ["duel-2"])
    #expect(live.nextMatchRoom == "duel-3")
  }
}
