import Foundation
import GameFixtures
import ReduxTesting
import RoshamboGame
import Testing

@Suite("Lobby")
struct LobbyTests {
  @Test("quick match pairs each player with the next waiting one")
  func quickMatch() {
    var lobby = LobbyState()
    #expect(lobby.apply(.join(room: nil, name: "A", token: "a", at: 1)) == nil)
    #expect(lobby.quickMatchRoom == "quick-1")
    #expect(lobby.apply(.join(room: nil, name: "B", token: "b", at: 2)) == nil)
    #expect(lobby.quickMatchRoom == nil)
    #expect(lobby.rooms["quick-1"]?.phase == .choosing)
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 3))
    lobby.apply(.join(room: nil, name: "D", token: "d", at: 4))
    lobby.apply(.join(room: nil, name: "E", token: "e", at: 5))
    #expect(lobby.rooms.keys.sorted() == ["quick-1", "quick-2", "quick-3"])
    #expect(lobby.quickMatchRoom == "quick-3")
    #expect(lobby.locate(token: "d")! == ("quick-2", .two))
    #expect(lobby.locate(token: "e")! == ("quick-3", .one))
    #expect(lobby.locate(token: "nope") == nil)
  }

  @Test("a named room is created on first join and refuses a third player")
  func namedRoom() {
    var lobby = LobbyState(defaults: .init(ruleset: .lizardSpock, bestOf: 5))
    lobby.apply(.join(room: "den", name: "A", token: "a", at: 1))
    lobby.apply(.join(room: "den", name: "B", token: "b", at: 2))
    #expect(lobby.rooms["den"]?.settings.ruleset == .lizardSpock)
    #expect(lobby.rooms["den"]?.settings.bestOf == 5)
    let before = lobby
    #expect(lobby.apply(.join(room: "den", name: "C", token: "c", at: 3))?.kind == .roomFull)
    #expect(lobby == before)
    #expect(lobby.quickMatchRoom == nil)
  }

  @Test("spectating needs an existing room")
  func spectate() {
    var lobby = LobbyState()
    #expect(lobby.apply(.spectate(room: "den"))?.kind == .noSuchRoom)
    lobby.apply(.join(room: "den", name: "A", token: "a", at: 1))
    #expect(lobby.apply(.spectate(room: "den")) == nil)
    #expect(lobby.rooms["den"]?.spectators == 1)
  }

  @Test("a room takes at most maxSpectators spectators; one leaving makes room")
  func spectatorCap() {
    var lobby = LobbyState()
    lobby.apply(.join(room: "den", name: "A", token: "a", at: 1))
    for _ in 0..<RoomState.maxSpectators { #expect(lobby.apply(.spectate(room: "den")) == nil) }
    let before = lobby
    #expect(lobby.apply(.spectate(room: "den"))?.kind == .spectatorsFull)
    #expect(lobby == before)
    lobby.apply(.room("den", .spectatorLeft))
    #expect(lobby.apply(.spectate(room: "den")) == nil)
  }

  @Test("a room that empties is removed, and so is its quick-match slot")
  func emptyRoomsGo() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    #expect(lobby.apply(.room("quick-1", .left(seat: .one, at: 2))) == nil)
    #expect(lobby.rooms.isEmpty)
    #expect(lobby.quickMatchRoom == nil)
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 3))
    #expect(lobby.quickMatchRoom == "quick-2")
  }

  @Test("a player whose quick-match opponent leaves is paired with the next one who asks")
  func strandedPlayerIsPairedNext() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    #expect(lobby.apply(.room("quick-1", .left(seat: .two, at: 3))) == nil)
    #expect(lobby.rooms["quick-1"]?.phase == .over)
    #expect(lobby.quickMatchRoom == "quick-1")
    #expect(lobby.waitingPlayers == 1)
    #expect(lobby.apply(.join(room: nil, name: "C", token: "c", at: 4)) == nil)
    #expect(lobby.locate(token: "c")! == ("quick-1", .two))
    #expect(lobby.rooms["quick-1"]?.phase == .choosing)
    #expect(lobby.rooms["quick-1"]?.round == 1)
    #expect(lobby.quickMatchRoom == nil)
    #expect(lobby.rooms.count == 1)
  }

  @Test("a player stranded while another waits for quick match is moved to that room")
  func strandedPlayerMovesToTheWaitingOne() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 3))
    #expect(lobby.quickMatchRoom == "quick-2")
    #expect(lobby.apply(.room("quick-1", .left(seat: .two, at: 4))) == nil)
    #expect(lobby.locate(token: "a")! == ("quick-2", .two))
    #expect(lobby.rooms["quick-2"]?.phase == .choosing)
    #expect(lobby.rooms["quick-2"]?.seats[.two]?.name == "A")
    #expect(lobby.rooms["quick-1"] == nil)
    #expect(lobby.quickMatchRoom == nil)
    #expect(lobby.waitingPlayers == 0)
  }

  @Test("a stranded player away on grace is paired once back, or goes with the grace")
  func strandedAwayPlayer() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    lobby.apply(.room("quick-1", .disconnected(seat: .one, at: 3)))
    lobby.apply(.room("quick-1", .left(seat: .two, at: 4)))
    // Nobody is there to play: the next player does not land in front of an empty chair.
    #expect(lobby.quickMatchRoom == nil)
    #expect(lobby.waitingPlayers == 0)
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 5))
    #expect(lobby.quickMatchRoom == "quick-2")
    #expect(lobby.apply(.room("quick-1", .reconnected(seat: .one, at: 6))) == nil)
    #expect(lobby.locate(token: "a")! == ("quick-2", .two))
    #expect(lobby.rooms["quick-2"]?.phase == .choosing)
    #expect(lobby.rooms["quick-1"] == nil)
  }

  @Test("spectators keep a quick room whose last player was moved out")
  func movedOutUnderSpectators() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    lobby.apply(.join(room: nil, name: "B", token: "b", at: 2))
    lobby.apply(.spectate(room: "quick-1"))
    lobby.apply(.join(room: nil, name: "C", token: "c", at: 3))
    lobby.apply(.room("quick-1", .left(seat: .one, at: 4)))
    #expect(lobby.locate(token: "b")! == ("quick-2", .two))
    #expect(lobby.rooms["quick-1"]?.spectators == 1)
    #expect(lobby.rooms["quick-1"]?.seats.isEmpty == true)
    #expect(lobby.rooms["quick-1"]?.phase == .waiting)
    #expect(lobby.quickMatchRoom == nil)
  }

  @Test("a named join that fills the quick-match room clears it")
  func namedJoinIntoQuickRoom() {
    var lobby = LobbyState()
    lobby.apply(.join(room: nil, name: "A", token: "a", at: 1))
    #expect(lobby.apply(.join(room: "quick-1", name: "B", token: "b", at: 2)) == nil)
    #expect(lobby.quickMatchRoom == nil)
    #expect(lobby.apply(.join(room: nil, name: "C", token: "c", at: 3)) == nil)
    #expect(lobby.locate(token: "c")! == ("quick-2", .one))
  }

  @Test("asking for a fair room that exists as an ordinary one is refused, not ignored")
  func fairAskForOrdinaryRoom() {
    var lobby = LobbyState()
    lobby.apply(.join(room: "den", name: "A", token: "a", at: 1))
    let before = lobby
    #expect(
      lobby.apply(.join(room: "den", name: "B", token: "b", fair: true, at: 2))?.kind == .fairRoom)
    #expect(lobby == before)
    #expect(lobby.apply(.join(room: "den", name: "B", token: "b", fair: false, at: 2)) == nil)
    lobby.apply(.join(room: "fairden", name: "C", token: "c", fair: true, at: 3))
    #expect(lobby.apply(.join(room: "fairden", name: "D", token: "d", fair: true, at: 4)) == nil)
  }

  @Test("quick-match names are not for named rooms")
  func quickNamesAreReserved() {
    var lobby = LobbyState()
    #expect(
      lobby.apply(.join(room: "quick-2", name: "A", token: "a", at: 1))?.kind == .reservedRoomName)
    #expect(lobby.rooms.isEmpty)
    #expect(lobby.apply(.join(room: "quick-", name: "A", token: "a", at: 1)) == nil)
    #expect(lobby.apply(.join(room: "quickly", name: "B", token: "b", at: 1)) == nil)
    #expect(!LobbyState.isQuickMatchRoom("quick-"))
    #expect(!LobbyState.isQuickMatchRoom("quick-1a"))
    #expect(LobbyState.isQuickMatchRoom("quick-12"))
  }

  @Test("room actions for a missing room are refused")
  func missingRoom() {
    var lobby = LobbyState()
    #expect(lobby.apply(.room("x", .spectatorJoined))?.kind == .noSuchRoom)
  }

  @Test("the lobby reducer drives a store like any other")
  @MainActor
  func throughTestStore() {
    let store = TestStore(initialState: LobbyState(), reducer: LobbyReducer())
    store.send(.join(room: "den", name: "A", token: "a", at: 1)) {
      var room = RoomState(name: "den")
      room.apply(.playerJoined(name: "A", token: "a", at: 1))
      $0.rooms["den"] = room
    }
    store.send(.room("den", .spectatorJoined)) {
      $0.rooms["den"]!.spectators = 1
      $0.rooms["den"]!.version = 2
    }
    store.finish()
  }
}

