import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

/// A digest-shaped string for tests of the rules (the rules never hash; the server
/// decides whether a reveal matches and says so in the action).
private func digest(_ n: Int) -> String {
  let hex = String(n, radix: 16)
  return String(repeating: "0", count: 64 - hex.count) + hex
}

private func fairRoom(roundMillis: Int64 = 0) -> RoomState {
  var room = RoomState(
    name: "f", settings: .init(roundMillis: roundMillis, fair: true, revealMillis: 5_000))
  room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
  room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
  return room
}

/// Turns random numbers into fair-room actions: commits, reveals that match or not,
/// choose (refused), deadlines, drops, rematches.
private struct FairScript {
  var clock: Int64 = 1_000

  mutating func action(from r: Int, in room: RoomState) -> RoomAction {
    clock += Int64((r >> 8) % 3_000)
    let seat: Seat = (r >> 4) % 2 == 0 ? .one : .two
    let weapon: Weapon = [.rock, .paper, .scissors][(r >> 12) % 3]
    let round = (r >> 16) % 8 == 0 ? room.round + 1 : room.round
    switch r % 10 {
    case 0, 1, 2: return .committed(seat: seat, round: round, digest: digest(r), at: clock)
    case 3, 4, 5:
      return .revealed(
        seat: seat, round: round, weapon: weapon, nonce: digest(r >> 3),
        matches: (r >> 20) % 4 != 0,
        at: clock)
    case 6: return .chose(seat: seat, round: round, weapon: weapon, at: clock)
    case 7: return .deadlinePassed(round: room.round, at: clock + Int64((r >> 20) % 10_000))
    case 8:
      return room.seats[seat]?.connected == false
        ? .reconnected(seat: seat, at: clock) : .disconnected(seat: seat, at: clock)
    default: return .rematchRequested(seat: seat, at: clock)
    }
  }
}

