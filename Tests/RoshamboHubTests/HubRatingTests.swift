import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// Which matches the hub sends to the journal as rated: two different identities, from
/// two addresses (unless the host allows one), after a round (issue 49, ratings farmed
/// by sybils).
@Suite("Hub: rated matches")
struct HubRatingTests {
  typealias H = HubHarness

  /// A peer with an identity of its own (64 hex digits, so that it holds its name) at
  /// `address`, or keyless.
  static func peer(_ id: Int, at address: String, keyed: Bool = true) -> Peer {
    let hex = String(id, radix: 16)
    return Peer(
      id: id, address: address,
      identity: keyed ? String(repeating: "0", count: 64 - hex.count) + hex : nil)
  }

  /// The match Alice and Bob finish in room "den" (best of 1), as the commit carries it:
  /// Alice wins a round, or, with `playRound` false, Bob leaves before one.
  static func finished(
    _ alice: Peer, _ bob: Peer, playRound: Bool = true,
    configure: (inout HubConfiguration) -> Void = { _ in }
  ) -> FinishedMatch? {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1)), configure: configure)
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: false))
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: false))
    _ = hub.settle()
    if playRound {
      _ = hub.say(alice, .choose(round: 1, weapon: .rock, id: 2))
      _ = hub.say(bob, .choose(round: 1, weapon: .scissors, id: 2))
    } else {
      _ = hub.say(bob, .leave(id: 2))
    }
    var matches: [FinishedMatch] = []
    _ = hub.flush()
    while let commit = hub.pendingCommit {
      matches += commit.matches
      _ = hub.committed()
    }
    #expect(matches.count == 1)
    return matches.first
  }

  @Test("two identities from two addresses, after a round: rated")
  func rated() throws {
    let match = try #require(
      Self.finished(Self.peer(1, at: "10.0.0.1"), Self.peer(2, at: "10.0.0.2")))
    #expect(match.rated)
    #expect(match.winner == "Alice")
  }

  @Test("a keyless seat, one address, or a forfeit before a round: kept, not rated")
  func notRated() throws {
    let keyless = try #require(
      Self.finished(Self.peer(1, at: "10.0.0.1"), Self.peer(2, at: "10.0.0.2", keyed: false)))
    #expect(!keyless.rated)
    let oneAddress = try #require(
      Self.finished(Self.peer(1, at: "10.0.0.1"), Self.peer(2, at: "10.0.0.1")))
    #expect(!oneAddress.rated)
    let early = try #require(
      Self.finished(Self.peer(1, at: "10.0.0.1"), Self.peer(2, at: "10.0.0.2"), playRound: false))
    #expect(early.forfeit && early.winner == "Alice" && !early.rated)
  }

  @Test("--rated-same-address rates two identities behind one address")
  func sameAddressAllowed() throws {
    let match = try #require(
      Self.finished(Self.peer(1, at: "10.0.0.1"), Self.peer(2, at: "10.0.0.1")) {
        $0.ratingRule = RatingRule(ratesSameAddress: true)
      })
    #expect(match.rated)
  }

  @Test("a seat that dropped is judged by the address it was taken from")
  func droppedSeat() throws {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 1)))
    let alice = Self.peer(1, at: "10.0.0.1")
    let bob = Self.peer(2, at: "10.0.0.1")
    _ = hub.say(alice, H.hello("Alice", room: "den", fair: false))
    _ = hub.say(bob, H.hello("Bob", room: "den", fair: false))
    _ = hub.settle()
    _ = hub.say(alice, .choose(round: 1, weapon: .rock, id: 2))
    _ = hub.say(bob, .choose(round: 1, weapon: .rock, id: 2))
    _ = hub.settle()
    // Bob's link drops after a draw and his grace runs out: the forfeit comes from the
    // address his seat was taken from, Alice's own.
    _ = hub.handle(.closed(bob))
    _ = hub.settle()
    var matches: [FinishedMatch] = []
    _ = hub.fire(.grace(room: "den", seat: .two))
    _ = hub.flush()
    while let commit = hub.pendingCommit {
      matches += commit.matches
      _ = hub.committed()
    }
    #expect(matches.map(\.forfeit) == [true])
    #expect(matches.map(\.rated) == [false])
    #expect(hub.state.sessions.address(of: .two, in: "den") == "10.0.0.1")
  }
}

/// The rule itself, case by case.
@Suite("Rating rule")
struct RatingRuleTests {
  let match = FinishedMatch(
    room: "den", finishedAt: 0, ruleset: "classic", bestOf: 1, players: ["Main", "Alt"],
    scores: [1, 0], winner: "Main", forfeit: false, fair: false, rated: false)

  func holder(_ identity: String?, _ address: String?) -> RatingRule.Holder {
    RatingRule.Holder(identity: identity, address: address)
  }

  @Test("each reason a match rates nothing, and the one way it is rated")
  func verdicts() {
    let rule = RatingRule()
    #expect(rule.verdict(for: match, holders: [holder("a", "1"), holder("b", "2")]) == .rated)
    #expect(
      rule.verdict(for: match, holders: [holder("a", "1"), holder(nil, "2")])
        == .unrated(.keyless))
    #expect(
      rule.verdict(for: match, holders: [holder("a", "1"), holder("a", "2")])
        == .unrated(.oneIdentity))
    #expect(
      rule.verdict(for: match, holders: [holder("a", "1"), holder("b", "1")])
        == .unrated(.oneAddress))
    #expect(
      RatingRule(ratesSameAddress: true).verdict(
        for: match, holders: [holder("a", "1"), holder("b", "1")]) == .rated)
    var forfeit = match
    forfeit.scores = [0, 0]
    forfeit.rounds = []
    forfeit.forfeit = true
    #expect(
      rule.verdict(for: forfeit, holders: [holder("a", "1"), holder("b", "2")])
        == .unrated(.noRound))
    var lost = match
    lost.winner = "?"
    #expect(
      rule.verdict(for: lost, holders: [holder("a", "1"), holder("b", "2")])
        == .unrated(.noWinner))
    // Unknown addresses are not one address.
    #expect(rule.verdict(for: match, holders: [holder("a", nil), holder("b", nil)]) == .rated)
  }

  @Test("a settled player moves at most 5 points against a provisional one; ratings unrated stay")
  func provisionalBound() {
    let settled = Glicko2Rating(rating: 1800, deviation: 60, volatility: 0.06)
    var rated = match
    rated.rated = true
    // The settled player loses to a newcomer: Glicko-2 alone takes about 11 points.
    var upset = rated
    upset.winner = "Alt"
    let free = Glicko2.standard.afterMatch(winner: .unrated, loser: settled).loser
    #expect(settled.rating - free.rating > 10)
    let after = Glicko2.standard.ratings(after: upset, before: [settled, .unrated])
    #expect(after[0].rating == 1795)
    // The newcomer's own rating moves as Glicko-2 says.
    #expect(after[1] == Glicko2.standard.afterMatch(winner: .unrated, loser: settled).winner)
    // Two settled players: no bound.
    let other = Glicko2Rating(rating: 1800, deviation: 60, volatility: 0.06)
    let even = Glicko2.standard.ratings(after: upset, before: [settled, other])
    #expect(settled.rating - even[0].rating > 5)
    // Not rated: nothing moves.
    #expect(
      Glicko2.standard.ratings(after: match, before: [settled, .unrated]) == [settled, .unrated])
  }
}
