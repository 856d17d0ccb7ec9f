import ProcessFixtures
import PropertyBased
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The core under random sequences of inputs (people joining by quick match, picking,
/// leaving, dropping, timers firing, commits that succeed or fail): what must hold after
/// every input.
@Suite("Hub: the core's invariants under random inputs", .cpuBound)
struct HubPropertyTests {
  enum Step: CaseIterable {
    case join, pick, leave, drop, fire, commitOK, commitFails, reload, probe
    case follow, look, watch, resume, unfollow
  }

  /// Names drawn from a few, so that several connections share one (in any case).
  static let names = ["Ann", "ann", "Ben", "Cy", "BEN"]

  @Test(
    "at most one quick-match player waits; nothing is delivered before its commit; no unresolved weapon leaves; every waiting seat is in grace; the indexes are what a scan finds"
  )
  func invariants() async {
    await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
      var random = SplitMix(seed: UInt64(seed))
      var hub = HubHarness(lobby: LobbyState(defaults: .init(bestOf: 3)))
      var durable = LobbyState(defaults: .init(bestOf: 3))
      var nextID = 1
      var reloadDue = false
      /// Resume tokens of seats whose connection dropped (some taken back, some not).
      var dropped: [String] = []
      func name() -> String { Self.names[Int(random.next() % UInt64(Self.names.count))] }
      for _ in 0..<120 {
        var inputs: [HubInput] = []
        let step = Step.allCases[Int(random.next() % UInt64(Step.allCases.count))]
        switch step {
        case .join:
          let peer = Peer(id: nextID, identity: "key-\(nextID)")
          nextID += 1
          inputs = [.received(HubHarness.hello("P\(peer.id)", fair: nil), from: peer)]
        case .pick:
          guard let member = hub.state.sessions.members.values.randomElement(using: &random),
            let room = hub.state.lobby.rooms[member.room]
          else { continue }
          let weapon = Weapon.allCases[Int(random.next() % 3)]
          inputs = [
            .received(.choose(round: room.round, weapon: weapon, id: nil), from: member.link)
          ]
        case .leave:
          guard let member = hub.state.sessions.members.values.randomElement(using: &random)
          else { continue }
          inputs = [.received(.leave(id: nil), from: member.link), .closed(member.link)]
        case .drop:
          // The connection goes without a word: the seat waits out its grace.
          guard let member = hub.state.sessions.members.values.randomElement(using: &random)
          else { continue }
          if let token = member.resumeToken { dropped.append(token) }
          inputs = [.closed(member.link)]
        case .follow, .look:
          let peer = Peer(id: nextID, identity: random.next() % 3 == 0 ? nil : "key-\(nextID % 7)")
          nextID += 1
          inputs = [
            .received(
              HubHarness.hello(name(), role: .lobby, challenges: step == .follow), from: peer)
          ]
        case .watch:
          guard let room = hub.state.lobby.rooms.keys.randomElement(using: &random) else {
            continue
          }
          let peer = Peer(id: nextID, identity: nil)
          nextID += 1
          inputs = [.received(HubHarness.hello(name(), role: .spectator, room: room), from: peer)]
        case .resume:
          guard !dropped.isEmpty else { continue }
          let token = dropped.remove(at: Int(random.next() % UInt64(dropped.count)))
          let peer = Peer(id: nextID, identity: nil)
          nextID += 1
          inputs = [.received(HubHarness.hello("", resume: token), from: peer)]
        case .unfollow:
          guard let follower = hub.state.sessions.followers.values.randomElement(using: &random)
          else { continue }
          inputs = [.closed(follower.link)]
        case .fire:
          guard let timer = hub.state.timers.keys.randomElement(using: &random) else { continue }
          hub.now = max(hub.now, hub.state.timers[timer]!.at)
          inputs = [.timerFired(timer)]
        case .commitOK:
          guard let commit = hub.pendingCommit else { continue }
          for action in commit.actions { _ = durable.apply(action) }
          hub.pendingCommit = nil
          inputs = [.committed(.success(()), onJournalThread: random.next() % 2 == 0)]
        case .commitFails:
          guard hub.pendingCommit != nil else { continue }
          hub.pendingCommit = nil
          reloadDue = true
          inputs = [.committed(.failure(JournalFailure("disk full")), onJournalThread: false)]
        case .reload:
          guard reloadDue else { continue }
          reloadDue = false
          inputs = [.reloaded(.success((durable, 0)))]
        case .probe:
          inputs = [.probed(succeeded: true)]
        }
        for input in inputs {
          let outputs = hub.raw(input)
          for case .deliver(let deliveries) in outputs {
            for delivery in deliveries {
              guard let payload = delivery.payload,
                case .state(let seq, let view) = try? ServerMessage.decode(payload)
              else { continue }
              // Nothing of a room goes out before the commit that made it.
              #expect(
                (durable.rooms[view.room]?.version ?? Int.max) >= seq
                  || durable.rooms[view.room] == nil && hub.state.lobby.rooms[view.room] == nil)
              // No one sees another's pick before the round resolves.
              for player in view.players where player.seat != view.you {
                #expect(player.weapon == nil)
              }
            }
          }
          #expect(
            hub.state.lobby.rooms.values.count {
              LobbyState.isQuickMatchRoom($0.name) && $0.hasPlayerWaiting
            } <= 1)
          // A seat that waits for its player (away, not given up) has its grace running,
          // and the rooms looked at for such seats are exactly those with grace timers.
          for (name, room) in hub.state.lobby.rooms {
            for (seat, held) in room.seats where !held.connected && !held.hasLeft {
              #expect(hub.state.timers[.grace(room: name, seat: seat)] != nil)
            }
          }
          // The indexes (names, resume tokens, rooms in grace) are what a scan finds.
          #expect(hub.state.indexMismatch == nil)
        }
      }
    }
  }
}

/// A seeded generator for the sequences above.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
