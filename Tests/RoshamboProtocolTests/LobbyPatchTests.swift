import ProcessFixtures
import PropertyBased
import RoshamboGame
import RoshamboProtocol
import Testing

/// `lobbyPatch`: a patch turns the old view into the new one, survives the wire, and a
/// follower applying patches over a lossy link ends with the server's view.
@Suite("Protocol: lobby patches", .cpuBound)
struct LobbyPatchTests {
  /// Draws from a stream of random numbers (0 once it runs out).
  struct Draws {
    var numbers: IndexingIterator<[Int]>
    mutating func next(_ bound: Int) -> Int { (numbers.next() ?? 0) % max(bound, 1) }
    mutating func chance(_ percent: Int) -> Bool { next(100) < percent }
  }

  static let names = ["Ann", "Bob", "Zoë", "a\"b", "Dee", "Eve", "Fay", "Gus", "🦎", "Hal"]

  static func room(_ draws: inout Draws) -> LobbyView.Room {
    let name = "r\(draws.next(12))"
    return LobbyView.Room(
      name: name,
      players: [names[draws.next(names.count)], draws.chance(20) ? nil : names[draws.next(10)]],
      scores: [draws.next(3), draws.next(3)], round: 1 + draws.next(5),
      phase: draws.chance(70) ? .choosing : .waiting, bestOf: 3, ruleset: .classic,
      fair: draws.chance(50), spectators: draws.next(3))
  }

  static func person(_ draws: inout Draws) -> LobbyView.Person {
    LobbyView.Person(
      name: names[draws.next(names.count)], status: LobbyView.Status.allCases[draws.next(4)],
      room: draws.chance(50) ? nil : "r\(draws.next(12))", takesChallenges: draws.chance(30))
  }

  /// The next view of a lobby: a few entries changed, added, removed or moved; now and
  /// then a small field, the leaderboard or the tournament.
  static func next(after view: LobbyView, _ draws: inout Draws) -> LobbyView {
    var view = view
    for _ in 0..<draws.next(4) {
      switch draws.next(9) {
      case 0 where !view.rooms.isEmpty: view.rooms[draws.next(view.rooms.count)] = room(&draws)
      case 1 where view.rooms.count < LobbyView.maxRooms:
        view.rooms.insert(room(&draws), at: draws.next(view.rooms.count + 1))
      case 2 where !view.rooms.isEmpty: view.rooms.remove(at: draws.next(view.rooms.count))
      case 3 where view.people.count < LobbyView.maxPeople:
        view.people.insert(person(&draws), at: draws.next(view.people.count + 1))
      case 4 where !view.people.isEmpty: view.people.remove(at: draws.next(view.people.count))
      case 5 where view.people.count > 1: view.people.swapAt(0, view.people.count - 1)
      case 6:
        view.leaders = (0..<draws.next(LobbyView.maxLeaders + 1)).map {
          LobbyView.Leader(name: names[$0 % names.count], won: draws.next(9), lost: draws.next(9))
        }
      case 7:
        view.tournament =
          draws.chance(30)
          ? nil
          : LobbyView.TournamentView(
            kind: .swiss, phase: .running, round: draws.next(4), rounds: 4,
            standings: [
              .init(name: "Ann", wins: draws.next(3), losses: 0, roundDifference: 0, alive: true)
            ],
            pairings: [],
            champion: nil)
        view.server = draws.chance(50) ? nil : "attic"
      default:
        view.peopleCount = view.people.count + draws.next(3)
        view.roomCount = view.rooms.count + draws.next(3)
      }
    }
    return view
  }

