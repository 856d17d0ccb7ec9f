import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// Names are not for squatting (issue 49, vulnerability 5): a key holds a few names, an
/// address brings a few new keys an hour, and a name nobody uses for a month lapses.
@Suite("Hub: how many names, and for how long")
struct HubNameLimitTests {
  typealias H = HubHarness

  /// A player identity of its own at `address`.
  static func key(_ id: Int, at address: String = "10.0.0.1") -> Peer {
    HubRatingTests.peer(id, at: address)
  }

  /// `peer` follows the lobby under `name`, able to be challenged; settled.
  static func arrive(_ hub: inout HubHarness, _ peer: Peer, as name: String) -> [String] {
    let lines = hub.say(peer, H.hello(name, role: .lobby, challenges: true))
    return lines + hub.settle()
  }

  @Test("a key holds at most five names; the sixth is played but not kept, and another takes it")
  func namesPerKey() {
    var hub = HubHarness()
    let squatter = Self.key(1)
    for index in 1...6 {
      let link = Peer(id: 100 + index, address: "10.0.0.1", identity: squatter.identity)
      _ = Self.arrive(&hub, link, as: "name\(index)")
    }
    let book = hub.state.lobby.names
    #expect(book.count(heldBy: squatter.identity!) == 5)
    #expect(book.holder(of: "name6") == nil)
    #expect(hub.state.sessions.followers[106]?.name == "name6", "played under, not refused")
    // The sixth is anyone's: a newcomer's key takes it once it is free.
    _ = hub.handle(.closed(Peer(id: 106)))
    _ = Self.arrive(&hub, Self.key(2, at: "10.0.0.2"), as: "name6")
    #expect(hub.state.lobby.names.holder(of: "name6") == Self.key(2).identity)
  }

  @Test("one address brings ten new keys an hour; the eleventh's name is not kept until later")
  func newKeysPerAddress() {
    var hub = HubHarness()
    for index in 1...11 { _ = Self.arrive(&hub, Self.key(index), as: "p\(index)") }
    let book = hub.state.lobby.names
    #expect((1...10).allSatisfy { book.holder(of: "p\($0)") == Self.key($0).identity })
    #expect(book.holder(of: "p11") == nil)
    // Another address is not this one's budget; a key known here is not new.
    _ = Self.arrive(&hub, Self.key(12, at: "10.0.0.9"), as: "p12")
    #expect(hub.state.lobby.names.holder(of: "p12") == Self.key(12).identity)
    _ = Self.arrive(
      &hub, Peer(id: 201, address: "10.0.0.1", identity: Self.key(1).identity), as: "p1b")
    #expect(hub.state.lobby.names.holder(of: "p1b") == Self.key(1).identity)
    // Six minutes later one more new key from the address may come.
    hub.now += 360_000
    _ = hub.handle(.closed(Peer(id: 11)))
    _ = Self.arrive(&hub, Self.key(13), as: "p13")
    #expect(hub.state.lobby.names.holder(of: "p13") == Self.key(13).identity)
  }

  @Test("a name unused for 30 days lapses to the next player; one in use never does")
  func lapse() {
    var hub = HubHarness()
    let (ann, mallory) = (Self.key(1), Self.key(2, at: "10.0.0.2"))
    _ = Self.arrive(&hub, ann, as: "Ann")
    _ = hub.handle(.closed(ann))
    #expect(hub.state.lobby.names.lastUsed["ann"] == hub.now)
    // 29 days later Ann is back: her use is kept (a day has passed since the last).
    hub.now += 29 * 86_400_000
    _ = Self.arrive(&hub, Peer(id: 3, address: "10.0.0.1", identity: ann.identity), as: "Ann")
    _ = hub.handle(.closed(Peer(id: 3)))
    #expect(hub.state.lobby.names.lastUsed["ann"] == hub.now)
    // 29 days after that the name is still hers: Mallory is refused.
    hub.now += 29 * 86_400_000
    let refused = Self.arrive(&hub, mallory, as: "Ann")
    #expect(refused.contains("→2 error name_taken"), "\(refused)")
    #expect(hub.state.lobby.names.holder(of: "Ann") == ann.identity)
    // A month and a day without Ann: the hold lapsed, and the name goes to Mallory.
    hub.now += 2 * 86_400_000
    let taken = Self.arrive(
      &hub, Peer(id: 4, address: "10.0.0.2", identity: mallory.identity), as: "Ann")
    #expect(!taken.contains { $0.contains("error") }, "\(taken)")
    #expect(hub.state.lobby.names.holder(of: "Ann") == mallory.identity)
    #expect(hub.state.lobby.names.count(heldBy: ann.identity!) == 0)
  }

  @Test("names held before their use was kept start their month at the next start")
  func startTouches() {
    var lobby = LobbyState(defaults: .init(bestOf: 3))
    lobby.apply(.names(.claim(name: "Old", identity: Self.key(1).identity!)))
    #expect(lobby.names.namesNeverUsed == ["old"])
    var hub = HubHarness(lobby: lobby)
    _ = hub.handle(.start(releasing: []))
    _ = hub.settle()
    #expect(hub.state.lobby.names.lastUsed == ["old": hub.now])
  }
}

