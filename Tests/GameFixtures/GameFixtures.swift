// Rooms in play for the tests of the game and of the client's screen (a library target
// in Tests/, so both test targets share one definition).
import RoshamboGame

/// A room with both seats taken and round 1 open.
public func playingRoom(
  bestOf: Int = 3, roundMillis: Int64 = 0, ruleset: Ruleset.ID = .classic
) -> RoomState {
  var room = RoomState(
    name: "den",
    settings: .init(ruleset: ruleset, bestOf: bestOf, roundMillis: roundMillis, graceMillis: 30_000)
  )
  room.apply(.playerJoined(name: "Alice", token: "t1", at: 1_000))
  room.apply(.playerJoined(name: "Bob", token: "t2", at: 2_000))
  return room
}

/// Plays one round: seat one picks `a`, seat two picks `b`.
public func play(_ room: inout RoomState, _ a: Weapon, _ b: Weapon, at: Int64 = 10_000) {
  let round = room.round
  room.apply(.chose(seat: .one, round: round, weapon: a, at: at))
  room.apply(.chose(seat: .two, round: round, weapon: b, at: at))
}
