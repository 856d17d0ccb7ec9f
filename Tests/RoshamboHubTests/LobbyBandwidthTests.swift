import ProcessFixtures
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// What following the lobby costs a follower during a busy tournament, whole views
/// against patches, in one run of the core (docs/PERFORMANCE.md, "Lobby patches").
@Suite("Hub: the lobby's bytes per follower", .cpuBound)
struct LobbyBandwidthTests {
  /// Fifty entrants of a Swiss tournament (25 matches a round, best of 5, each pick
  /// 0.2 to 3 s after the state asking for it) and 50 followers of the lobby, half of
  /// them taking patches; 120 s of the tournament, by 50 ms steps.
  @Test("during a 50-player tournament a patch follower gets at least 10× fewer bytes")
  func tournamentBandwidth() throws {
    var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 5))) { configuration in
      configuration.tournament = TournamentPlan(
        kind: .swiss, settings: .init(bestOf: 5), players: 50, startMillis: 600_000,
        pauseMillis: 3_000)
    }
    var random = SplitMix64(seed: 41)
    var outputs: [HubOutput] = []
    func step(_ input: HubInput) {
      outputs += hub.raw(input)
      while hub.pendingCommit != nil {
        hub.pendingCommit = nil
        outputs += hub.raw(.committed(.success(()), onJournalThread: false))
      }
    }
    step(.start(releasing: []))
    let entrants = (1...50).map { Peer(id: $0, identity: "key-\($0)") }
    let wholeFollowers = (101...125).map { Peer(id: $0, identity: "look-\($0)") }
    let patchFollowers = (126...150).map { Peer(id: $0, identity: "look-\($0)") }
    for peer in wholeFollowers + patchFollowers {
      step(
        .received(
          .hello(
            protocol: 1, name: "watcher\(peer.id)", role: .lobby, room: nil, resume: nil,
            patches: peer.id > 125, id: 1), from: peer))
    }
    for peer in entrants {
      step(
        .received(
          .hello(
            protocol: 1, name: "player\(peer.id)", role: .lobby, room: nil, resume: nil,
            challenges: true, id: 1), from: peer))
      step(.received(.enter(id: 2), from: peer))
    }
    step(.timerFired(.flush))

    // Picks due, by connection: (when, room round).
    var picks: [Int: (at: Int64, round: Int)] = [:]
    var bytes: [Int: Int] = [:]
    var replicas: [Int: LobbyReplica] = [:]
    var measuring = false
    var liveMatches: [Int] = []
    let seconds = 120
    let end = hub.now + Int64(seconds) * 1_000 + 60_000
    var measuredFrom: Int64 = 0
    while hub.now < end {
      hub.now += 50
      for (timer, entry) in hub.state.timers.sorted(by: { $0.value.at < $1.value.at })
      where entry.at <= hub.now && hub.state.timers[timer] != nil {
        step(.timerFired(timer))
      }
      for (id, pick) in picks.sorted(by: { $0.key < $1.key }) where pick.at <= hub.now {
        picks[id] = nil
        let weapon = [Weapon.rock, .paper, .scissors][Int(random.next() % 3)]
        step(.received(.choose(round: pick.round, weapon: weapon, id: nil), from: entrants[id - 1]))
      }
      step(.timerFired(.flush))
      for case .deliver(let deliveries) in outputs {
        for delivery in deliveries {
          guard let payload = delivery.payload else { continue }
          for id in delivery.to {
            if id > 100 {
              if measuring { bytes[id, default: 0] += payload.count + 4 }
              if id > 125 {
                let message = try ServerMessage.decode(payload)
                if replicas[id, default: LobbyReplica()].receive(message) == .resync {
                  step(.received(.lobbyResync(id: nil), from: Peer(id: id, identity: "look-\(id)")))
                }
              }
            } else if case .state(_, let view) = try ServerMessage.decode(payload),
              view.phase == .choosing, let you = view.you, view.player(you)?.weapon == nil
            {
              picks[id] = (hub.now + 200 + Int64(random.next() % 2_800), view.round)
            }
          }
        }
      }
      outputs.removeAll()
      let playing = hub.state.lobby.rooms.values.filter { $0.phase == .choosing }.count
      if !measuring, playing == 25 {
        measuring = true
        measuredFrom = hub.now
      }
      if measuring { liveMatches.append(playing) }
      if measuring, hub.now - measuredFrom >= Int64(seconds) * 1_000 { break }
    }
    #expect(measuring, "the tournament never had 25 live matches")
    let elapsed = Double(hub.now - measuredFrom) / 1_000
    let whole = Double(wholeFollowers.map { bytes[$0.id, default: 0] }.reduce(0, +)) / 25 / elapsed
    let patched =
      Double(patchFollowers.map { bytes[$0.id, default: 0] }.reduce(0, +)) / 25 / elapsed
    let meanLive = Double(liveMatches.reduce(0, +)) / Double(max(liveMatches.count, 1))
    print(
      "lobby bytes per follower per second over \(Int(elapsed)) s, \(meanLive) live matches on "
        + "average: whole views \(Int(whole)), patches \(Int(patched)), "
        + "ratio \(whole / max(patched, 1))")
    // Every patch follower ends with the view sent to all.
    for peer in patchFollowers {
      #expect(replicas[peer.id]?.view == hub.state.feed.sent)
    }
    #expect(whole >= 10 * patched)
  }
}