/// The budget of new identities per address, as a value.
@Suite("New identities per address")
struct NewIdentityBudgetTests {
  @Test("ten an hour, one back every six minutes exactly; unknown addresses and 0 unbounded")
  func bucket() {
    var budget = NewIdentityBudget(perHour: 10)
    for _ in 0..<10 {
      #expect(budget.allows("a", now: 0))
      budget.spend("a", now: 0)
    }
    #expect(!budget.allows("a", now: 0))
    #expect(budget.allows("b", now: 0) && budget.allows(nil, now: 0))
    #expect(!budget.allows("a", now: 359_999))
    #expect(budget.allows("a", now: 360_000))
    var unbounded = NewIdentityBudget(perHour: 0)
    for _ in 0..<1_000 { unbounded.spend("a", now: 0) }
    #expect(unbounded.allows("a", now: 0))
  }

  @Test("past 4,096 addresses the fullest is forgotten, never an empty one")
  func bounded() {
    var budget = NewIdentityBudget(perHour: 1)
    budget.spend("first", now: 0)
    for index in 0..<NewIdentityBudget.maxAddresses { budget.spend("x\(index)", now: 3_600_000) }
    // "first" had filled again by then: forgotten (a full bucket); the recent ones kept.
    #expect(budget.allows("first", now: 3_600_000))
    #expect(!budget.allows("x0", now: 3_600_000))
  }
}

/// `b` (decline for the evening) holds against a fresh key or a keyless connection from
/// the same address, and across a restart (issue 49, a weakness).
@Suite("Hub: blocks")
struct HubBlockTests {
  typealias H = HubHarness

  @Test("a block refuses the challenger's address and identity, after a restart too")
  func blockHolds() throws {
    var hub = HubHarness()
    let bob = HubNameLimitTests.key(2, at: "10.0.0.2")
    let mallory = HubNameLimitTests.key(5, at: "10.0.0.5")
    _ = HubNameLimitTests.arrive(&hub, bob, as: "Bob")
    _ = HubNameLimitTests.arrive(&hub, mallory, as: "Mallory")
    _ = hub.say(mallory, .challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
    let id = try #require(hub.state.challenges.pending.keys.first)
    _ = hub.say(bob, .decline(challenge: id, block: true, id: 3))
    _ = hub.settle()
    #expect(
      hub.state.lobby.blocks.map(\.of) == ["identity " + mallory.identity!, "address 10.0.0.5"])
    // The server restarts on what the journal kept.
    var restarted = HubHarness(lobby: hub.state.lobby)
    _ = restarted.handle(.start(releasing: []))
    _ = restarted.settle()
    let bobAgain = Peer(id: 12, address: "10.0.0.2", identity: bob.identity)
    _ = HubNameLimitTests.arrive(&restarted, bobAgain, as: "Bob")
    // A fresh key from Mallory's address, and a keyless connection there: refused.
    for (index, who) in [
      HubNameLimitTests.key(15, at: "10.0.0.5"), Peer(id: 16, address: "10.0.0.5"),
    ].enumerated() {
      _ = HubNameLimitTests.arrive(&restarted, who, as: "Other\(index)")
      let answer = restarted.say(
        who, .challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 4))
      #expect(answer.contains("count refused(busy)"), "\(answer)")
    }
  }

  @Test("a decline for the evening tells both sides so; a plain decline says nothing of it")
  func blockIsSaid() throws {
    for block in [true, false] {
      var hub = HubHarness()
      let bob = HubNameLimitTests.key(2, at: "10.0.0.2")
      let mallory = HubNameLimitTests.key(5, at: "10.0.0.5")
      _ = HubNameLimitTests.arrive(&hub, bob, as: "Bob")
      _ = HubNameLimitTests.arrive(&hub, mallory, as: "Mallory")
      _ = hub.say(
        mallory, .challenge(name: "Bob", bestOf: nil, ruleset: nil, fair: false, id: 2))
      _ = hub.settle()
      let id = try #require(hub.state.challenges.pending.keys.first)
      _ = hub.say(bob, .decline(challenge: id, block: block, id: 3))
      // A block is journaled first: what is said goes out once it is durable.
      var outputs = hub.raw(.timerFired(.flush))
      if hub.pendingCommit != nil {
        outputs += hub.raw(.committed(.success(()), onJournalThread: false))
      }
      let declines = outputs.flatMap { output -> [String] in
        guard case .deliver(let deliveries) = output else { return [] }
        return deliveries.compactMap { delivery in
          guard let payload = delivery.payload else { return nil }
          let text = String(decoding: payload, as: UTF8.self)
          return text.contains("\"declined\"") ? text : nil
        }
      }
      #expect(declines.count == 2, "\(declines)")
      for text in declines {
        #expect(text.contains("\"forTheEvening\":true") == block, "\(text)")
      }
    }
  }
}
