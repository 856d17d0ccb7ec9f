import Foundation
import Testing

@testable import RoshamboOperations
@testable import RoshamboServer

/// What the server tells Agones (``FleetListing``), alone: which calls follow from what
/// the game holds and what the GameServer shows, and when.
@Suite("Agones: the Counters and the rooms List")
struct FleetListingTests {
  func report(
    players: Int = 0, rooms: Int = 0, waiting: Int = 0, named: Set<String> = []
  ) -> FleetListing.Report {
    FleetListing.Report(players: players, rooms: rooms, waiting: waiting, namedRooms: named)
  }

  /// Makes `calls` succeed and returns them.
  func succeed(_ listing: inout FleetListing, _ calls: [FleetListing.Call]) -> [FleetListing.Call] {
    for call in calls { listing.succeeded(call) }
    return calls
  }

  @Test("counts are set once each when they change; a failed call is made again")
  func counters() {
    var listing = FleetListing()
    // `waiting` waits for the watch to show the GameServer's (the allocator counts it).
    let first = listing.calls(for: report(), now: 0)
    #expect(first == [.setCounter("players", 0), .setCounter("rooms", 0)])
    _ = succeed(&listing, first)
    #expect(listing.calls(for: report(), now: 2_000) == [])
    // Players 2 in one room: those two change; the call for rooms fails.
    let second = listing.calls(for: report(players: 2, rooms: 1), now: 4_000)
    #expect(second == [.setCounter("players", 2), .setCounter("rooms", 1)])
    listing.succeeded(second[0])
    #expect(
      listing.calls(for: report(players: 2, rooms: 1), now: 6_000) == [.setCounter("rooms", 1)])
  }

  @Test("a count the allocator changed is left while a player may be on the way, then set")
  func countGrace() {
    var listing = FleetListing()
    _ = succeed(&listing, listing.calls(for: report(), now: 0))
    // The allocator counted a quick-match player on the way: waiting 1 on the GameServer.
    listing.observe(counts: ["players": 0, "rooms": 0, "waiting": 1], listed: [])
    #expect(listing.calls(for: report(), now: 1_000) == [])
    #expect(listing.calls(for: report(), now: 1_000 + FleetListing.countGrace - 1) == [])
    // The player arrived in time: the game's count is the GameServer's; not told again.
    listing.observe(counts: ["players": 0, "rooms": 0, "waiting": 1], listed: [])
    #expect(
      succeed(&listing, listing.calls(for: report(players: 1, rooms: 1, waiting: 1), now: 12_000))
        == [.setCounter("players", 1), .setCounter("rooms", 1)])
    // Paired: the game's count moved from what the GameServer showed, and is told now.
    #expect(
      listing.calls(for: report(players: 2, rooms: 1, waiting: 0), now: 13_000)
        == [.setCounter("players", 2), .setCounter("waiting", 0)])
    // Another never arrives: after the grace the game's count is set.
    var other = FleetListing()
    _ = succeed(&other, other.calls(for: report(), now: 0))
    other.observe(counts: ["players": 0, "rooms": 0, "waiting": 1], listed: [])
    #expect(other.calls(for: report(), now: 1_000) == [])
    #expect(
      other.calls(for: report(), now: 1_000 + FleetListing.countGrace) == [
        .setCounter("waiting", 0)
      ])
  }

  @Test("a quick-match player the allocator counted before this server's first round keeps it")
  func countedBeforeTheFirstRound() {
    var listing = FleetListing()
    // The first round comes before the watch has shown anything: `waiting` is not set,
    // for the allocator may already have counted someone here.
    #expect(
      listing.calls(for: report(), now: 0) == [.setCounter("players", 0), .setCounter("rooms", 0)])
    listing.succeeded(.setCounter("players", 0))
    listing.succeeded(.setCounter("rooms", 0))
    listing.observe(counts: ["players": 0, "rooms": 0, "waiting": 1], listed: [])
    #expect(listing.calls(for: report(), now: 2_000) == [])
    // The player arrives and waits: the counts agree, and nothing is set.
    #expect(
      listing.calls(for: report(players: 1, rooms: 1, waiting: 1), now: 3_000)
        == [.setCounter("players", 1), .setCounter("rooms", 1)])
    // A watch that never shows `waiting`: set a grace after the first round.
    var unwatched = FleetListing()
    _ = succeed(&unwatched, unwatched.calls(for: report(), now: 0))
    #expect(unwatched.calls(for: report(), now: FleetListing.countGrace - 1) == [])
    #expect(
      unwatched.calls(for: report(), now: FleetListing.countGrace) == [.setCounter("waiting", 0)])
  }

  @Test("named rooms are added; a name the allocator added stays for the grace, then goes")
  func rooms() {
    var listing = FleetListing()
    _ = succeed(&listing, listing.calls(for: report(), now: 0))
    let added = listing.calls(for: report(rooms: 1, named: ["den"]), now: 1_000)
    #expect(added == [.setCounter("rooms", 1), .addToList("den")])
    _ = succeed(&listing, added)
    #expect(listing.listed == ["den"])
    // The allocator adds "final" for a player on the way; the watch shows it.
    listing.observe(counts: ["players": 0, "rooms": 1, "waiting": 0], listed: ["den", "final"])
    #expect(listing.calls(for: report(rooms: 1, named: ["den"]), now: 2_000) == [])
    // The player arrives within the grace: the name is a room, nothing to do.
    #expect(
      listing.calls(for: report(rooms: 2, named: ["den", "final"]), now: 30_000)
        == [.setCounter("rooms", 2)])
    listing.succeeded(.setCounter("rooms", 2))
    // "den" ends; its name goes only once it has not been a room for the grace.
    #expect(
      listing.calls(for: report(rooms: 1, named: ["final"]), now: 40_000) == [
        .setCounter("rooms", 1)
      ])
    listing.succeeded(.setCounter("rooms", 1))
    #expect(
      listing.calls(
        for: report(rooms: 1, named: ["final"]), now: 40_000 + FleetListing.arrivalGrace - 1)
        == [])
    let removed = listing.calls(
      for: report(rooms: 1, named: ["final"]), now: 40_000 + FleetListing.arrivalGrace)
    #expect(removed == [.removeFromList("den")])
    _ = succeed(&listing, removed)
    #expect(listing.listed == ["final"])
  }

  @Test("the List is never filled past Agones' 1,000 values")
  func capacity() {
    var listing = FleetListing()
    let many = Set((0..<1_200).map { "room-\($0)" })
    var now: Int64 = 0
    while listing.listed.count < 1_000, now < 200_000 {
      _ = succeed(&listing, listing.calls(for: report(rooms: 1_200, named: many), now: now))
      #expect(listing.listed.count <= 1_000)
      now += 2_000
    }
    #expect(listing.listed.count == 1_000)
    #expect(listing.calls(for: report(rooms: 1_200, named: many), now: now).isEmpty)
  }

  @Test("a flood of rooms cannot hold a round up: a bounded number of List calls, the newest first")
  func flood() {
    func listCalls(_ calls: [FleetListing.Call]) -> [FleetListing.Call] {
      calls.filter { if case .setCounter = $0 { false } else { true } }
    }
    var listing = FleetListing()
    _ = succeed(&listing, listing.calls(for: report(), now: 0))
    // 900 rooms at once: one round makes no more than its share of List calls (each an
    // HTTP call to the SDK server, the next health ping waiting behind them).
    let flood = Set((0..<900).map { "flood-\($0)" })
    let first = listing.calls(for: report(rooms: 900, named: flood), now: 2_000)
    #expect(first.first == .setCounter("rooms", 900), "the counters come first")
    #expect(listCalls(first).count == FleetListing.maxListCallsPerRound)
    _ = succeed(&listing, first)
    // "zoo" opens while most of the flood waits: the next round lists it first.
    let named = flood.union(["zoo"])
    let second = listing.calls(for: report(rooms: 901, named: named), now: 4_000)
    #expect(listCalls(second).first == .addToList("zoo"))
    #expect(listCalls(second).count == FleetListing.maxListCallsPerRound)
    _ = succeed(&listing, second)
    // The rest follow, round by round, every name once.
    var now: Int64 = 4_000
    var added = listing.listed.count
    while listing.listed.count < named.count, now < 200_000 {
      now += 2_000
      let calls = listCalls(listing.calls(for: report(rooms: 901, named: named), now: now))
      #expect(calls.count <= FleetListing.maxListCallsPerRound)
      #expect(calls.allSatisfy { if case .addToList = $0 { true } else { false } })
      _ = succeed(&listing, calls)
      #expect(listing.listed.count > added, "a round added nothing")
      added = listing.listed.count
    }
    #expect(listing.listed == named)
  }

  @Test("a watch line is read for its state, counts and lists; anything else is no GameServer")
  func watchLines() {
    let line = #"""
      {"result":{"object_meta":{"name":"gs-1","labels":{"agones.dev/fleet":"roshambo"}},"status":{"state":"Allocated","address":"10.0.0.7","counters":{"waiting":{"count":"1","capacity":"1000"},"players":{"count":4}},"lists":{"rooms":{"capacity":"1000","values":["den","final"]}}}}}
      """#
    #expect(
      WatchedGameServer(line: Array(line.utf8))
        == WatchedGameServer(
          state: "Allocated", counts: ["waiting": 1, "players": 4],
          lists: ["rooms": ["den", "final"]]))
    for bad in [
      "", "{}", "[1]", #"{"error":{"code":14,"message":"unavailable"}}"#,
      #"{"result":{"status":{}}}"#,
      #"{"result":{"status":{"state":3}}}"#, "not json",
    ] {
      #expect(WatchedGameServer(line: Array(bad.utf8)) == nil, "\(bad)")
    }
    let huge =
      #"{"result":{"status":{"state":"Ready","x":""# + String(repeating: "a", count: 1 << 20)
      + #""}}}"#
    #expect(WatchedGameServer(line: Array(huge.utf8)) == nil)
  }
}