@Suite("Fair rooms: commit–reveal rules", .cpuBound)
struct FairRoomTests {
  @Test("a round: commit, commit (reveal deadline set), reveal, reveal resolves with proofs")
  func round() {
    var room = fairRoom()
    #expect(room.apply(.committed(seat: .one, round: 1, digest: digest(1), at: 10)) == nil)
    #expect(!room.isRevealing)
    #expect(room.view(for: .two).player(.one)?.commitment == nil, "not shown before both")
    #expect(room.view(for: .one).player(.one)?.commitment == digest(1), "shown to its seat")
    #expect(room.view(for: .two).player(.one)?.chosen == true)
    #expect(room.apply(.committed(seat: .two, round: 1, digest: digest(2), at: 20)) == nil)
    #expect(room.isRevealing)
    #expect(room.deadline == Int64(5_020))
    #expect(room.view(for: .two).player(.one)?.commitment == digest(1))
    #expect(room.view(for: nil).player(.two)?.commitment == digest(2))
    #expect(
      room.apply(
        .revealed(seat: .one, round: 1, weapon: .rock, nonce: digest(11), matches: true, at: 30))
        == nil)
    #expect(room.view(for: .two).player(.one)?.weapon == nil, "a reveal is not shown early")
    #expect(room.view(for: .two).player(.one)?.revealed == true)
    #expect(
      room.apply(
        .revealed(seat: .two, round: 1, weapon: .paper, nonce: digest(12), matches: true, at: 40))
        == nil)
    let result = room.history.last!
    #expect(result.weapons == [.rock, .paper])
    #expect(result.winner == .two)
    #expect(result.commitments == [digest(1), digest(2)])
    #expect(result.nonces == [digest(11), digest(12)])
    #expect(room.round == 2)
    #expect(room.seats.values.allSatisfy { $0.commitment == nil && $0.pick == nil })
    #expect(room.deadline == nil)
  }

  @Test("what a fair room refuses, and what an ordinary one refuses")
  func refusals() {
    var room = fairRoom()
    #expect(
      room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 1))
        == .fairRoom(
          "This room is fair: commit to a pick first, then reveal it once both have committed."))
    #expect(
      room.apply(
        .revealed(seat: .one, round: 1, weapon: .rock, nonce: digest(1), matches: true, at: 1))
        == .notPlaying("Commit first; reveal once both commitments are in."))
    room.apply(.committed(seat: .one, round: 1, digest: digest(1), at: 1))
    #expect(
      room.apply(.committed(seat: .one, round: 1, digest: digest(3), at: 1)) == .alreadyChosen)
    #expect(
      room.apply(.committed(seat: .two, round: 2, digest: digest(3), at: 1))
        == .wrongRound(current: 1))
    #expect(
      room.apply(.committed(seat: .two, round: 1, digest: "ABC", at: 1))
        == .fairRoom("A commitment is a SHA-256 digest: 64 lower-case hex digits."))
    #expect(
      room.apply(
        .revealed(seat: .one, round: 1, weapon: .rock, nonce: digest(1), matches: true, at: 1))
        == .notPlaying("Reveal once your opponent has committed too."))
    var ordinary = RoomState(name: "o")
    ordinary.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    ordinary.apply(.playerJoined(name: "Bob", token: "b", at: 0))
    #expect(ordinary.apply(.committed(seat: .one, round: 1, digest: digest(1), at: 1)) == .notFair)
  }

  @Test("a reveal that does not match loses the round; two that fail draw")
  func badReveals() {
    var room = fairRoom()
    room.apply(.committed(seat: .one, round: 1, digest: digest(1), at: 1))
    room.apply(.committed(seat: .two, round: 1, digest: digest(2), at: 1))
    room.apply(
      .revealed(seat: .one, round: 1, weapon: .rock, nonce: digest(5), matches: false, at: 2))
    room.apply(
      .revealed(seat: .two, round: 1, weapon: .rock, nonce: digest(6), matches: true, at: 3))
    #expect(room.history.last?.winner == .two)
    #expect(room.history.last?.weapons == [nil, .rock])
    #expect(room.history.last?.nonces == [nil, digest(6)])
    room.apply(.committed(seat: .one, round: 2, digest: digest(1), at: 4))
    room.apply(.committed(seat: .two, round: 2, digest: digest(2), at: 4))
    room.apply(
      .revealed(seat: .one, round: 2, weapon: .rock, nonce: digest(5), matches: false, at: 5))
    room.apply(
      .revealed(seat: .two, round: 2, weapon: .rock, nonce: digest(6), matches: false, at: 5))
    #expect(room.history.last?.winner == nil)
    #expect(room.history.last?.weapons == [nil, nil])
  }

  @Test("deadlines: no reveal in time loses; no commitment in time loses, weapons unknown")
  func deadlines() {
    var room = fairRoom(roundMillis: 10_000)
    #expect(room.deadline == 10_000)
    room.apply(.committed(seat: .one, round: 1, digest: digest(1), at: 100))
    #expect(room.apply(.deadlinePassed(round: 1, at: 10_000)) == nil)
    #expect(room.history.last?.winner == .one)
    #expect(room.history.last?.weapons == [nil, nil])
    #expect(room.history.last?.commitments == [digest(1), nil])
    // Round 2: both commit, one reveals, the reveal deadline passes.
    room.apply(.committed(seat: .one, round: 2, digest: digest(1), at: 10_100))
    room.apply(.committed(seat: .two, round: 2, digest: digest(2), at: 10_200))
    #expect(room.deadline == Int64(15_200))
    room.apply(
      .revealed(seat: .two, round: 2, weapon: .paper, nonce: digest(7), matches: true, at: 10_300))
    #expect(room.apply(.deadlinePassed(round: 2, at: 15_199)) != nil, "not yet")
    #expect(room.apply(.deadlinePassed(round: 2, at: 15_200)) == nil)
    #expect(room.history.last?.winner == .two)
    #expect(room.history.last?.weapons == [nil, .paper])
  }

  @Test(
    "random fair games: no weapon before both commitments, none leaks, every refusal changes nothing, replays"
  )
  func properties() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...Int(Int32.max)).array(of: 0...150)) {
      numbers in
      let initial = fairRoom(roundMillis: 8_000)
      var room = initial
      var script = FairScript()
      var journal: [RoomAction] = []
      for r in numbers {
        let before = room
        let action = script.action(from: r, in: room)
        if room.apply(action) == nil {
          journal.append(action)
        } else {
          #expect(room == before, "a refused \(action) changed the room")
        }
        // The server holds no weapon before both seats are bound.
        if room.seats.values.contains(where: { $0.pick != nil }) { #expect(room.isRevealing) }
        for seat in Seat.allCases {
          for audience in [seat.opponent, nil] as [Seat?] {
            let view = room.view(for: audience)
            #expect(view.player(seat)?.weapon == nil)
            if !room.isRevealing { #expect(view.player(seat)?.commitment == nil) }
          }
        }
        for result in room.history {
          #expect(result.commitments.count == 2 && result.nonces.count == 2)
          for seat in Seat.allCases where result.weapon(of: seat) != nil {
            #expect(result.nonce(of: seat) != nil && result.commitment(of: seat) != nil)
          }
        }
      }
      var replayed = initial
      for action in journal { #expect(replayed.apply(action) == nil) }
      #expect(replayed == room)
    }
  }
}
