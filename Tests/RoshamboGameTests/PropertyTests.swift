import Foundation
import ProcessFixtures
import PropertyBased
import RoshamboGame
import Testing

/// Turns random numbers into plausible room actions against the current state, so that
/// shrinking works on a plain array of integers.
struct ActionScript {
  var clock: Int64 = 1_000
  var joined = 0

  mutating func action(from r: Int, in room: RoomState) -> RoomAction {
    clock += Int64((r >> 8) % 5_000)
    let seat: Seat = (r >> 4) % 2 == 0 ? .one : .two
    let weapon = Weapon.allCases[(r >> 12) % Weapon.allCases.count]
    switch r % 12 {
    case 0:
      joined += 1
      return .playerJoined(name: "P\(joined)", token: "t\(joined)", at: clock)
    case 1: return .spectatorJoined
    case 2: return .spectatorLeft
    case 3, 4, 5, 6:
      let round = (r >> 16) % 6 == 0 ? room.round + 1 : room.round
      return .chose(seat: seat, round: round, weapon: weapon, at: clock)
    case 7:
      return room.seats[seat]?.connected == false
        ? .reconnected(seat: seat, at: clock) : .disconnected(seat: seat, at: clock)
    case 8: return .left(seat: seat, at: clock)
    case 9: return .deadlinePassed(round: room.round, at: clock + Int64((r >> 20) % 30_000))
    case 10: return .graceExpired(seat: seat, at: clock + Int64((r >> 20) % 40_000))
    default: return .rematchRequested(seat: seat, at: clock)
    }
  }
}

func settings(from r: Int) -> RoomState.Settings {
  .init(
    ruleset: r % 2 == 0 ? .classic : .lizardSpock,
    bestOf: [1, 3, 5, 7][(r >> 1) % 4],
    roundMillis: (r >> 3) % 2 == 0 ? 0 : 20_000,
    graceMillis: 30_000)
}

/// Fails unless no view of `room` for an audience other than a seat reveals that seat's
/// unresolved pick: each other view must be the same whatever the seat picked.
func expectSecrecy(_ room: RoomState, sourceLocation: SourceLocation = #_sourceLocation) {
  for seat in Seat.allCases {
    guard room.seats[seat]?.pick != nil else { continue }
    for audience in [seat.opponent, nil] as [Seat?] {
      let views = room.ruleset.weapons.map { weapon in
        var other = room
        other.seats[seat]!.pick = weapon
        return other.view(for: audience)
      }
      #expect(
        views.allSatisfy { $0 == views[0] },
        "seat \(seat) pick leaks to \(String(describing: audience))",
        sourceLocation: sourceLocation)
      #expect(room.view(for: audience).player(seat)?.weapon == nil, sourceLocation: sourceLocation)
    }
  }
}

@Suite("Properties of random games", .cpuBound)
struct PropertyTests {
  static let script = Gen.int(in: 0...Int(Int32.max)).array(of: 0...150)

