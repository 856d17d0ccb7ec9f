import Foundation
import GameFixtures
import RoshamboGame
import RoshamboJSON
import Testing

@testable import RoshamboProtocol

/// A view's one wire form (`RoomView+Wire.swift`).
func wire(_ view: RoomView) -> [UInt8] {
  var text = JSONText()
  text.view(view)
  return text.bytes
}

/// A view read back from its wire form.
func readView(_ bytes: [UInt8]) throws -> RoomView {
  try JSONReader.withBuffer(bytes) { try JSONReader.read($0) { try $0.view() } }
}

@Suite("Views on the wire")
struct RoomViewTests {
  func json(_ view: RoomView) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(wire(view))) as! [String: Any]
  }

  @Test("fair fields a server sends out of place still re-encode to what was read")
  func fairFieldsOutOfPlace() throws {
    // A commitment in a view not marked fair, and nonces without commitments: what a
    // client read must be what it writes back (the client-frames fuzz target's invariant).
    let hex = String(repeating: "c", count: 64)
    let text = #"""
      {"type":"state","seq":1,"view":{"room":"den","ruleset":"classic","bestOf":3,\#
      "phase":"choosing","round":2,"you":1,"players":[{"seat":1,"name":"A","connected":true,\#
      "chosen":true,"weapon":null,"score":0,"commitment":"\#(hex)","revealed":true}],\#
      "history":[{"round":1,"weapons":["rock",null],"winner":1,"reason":null,\#
      "nonces":["\#(hex)",null]}],"winner":null,"deadline":null}}
      """#
    let message = try ServerMessage.decode(Array(text.utf8))
    guard case .state(_, let view) = message else {
      Issue.record("not a state: \(message)")
      return
    }
    #expect(!view.fair)
    #expect(view.players[0].commitment == hex && view.players[0].revealed)
    #expect(view.history[0].nonces == [hex, nil] && view.history[0].commitments.isEmpty)
    #expect(try ServerMessage.decode(message.encoded()) == message)
  }

  @Test("a view carries every field of the contract, null included")
  func contractFields() throws {
    var room = playingRoom(roundMillis: 20_000)
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 3_000))
    let object = try json(room.view(for: .one))
    for key in [
      "room", "ruleset", "bestOf", "phase", "round", "you", "players", "history", "winner",
      "deadline",
    ] {
      #expect(object.keys.contains(key), "missing \(key)")
    }
    #expect(object["room"] as? String == "den")
    #expect(object["ruleset"] as? String == "classic")
    #expect(object["bestOf"] as? Int == 3)
    #expect(object["phase"] as? String == "choosing")
    #expect(object["round"] as? Int == 1)
    #expect(object["you"] as? Int == 1)
    #expect(object["winner"] is NSNull)
    #expect(object["deadline"] as? Int == 22_000)
    let players = object["players"] as! [[String: Any]]
    #expect(players.count == 2)
    #expect(players[0]["seat"] as? Int == 1)
    #expect(players[0]["name"] as? String == "Alice")
    #expect(players[0]["connected"] as? Bool == true)
    #expect(players[0]["chosen"] as? Bool == true)
    #expect(players[0]["weapon"] as? String == "rock")
    #expect(players[0]["score"] as? Int == 0)
    #expect(players[1]["weapon"] is NSNull)
    #expect(players[1]["chosen"] as? Bool == false)
  }

  @Test("a spectator's view has you: null and no weapons")
  func spectatorView() throws {
    var room = playingRoom()
    room.apply(.chose(seat: .one, round: 1, weapon: .rock, at: 3_000))
    room.apply(.chose(seat: .two, round: 1, weapon: .paper, at: 3_000))
    room.apply(.chose(seat: .two, round: 2, weapon: .scissors, at: 3_000))
    let view = room.view(for: nil)
    #expect(view.you == nil)
    #expect(view.players.allSatisfy { $0.weapon == nil })
    #expect(view.player(.two)?.chosen == true)
    let object = try json(view)
    #expect(object["you"] is NSNull)
  }

  @Test("history gives both weapons and winner 0 for a draw")
  func historyEncoding() throws {
    var room = playingRoom()
    play(&room, .paper, .rock)
    play(&room, .rock, .rock)
    let history = try json(room.view(for: .two))["history"] as! [[String: Any]]
    #expect(history[0]["round"] as? Int == 1)
    #expect(history[0]["weapons"] as? [String] == ["paper", "rock"])
    #expect(history[0]["winner"] as? Int == 1)
    #expect(history[1]["winner"] as? Int == 0)
  }

  @Test("a view decodes from the contract's own example")
  func decodesContractExample() throws {
    let example = """
      {"room": "den", "ruleset": "classic", "bestOf": 3, "phase": "waiting", "round": 2, "you": 1,
       "players": [
         {"seat": 1, "name": "Alice", "connected": true, "chosen": true,  "weapon": "rock", "score": 1},
         {"seat": 2, "name": "Bob",   "connected": true, "chosen": false, "weapon": null,   "score": 0}],
       "history": [ {"round": 1, "weapons": ["paper", "rock"], "winner": 1} ],
       "winner": null, "deadline": null}
      """
    let view = try readView(Array(example.utf8))
    #expect(view.players[0].weapon == .rock)
    #expect(view.history[0].winner == .one)
    #expect(view.you == .one)
    #expect(try readView(wire(view)) == view)
  }

  @Test("the view for one seat is the same whatever the other seat picked")
  func secrecy() throws {
    var base = playingRoom()
    play(&base, .rock, .paper)
    var seen: Set<[UInt8]> = []
    var spectatorSeen: Set<[UInt8]> = []
    for weapon in Ruleset.classic.weapons {
      var room = base
      room.apply(.chose(seat: .one, round: 2, weapon: weapon, at: 9_000))
      seen.insert(wire(room.view(for: .two)))
      spectatorSeen.insert(wire(room.view(for: nil)))
      #expect(room.view(for: .one).player(.one)?.weapon == weapon)
    }
    #expect(seen.count == 1)
    #expect(spectatorSeen.count == 1)
  }

  @Test("endless draws never make a view too big for one frame")
  func boundedHistory() throws {
    var room = playingRoom()
    for _ in 0..<2_000 { play(&room, .rock, .rock) }
    #expect(room.history.count == RoomView.historyLimit)
    let view = room.view(for: .one)
    #expect(view.history.count == RoomView.historyLimit)
    #expect(view.history.first?.round == 1_901)
    #expect(view.history.last?.round == 2_000)
    #expect(wire(view).count < 65_536 / 4)
  }

  @Test("a tournament room's stage (extension): written only there, read back")
  func tournamentStage() throws {
    var room = RoomState(name: "cup-1-2-1")
    room.apply(.playerJoined(name: "Ann", token: "a", at: 0))
    var view = room.view(for: .one)
    let plain = String(
      decoding: ServerMessage.state(seq: 1, view: view).encoded(), as: UTF8.self)
    #expect(!plain.contains("tournament"))
    view.tournament = .init(
      kind: .swiss, phase: .running, round: 2, rounds: 3, startsAt: 1_764_083_262_000,
      byes: ["Eve"], champion: nil)
    let message = ServerMessage.state(seq: 1, view: view)
    let text = String(decoding: message.encoded(), as: UTF8.self)
    #expect(
      text.contains(
        #""tournament":{"kind":"swiss","phase":"running","round":2,"rounds":3,"#
          + #""startsAt":1764083262000,"byes":["Eve"],"champion":null}"#), "\(text)")
    #expect(try ServerMessage.decode(message.encoded()) == message)
  }
}