@Suite("Replay")
struct ReplayTests {
  static let journal: [LobbyAction] = [
    .join(room: "den", name: "Alice", token: "a", at: 1_000),
    .join(room: nil, name: "Carol", token: "c", at: 1_500),
    .join(room: "den", name: "Bob", token: "b", at: 2_000),
    .spectate(room: "den"),
    .room("den", .chose(seat: .one, round: 1, weapon: .rock, at: 3_000)),
    .room("den", .disconnected(seat: .two, at: 3_100)),
    .room("den", .reconnected(seat: .two, at: 3_200)),
    .room("den", .chose(seat: .two, round: 1, weapon: .scissors, at: 3_300)),
    .room("den", .chose(seat: .two, round: 2, weapon: .paper, at: 4_000)),
    .join(room: nil, name: "Dan", token: "d", at: 4_500),
  ]

  @Test("the journaled actions folded again rebuild the lobby exactly")
  func replay() {
    var live = LobbyState()
    for action in Self.journal { live.apply(action) }
    var replayed = LobbyState()
    for action in Self.journal { replayed.apply(action) }
    #expect(replayed == live)
    #expect(replayed.rooms["den"]?.seats[.two]?.pick == .paper)
    #expect(replayed.rooms["quick-1"]?.phase == .choosing)
  }