  @Test("invariants hold after every action of random action sequences")
  func invariants() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...63), Self.script) { setup, numbers in
      var room = RoomState(name: "p", settings: settings(from: setup))
      var script = ActionScript()
      var accepted = 0
      for r in numbers {
        let before = room
        let action = script.action(from: r, in: room)
        if room.apply(action) == nil {
          accepted += 1
          #expect(room.version == before.version + 1, "\(action)")
        } else {
          #expect(room == before, "a refused \(action) changed the room")
        }
        // Scores never exceed what the match allows.
        for held in room.seats.values {
          #expect(held.score <= room.winsNeeded)
        }
        // The match ends exactly when a seat reaches the needed wins (or one gives up).
        let someoneWon = room.seats.values.contains { $0.score == room.winsNeeded }
        let someoneLeft = room.seats.values.contains(where: \.hasLeft)
        if someoneWon { #expect(room.phase == .over) }
        if room.phase == .over { #expect(someoneWon || someoneLeft) }
        if room.phase != .choosing { #expect(room.seats.values.allSatisfy { $0.pick == nil }) }
        if room.phase == .choosing { #expect(room.seats.count == 2) }
        #expect(room.history.count <= room.round)
        expectSecrecy(room)
      }
      #expect(room.version == accepted)
    }
  }

  @Test("replaying the accepted actions reproduces the state exactly")
  func replay() async {
    await propertyCheck(count: 200, input: Gen.int(in: 0...63), Self.script) { setup, numbers in
      let initial = RoomState(name: "p", settings: settings(from: setup))
      var room = initial
      var script = ActionScript()
      var journal: [RoomAction] = []
      for r in numbers {
        let action = script.action(from: r, in: room)
        if room.apply(action) == nil { journal.append(action) }
      }
      var replayed = initial
      for action in journal { #expect(replayed.apply(action) == nil) }
      #expect(replayed == room)
    }
  }

  @Test("quick match: never two players waiting for it at once, whatever comes and goes")
  func neverTwoWaitingForQuickMatch() async {
    await propertyCheck(count: 300, input: Self.script) { numbers in
      var lobby = LobbyState(defaults: .init(bestOf: 1, graceMillis: 1_000))
      var clock: Int64 = 0
      var tokens: [String] = []
      for r in numbers {
        clock += 100
        let action: LobbyAction
        let held = tokens.compactMap { token in lobby.locate(token: token).map { (token, $0) } }
        let pick = held.isEmpty ? nil : held[(r >> 4) % held.count].1
        switch r % 8 {
        case 0, 1:
          tokens.append("t\(tokens.count)")
          action = .join(room: nil, name: "P\(tokens.count)", token: tokens.last!, at: clock)
        case 2:
          guard let (room, seat) = pick else { continue }
          action = .room(room, .left(seat: seat, at: clock))
        case 3:
          guard let (room, seat) = pick else { continue }
          let connected = lobby.rooms[room]!.seats[seat]!.connected
          action = .room(
            room,
            connected ? .disconnected(seat: seat, at: clock) : .reconnected(seat: seat, at: clock))
        case 4:
          guard let (room, seat) = pick else { continue }
          action = .room(room, .graceExpired(seat: seat, at: clock + 1_000))
        case 5:
          guard let (room, seat) = pick else { continue }
          action = .room(room, .rematchRequested(seat: seat, at: clock))
        case 6:
          guard let (room, seat) = pick else { continue }
          let round = lobby.rooms[room]!.round
          let weapon = Weapon.allCases[(r >> 8) % 3]
          action = .room(room, .chose(seat: seat, round: round, weapon: weapon, at: clock))
        default:
          guard let (room, _) = pick else { continue }
          action = (r >> 8) % 2 == 0 ? .spectate(room: room) : .room(room, .spectatorLeft)
        }
        lobby.apply(action)
        let waiting = lobby.rooms.values.filter { room in
          LobbyState.isQuickMatchRoom(room.name)
            && room.loneSeat.map { room.seats[$0]!.connected } == true
        }
        #expect(waiting.count <= 1, "after \(action): \(waiting.map(\.name)) wait")
        if let only = waiting.first { #expect(lobby.quickMatchRoom == only.name) }
        #expect(
          lobby.waitingPlayers
            == lobby.rooms.values.count { room in
              room.loneSeat.map { room.seats[$0]!.connected } == true
            })
        if let quick = lobby.quickMatchRoom {
          #expect(lobby.rooms[quick]?.loneSeat != nil)
        }
      }
    }
  }

  @Test("lobby invariants: no empty room is kept, the quick-match room has one player")
  func lobbyInvariants() async {
    await propertyCheck(count: 200, input: Self.script) { numbers in
      var lobby = LobbyState()
      var clock: Int64 = 0
      var tokens: [String] = []
      for r in numbers {
        clock += 100
        let action: LobbyAction
        switch r % 5 {
        case 0, 1:
          tokens.append("t\(tokens.count)")
          action = .join(
            room: r % 3 == 0 ? "named-\(r % 2)" : nil, name: "P", token: tokens.last!, at: clock)
        case 2:
          guard !tokens.isEmpty,
            let (room, seat) = lobby.locate(token: tokens[(r >> 4) % tokens.count])
          else { continue }
          action = .room(room, .left(seat: seat, at: clock))
        case 3:
          guard let (room, seat) = tokens.lazy.compactMap({ lobby.locate(token: $0) }).first
          else { continue }
          let round = lobby.rooms[room]!.round
          action = .room(room, .chose(seat: seat, round: round, weapon: .rock, at: clock))
        default:
          action = .spectate(room: "named-\(r % 2)")
        }
        lobby.apply(action)
        #expect(lobby.rooms.values.allSatisfy { !$0.isEmpty })
        if let quick = lobby.quickMatchRoom {
          #expect(lobby.rooms[quick]?.loneSeat != nil)
          #expect(lobby.rooms[quick]?.phase != .choosing)
        }
      }
    }
  }
}