  @Test("a patch turns the view it was made from into the new one, through the wire")
  func patchRoundTrip() async throws {
    await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...120)) {
      numbers in
      var draws = Draws(numbers: numbers.makeIterator())
      var old = LobbyView(people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [])
      for _ in 0..<draws.next(6) { old = Self.next(after: old, &draws) }
      let new = Self.next(after: old, &draws)
      let patch = LobbyPatch.make(from: old, to: new)
      let sent = ServerMessage.lobbyPatch(
        seq: 2, base: 1, fingerprint: new.fingerprint, patch: patch)
      let read = try? ServerMessage.decode(sent.encoded())
      #expect(read == sent)
      #expect(old.applying(patch) == new)
      #expect(patch.isEmpty == (old == new))
    }
  }

  /// The server's side, as the hub does it: a view per step at a rising `seq`, a patch
  /// from the last to every follower in step, the whole view to one that asked.
  @Test(
    "a follower applying patches, whatever frames it lost, only ever shows the server's view and ends with it"
  )
  func lossyFollower() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...600)) {
      numbers in
      var draws = Draws(numbers: numbers.makeIterator())
      let lossPercent = draws.next(60)
      var views = [LobbyView(people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [])]
      var replica = LobbyReplica()
      var asked = false
      func deliver(_ message: ServerMessage, lossy: Bool) {
        if lossy, draws.chance(lossPercent) { return }
        // Through the wire, as a client reads it.
        guard let read = try? ServerMessage.decode(message.encoded()) else {
          Issue.record("a message did not survive the wire")
          return
        }
        switch replica.receive(read) {
        case .updated:
          #expect(replica.seq.map { views[$0] } == replica.view)
        case .resync:
          asked = true
        case .waiting:
          break
        }
      }
      deliver(.lobby(seq: 0, view: views[0]), lossy: true)
      let steps = 10 + draws.next(40)
      // Lossy steps, then enough clean ones for a follower to notice and catch up.
      for step in 1...(steps + LobbyReplica.patchesBeforeAskingAgain + 4) {
        let lossy = step <= steps
        if asked {
          asked = false
          deliver(.lobby(seq: views.count - 1, view: views[views.count - 1]), lossy: lossy)
        }
        let view = Self.next(after: views[views.count - 1], &draws)
        views.append(view)
        deliver(
          .lobbyPatch(
            seq: views.count - 1, base: views.count - 2, fingerprint: view.fingerprint,
            patch: LobbyPatch.make(from: views[views.count - 2], to: view)),
          lossy: lossy)
      }
      #expect(replica.seq == views.count - 1)
      #expect(replica.view == views[views.count - 1])
    }
  }

  @Test("a patch made from another view is not applied: the follower asks for the whole view")
  func wrongBase() {
    var draws = Draws(numbers: Array(0..<200).map { $0 * 7919 }.makeIterator())
    let first = LobbyView(
      people: [], peopleCount: 0, rooms: [Self.room(&draws)], roomCount: 1, leaders: [])
    var other = first
    other.rooms[0].scores = [2, 2]
    var next = other
    next.peopleCount = 5
    var replica = LobbyReplica()
    #expect(replica.receive(.lobby(seq: 1, view: first)) == .updated)
    // The right base and the right fingerprint, but made from a view the follower does
    // not have: only the fingerprint tells.
    let patch = LobbyPatch.make(from: other, to: next)
    #expect(
      replica.receive(.lobbyPatch(seq: 2, base: 1, fingerprint: next.fingerprint, patch: patch))
        == .resync)
    #expect(replica.view == first && replica.awaitingWholeView)
    #expect(
      replica.receive(.lobbyPatch(seq: 3, base: 2, fingerprint: next.fingerprint, patch: patch))
        == .waiting)
    #expect(replica.receive(.lobby(seq: 3, view: next)) == .updated)
    #expect(replica.view == next && !replica.awaitingWholeView)
  }

  @Test("a room changed is sent alone: the others are kept runs")
  func smallPatch() {
    var draws = Draws(numbers: Array(0..<2_000).map { $0 * 104_729 }.makeIterator())
    let rooms = (0..<40).map { index -> LobbyView.Room in
      var room = Self.room(&draws)
      room.name = "room-\(index)"
      return room
    }
    let old = LobbyView(people: [], peopleCount: 0, rooms: rooms, roomCount: 40, leaders: [])
    var new = old
    new.rooms[17].scores = [9, 9]
    let patch = LobbyPatch.make(from: old, to: new)
    #expect(patch.rooms?.pieces == [.kept(0..<17), .new(new.rooms[17]), .kept(18..<40)])
    #expect(patch.people == nil && patch.tournament == nil && patch.peopleCount == nil)
    let bytes = ServerMessage.lobbyPatch(
      seq: 2, base: 1, fingerprint: new.fingerprint, patch: patch
    ).encoded().count
    let whole = ServerMessage.lobby(seq: 2, view: new).encoded().count
    #expect(bytes * 10 < whole, "patch \(bytes) bytes, view \(whole)")
  }

  @Test("hello asks for patches on a lobby follower only; lobbyResync reads back")
  func messages() {
    let hello = ClientMessage.hello(
      protocol: 1, name: "Ann", role: .lobby, room: nil, resume: nil, patches: true, id: 1)
    #expect(ClientMessage.decode(hello.encoded()) == .success(hello))
    let plain = ClientMessage.hello(
      protocol: 1, name: "Ann", role: .lobby, room: nil, resume: nil, id: 1)
    #expect(!String(decoding: plain.encoded(), as: UTF8.self).contains("patches"))
    let player = Array(#"{"type":"hello","protocol":1,"name":"Ann","patches":true}"#.utf8)
    guard case .failure(let error) = ClientMessage.decode(player) else {
      Issue.record("a player's hello with patches was accepted")
      return
    }
    #expect(error.code == .badMessage)
    #expect(
      ClientMessage.decode(ClientMessage.lobbyResync(id: 4).encoded())
        == .success(.lobbyResync(id: 4)))
  }
}