  @Test("a challenge's or a tournament's room whose match is over and a player gone is not listed")
  func finishedRoomsWithAFreeSeat() {
    var lobby = LobbyState(defaults: .init(bestOf: 1))
    let players = [
      LobbyAction.Entrant(name: "Alice", token: "a"), LobbyAction.Entrant(name: "Bob", token: "b"),
    ]
    #expect(lobby.apply(.openMatch(players: players, settings: .init(bestOf: 3), at: 1)) == nil)
    #expect(lobby.apply(.openMatch(players: players, settings: .init(bestOf: 1), at: 1)) == nil)
    lobby.apply(.join(room: "den", name: "Cy", token: "c", at: 1))
    lobby.apply(.join(room: "den", name: "Di", token: "d", at: 1))
    func listed() -> (names: [String], count: Int) {
      let view = lobby.view(people: [], peopleCount: 0, leaders: [])
      return (view.rooms.map(\.name), view.roomCount)
    }
    #expect(listed().names == ["den", "duel-1", "duel-2"])
    // duel-1: Bob gives the match up; Alice still looks at the result.
    lobby.apply(.room("duel-1", .left(seat: .two, at: 2)))
    #expect(lobby.rooms["duel-1"]?.phase == .over)
    // duel-2: played to its end; Alice goes back to the lobby, Bob stays.
    lobby.apply(.room("duel-2", .chose(seat: .one, round: 1, weapon: .rock, at: 2)))
    lobby.apply(.room("duel-2", .chose(seat: .two, round: 1, weapon: .paper, at: 2)))
    #expect(lobby.rooms["duel-2"]?.phase == .over)
    // duel-1 is over for good; duel-2 is over with both still there (a rematch may come).
    #expect(listed().names == ["den", "duel-2"])
    lobby.apply(.room("duel-2", .left(seat: .one, at: 3)))
    // Nobody can play in either any more: they are not listed, nor counted.
    #expect(listed().names == ["den"])
    #expect(listed().count == 1)
    // A named room with a free seat after a forfeit stays: someone may join it.
    lobby.apply(.room("den", .left(seat: .two, at: 4)))
    #expect(listed().names == ["den"])
  }
}
