import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// How a tournament's end reaches those still in its rooms: the players of every match
/// of the last round (whichever ended last) and one with a bye are told the champion,
/// and one watching a finished match keeps its result once its players move on.
@Suite("Hub: the tournament's end, in its rooms")
struct HubTournamentEndTests {
  typealias H = HubHarness
  static let names = ["Ann", "Ben", "Cat", "Dan"]

  /// Round robin of `count` entrants (best of 1), entries closed, round 1 seated.
  static func started(
    _ count: Int, configure: (inout HubConfiguration) -> Void = { _ in }
  ) -> (HubHarness, [String: Peer]) {
    var hub = HubHarness.roundRobin(configure: configure)
    var peers: [String: Peer] = [:]
    for (index, name) in names.prefix(count).enumerated() {
      let peer = Peer(id: index + 1, identity: "key-\(name)")
      peers[name] = peer
      _ = hub.say(peer, H.hello(name, role: .lobby, challenges: true, fair: nil))
      _ = hub.say(peer, .enter(id: 2))
    }
    _ = hub.settle()
    _ = hub.fire(.tournament)
    _ = hub.settle()
    return (hub, peers)
  }

  /// The current round's matches, in pairing order: room and its two players.
  static func matches(_ hub: HubHarness) -> [(room: String, players: [String])] {
    (hub.state.lobby.tournament?.rounds.last ?? []).compactMap { pairing in
      pairing.room.map { ($0, pairing.players) }
    }
  }

  /// Seat 1 of `match` wins it with rock against scissors; the outputs of the last pick.
  static func play(
    _ match: (room: String, players: [String]), _ hub: inout HubHarness, _ peers: [String: Peer]
  ) -> [HubOutput] {
    _ = hub.say(peers[match.players[0]]!, .choose(round: 1, weapon: .rock, id: 3))
    _ = hub.settle()
    _ = hub.say(peers[match.players[1]]!, .choose(round: 1, weapon: .scissors, id: 3))
    return hub.raw(.timerFired(.flush)) + hub.raw(.committed(.success(()), onJournalThread: false))
  }

  /// The tournament stages of the states `peer` was sent in `outputs`.
  static func stages(to peer: Peer, in outputs: [HubOutput]) -> [RoomView.TournamentStage?] {
    H.messages(to: peer, in: outputs).compactMap { message in
      guard case .state(_, let view) = message else { return nil }
      return view.tournament
    }
  }

  @Test("the players of the last round's match that ended first are told the champion")
  func championToldInEveryFinalRoom() throws {
    var (hub, peers) = Self.started(4)
    // Rounds 1 and 2, then round 3 (the last) up to its first match's end.
    for _ in 1...2 {
      for match in Self.matches(hub) { _ = Self.play(match, &hub, peers) }
      _ = hub.fire(.tournament)
      _ = hub.settle()
    }
    let final = Self.matches(hub)
    try #require(final.count == 2 && hub.state.lobby.tournament?.rounds.count == 3)
    let first = Self.play(final[0], &hub, peers)
    #expect(Self.stages(to: peers[final[0].players[0]]!, in: first).last??.champion == nil)
    // The last match ends: the tournament is over, and the first match's players hear it
    // in a new state of their room (a higher seq), as the last match's players do.
    let last = Self.play(final[1], &hub, peers)
    let champion = try #require(hub.state.lobby.tournament?.champion)
    for name in final[0].players + final[1].players {
      #expect(
        Self.stages(to: peers[name]!, in: last).last??.champion == champion,
        "\(name) is told the champion")
    }
    let seqs = H.messages(to: peers[final[0].players[0]]!, in: first + last).compactMap {
      message -> Int? in
      guard case .state(let seq, _) = message else { return nil }
      return seq
    }
    #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count)
  }

  @Test("one with a bye in the last round is told the champion in the room they were in")
  func championToldToTheBye() throws {
    var (hub, peers) = Self.started(3)
    for _ in 1...2 {
      for match in Self.matches(hub) { _ = Self.play(match, &hub, peers) }
      _ = hub.fire(.tournament)
      _ = hub.settle()
    }
    let final = try #require(Self.matches(hub).first)
    let bye = try #require(Self.names.prefix(3).first { !final.players.contains($0) })
    try #require(hub.state.sessions[peers[bye]!.id]?.room != nil)
    let last = Self.play(final, &hub, peers)
    let champion = try #require(hub.state.lobby.tournament?.champion)
    #expect(Self.stages(to: peers[bye]!, in: last).last??.champion == champion)
  }

  @Test("one watching a finished match still sees its result once the next round is paired")
  func spectatorKeepsTheResult() throws {
    var (hub, peers) = Self.started(4)
    let watched = Self.matches(hub)[0]
    let watcher = Peer(id: 9, identity: nil)
    _ = hub.say(watcher, H.hello("Eve", role: .spectator, room: watched.room))
    _ = hub.settle()
    for match in Self.matches(hub) { _ = Self.play(match, &hub, peers) }
    hub.now = max(hub.now, try #require(hub.state.timers[.tournament]?.at))
    let paired =
      hub.raw(.timerFired(.tournament)) + hub.raw(.timerFired(.flush))
      + hub.raw(.committed(.success(()), onJournalThread: false))
    let views = H.messages(to: watcher, in: paired).compactMap { message -> RoomView? in
      guard case .state(_, let view) = message else { return nil }
      return view
    }
    let last = try #require(views.last)
    #expect(last.phase == .over)
    #expect(last.players.map(\.name) == watched.players)
    #expect(last.winner == .one)
    #expect(last.tournament?.round == 2)
  }
}
