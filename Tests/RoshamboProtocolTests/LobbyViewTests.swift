import RoshamboGame
import RoshamboProtocol
import Testing

/// The `lobby` message: its size bound, its wire form both ways, and the `lobby` role.
@Suite("Protocol: the lobby view")
struct LobbyViewTests {
  /// The longest name the name rule allows in bytes: 24 characters of 4 bytes, one
  /// column each (mathematical bold capitals).
  static let longestName: String = {
    let name = String(repeating: "\u{1D400}", count: PlayerName.maxCharacters)
    #expect(name.utf8.count == PlayerName.maxBytes)
    return name
  }()
  static let longestRoom = String(repeating: "r", count: 32)

  /// Every list at its cap, every field at its widest.
  static var fullest: LobbyView {
    let people = (0..<(LobbyView.maxPeople * 2)).map { _ in
      LobbyView.Person(
        name: longestName, status: .watching, room: longestRoom, takesChallenges: false)
    }
    let standings = (0..<(Tournament.maxEntrants * 2)).map { _ in
      Tournament.Standing(
        name: longestName, wins: Int.max, losses: Int.max, roundDifference: Int.min,
        alive: false)
    }
    let pairings = (0..<Tournament.maxEntrants).map { _ in
      Tournament.Pairing(
        players: [longestName, longestName], room: longestRoom, winner: longestName,
        scores: [Int.max, Int.max])
    }
    let tournament = LobbyView.TournamentView(
      kind: .singleElimination, phase: .running, round: Int.max, rounds: Int.max,
      standings: standings, pairings: pairings, champion: longestName)
    let rooms = (0..<(LobbyView.maxRooms * 2)).map { _ in
      LobbyView.Room(
        name: longestRoom, players: [longestName, longestName], scores: [Int.max, Int.max],
        round: Int.max, phase: .choosing, bestOf: 99, ruleset: .lizardSpock, fair: false,
        spectators: RoomState.maxSpectators)
    }
    // The widest rating a kept one can be (``Glicko2Rating/problem`` bounds them).
    let leaders = (0..<(LobbyView.maxLeaders * 2)).map { _ in
      LobbyView.Leader(
        name: longestName, won: Int.max, lost: Int.max, wonByForfeit: Int.max,
        rating: LobbyView.Rating(points: -999_999.999_999, deviation: 9_999.999_999))
    }
    let recent = (0..<(LobbyView.maxRecent * 2)).map { _ in
      LobbyView.Recent(
        id: Int64.max, room: longestRoom, players: [longestName, longestName],
        scores: [Int.max, Int.max], winner: .two, fair: true)
    }
    var view = LobbyView(
      people: people, peopleCount: Int.max, rooms: rooms, roomCount: Int.max, leaders: leaders,
      tournament: tournament, recent: recent)
    view.server = longestName
    return view
  }

  @Test("lists are cut to their caps, so the fullest view fits in one frame")
  func bounded() {
    let view = Self.fullest
    #expect(view.people.count == LobbyView.maxPeople)
    #expect(view.rooms.count == LobbyView.maxRooms)
    #expect(view.leaders.count == LobbyView.maxLeaders)
    #expect(view.recent.count == LobbyView.maxRecent)
    #expect(view.tournament?.standings.count == LobbyView.TournamentView.maxStandings)
    #expect(view.tournament?.pairings.count == LobbyView.TournamentView.maxPairings)
    let bytes = ServerMessage.lobby(seq: Int.max, view: view).encoded()
    #expect(bytes.count <= WireProtocol.maxFrameLength, "\(bytes.count) bytes")
  }

  @Test("written and read back to the same view, every key present")
  func roundTrip() throws {
    let view = LobbyView(
      people: [
        .init(name: "Alice", status: .playing, room: "den"),
        .init(name: "Zoë \"Z\"", status: .idle, room: nil),
      ],
      peopleCount: 2,
      rooms: [
        .init(
          name: "den", players: ["Alice", nil], scores: [1, 0], round: 2, phase: .choosing,
          bestOf: 3, ruleset: .classic, fair: true, spectators: 4)
      ], roomCount: 1, leaders: [.init(name: "Alice", won: 3, lost: 1)],
      recent: [
        .init(
          id: 42, room: "duel-1", players: ["Alice", "Bob"], scores: [2, 1], winner: .one,
          fair: true)
      ])
    let message = ServerMessage.lobby(seq: 7, view: view)
    let bytes = message.encoded()
    #expect(try ServerMessage.decode(bytes) == message)
    let text = String(decoding: bytes, as: UTF8.self)
    for key in [
      "\"people\"", "\"peopleCount\"", "\"rooms\"", "\"roomCount\"", "\"leaders\"",
      "\"status\"", "\"players\"", "\"scores\"", "\"spectators\"", "\"room\":null",
      #""recent":[{"id":42,"room":"duel-1""#,
    ] {
      #expect(text.contains(key), "\(key) missing from \(text)")
    }
    // Nothing private has a key in it.
    for secret in ["weapon", "token", "commitment", "nonce", "address"] {
      #expect(!text.contains(secret))
    }
  }

  @Test("a view over a cap, or without a field, is refused by name")
  func refused() {
    let over = String(
      decoding: ServerMessage.lobby(seq: 1, view: Self.fullest).encoded(), as: UTF8.self
    ).replacingOccurrences(of: "\"leaders\":[", with: "\"leaders\":[" + leaderList(11) + ",")
    #expect(throws: (any Error).self) { try ServerMessage.decode(Array(over.utf8)) }
    let missing =
      #"{"type":"lobby","seq":1,"lobby":{"people":[],"rooms":[],"roomCount":0,"leaders":[]}}"#
    #expect {
      try ServerMessage.decode(Array(missing.utf8))
    } throws: { error in
      "\(error)".contains("peopleCount")
    }
  }

  @Test("a view from a server without recent matches lists none; a bad one is refused")
  func recentMatches() throws {
    let older =
      #"{"type":"lobby","seq":1,"lobby":{"people":[],"peopleCount":0,"rooms":[],"roomCount":0,"leaders":[]}}"#
    guard case .lobby(_, let view) = try ServerMessage.decode(Array(older.utf8)) else {
      Issue.record("not a lobby view")
      return
    }
    #expect(view.recent.isEmpty)
    let bad = older.replacingOccurrences(
      of: #""leaders":[]"#, with: #""leaders":[],"recent":[{"id":0,"room":"x"}]"#)
    #expect {
      try ServerMessage.decode(Array(bad.utf8))
    } throws: { error in
      "\(error)".contains("a recent match needs a positive id")
    }
  }

  func leaderList(_ count: Int) -> String {
    Array(repeating: #"{"name":"x","won":1,"lost":0}"#, count: count).joined(separator: ",")
  }

  @Test("hello with role lobby: no room, no resume")
  func role() {
    let follow = #"{"type":"hello","protocol":1,"name":"Eve","role":"lobby"}"#
    #expect(
      ClientMessage.decode(Array(follow.utf8))
        == .success(
          .hello(
            protocol: 1, name: "Eve", role: .lobby, room: nil, resume: nil, fair: nil, id: nil)))
    let withRoom = #"{"type":"hello","protocol":1,"name":"Eve","role":"lobby","room":"den"}"#
    guard case .failure(let error) = ClientMessage.decode(Array(withRoom.utf8)) else {
      Issue.record("a lobby follower naming a room must be refused")
      return
    }
    #expect(error.code == .badMessage)
  }

  @Test("the server's name (extension): written when known, read back; absent or bad")
  func serverName() throws {
    var view = LobbyView(people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [])
    let without = String(decoding: ServerMessage.lobby(seq: 1, view: view).encoded(), as: UTF8.self)
    #expect(!without.contains("\"server\""))
    view.server = "attic"
    let message = ServerMessage.lobby(seq: 1, view: view)
    #expect(String(decoding: message.encoded(), as: UTF8.self).contains(#""server":"attic""#))
    #expect(try ServerMessage.decode(message.encoded()) == message)
    let bad = String(decoding: message.encoded(), as: UTF8.self).replacingOccurrences(
      of: #""server":"attic""#, with: #""server":"""#)
    #expect(throws: (any Error).self) { try ServerMessage.decode(Array(bad.utf8)) }
  }

  @Test("a tournament's start (extensions startsAt, startsWith): written when known, read back")
  func tournamentStart() throws {
    var tournament = LobbyView.TournamentView(
      kind: .swiss, phase: .entry, round: 0, rounds: 0, standings: [], pairings: [],
      champion: nil)
    var view = LobbyView(
      people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [], tournament: tournament)
    let without = String(decoding: ServerMessage.lobby(seq: 1, view: view).encoded(), as: UTF8.self)
    #expect(!without.contains("startsAt") && !without.contains("startsWith"))
    tournament.startsAt = 1_764_083_262_000
    tournament.startsWith = 8
    view.tournament = tournament
    let message = ServerMessage.lobby(seq: 1, view: view)
    let text = String(decoding: message.encoded(), as: UTF8.self)
    #expect(text.contains(#""startsAt":1764083262000,"startsWith":8"#), "\(text)")
    #expect(try ServerMessage.decode(message.encoded()) == message)
  }

  /// A single elimination of 16 in its last round: the 14 pairings before the final travel
  /// with the board's view, oldest round first, so that a page opened now draws the whole
  /// bracket.
  @Test("a tournament's earlier rounds (extension earlier): the whole bracket, read back")
  func earlierRounds() throws {
    var cup = Tournament(kind: .singleElimination, settings: RoomState.Settings(bestOf: 1))
    cup.entrants = (1...16).map { "P\($0)" }
    cup.phase = .running
    for size in [8, 4, 2, 1] {
      cup.rounds.append(
        (0..<size).map { index in
          Tournament.Pairing(
            players: ["P\(index * 2 + 1)", "P\(index * 2 + 2)"], room: "cup-1-\(index)",
            winner: size == 1 ? nil : "P\(index * 2 + 1)", scores: [1, 0])
        })
    }
    var view = LobbyView.TournamentView(cup)
    #expect(view.earlier.isEmpty, "a follower's view is held to one frame: none")
    view.earlier = LobbyView.TournamentView.earlier(cup.rounds.dropLast())
    #expect(view.earlier.map(\.count) == [8, 4, 2])
    #expect(view.pairings.count == 1)
    let lobby = LobbyView(
      people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [], tournament: view)
    let message = ServerMessage.lobby(seq: 3, view: lobby)
    let text = String(decoding: message.encoded(), as: UTF8.self)
    #expect(text.contains(#""earlier":[[{"players":["P1","P2"]"#), "\(text)")
    #expect(try ServerMessage.decode(message.encoded()) == message)
    // None before the second round: no key, as an older server writes it.
    let first = LobbyView.TournamentView(
      kind: .singleElimination, phase: .running, round: 1, rounds: 4, standings: [],
      pairings: [], champion: nil)
    #expect(
      !String(
        decoding: ServerMessage.lobby(
          seq: 1,
          view: LobbyView(
            people: [], peopleCount: 0, rooms: [], roomCount: 0, leaders: [], tournament: first)
        ).encoded(), as: UTF8.self
      ).contains("earlier"))
    // More than the cap is refused by name.
    let round = #"[{"players":["A","B"],"room":"r","winner":null,"scores":[0,0]}],"#
    let over = text.replacingOccurrences(
      of: #""earlier":["#, with: #""earlier":["# + String(repeating: round, count: 33))
    #expect(throws: (any Error).self) { try ServerMessage.decode(Array(over.utf8)) }
  }

  @Test("a leader's wins by forfeit (extension wonByForfeit): written when any, read back")
  func leaderForfeits() throws {
    let old =
      #"{"type":"lobby","seq":1,"lobby":{"people":[],"peopleCount":0,"rooms":[],"roomCount":0,"leaders":[{"name":"Ann","won":3,"lost":1}],"tournament":null}}"#
    let new = old.replacingOccurrences(of: #""lost":1}"#, with: #""lost":1,"wonByForfeit":2}"#)
    // A protocol-1 server's leader (no field) is written back without it.
    let fromOld = try ServerMessage.decode(Array(old.utf8))
    #expect(!String(decoding: fromOld.encoded(), as: UTF8.self).contains("wonByForfeit"))
    // The field is read and written again as it came.
    let fromNew = try ServerMessage.decode(Array(new.utf8))
    #expect(fromNew != fromOld)
    let again = String(decoding: fromNew.encoded(), as: UTF8.self)
    #expect(again.contains(#""lost":1,"wonByForfeit":2}"#), "\(again)")
    #expect(try ServerMessage.decode(fromNew.encoded()) == fromNew)
    // More wins by forfeit than wins is refused.
    let lying = old.replacingOccurrences(of: #""lost":1}"#, with: #""lost":1,"wonByForfeit":4}"#)
    #expect(throws: (any Error).self) { try ServerMessage.decode(Array(lying.utf8)) }
  }

  @Test("a leader's rating (extensions rating, deviation, provisional): exact to the millionth")
  func leaderRatings() throws {
    let kept = Glicko2.standard.afterMatch(winner: .unrated, loser: .unrated)
    let view = LobbyView(
      people: [], peopleCount: 0, rooms: [], roomCount: 0,
      leaders: [
        .init(name: "Ann", won: 1, lost: 0, rating: .init(kept.winner)),
        .init(name: "Bo", won: 30, lost: 2, rating: .init(points: 1_623, deviation: 47.5)),
        .init(name: "Cy", won: 0, lost: 1, rating: .init(points: -12.000_001, deviation: 0.5)),
      ])
    let message = ServerMessage.lobby(seq: 1, view: view)
    let text = String(decoding: message.encoded(), as: UTF8.self)
    #expect(
      text.contains(
        #"{"name":"Ann","won":1,"lost":0,"rating":1662.310894,"deviation":290.318964,"#
          + #""provisional":true}"#), "\(text)")
    #expect(text.contains(#""rating":1623,"deviation":47.5,"provisional":false}"#), "\(text)")
    #expect(text.contains(#""rating":-12.000001,"deviation":0.5,"#), "\(text)")
    // Read back to the same doubles, bit for bit.
    #expect(try ServerMessage.decode(message.encoded()) == message)
    // A protocol-1 server's leader has none, and is written back without.
    let old =
      #"{"type":"lobby","seq":1,"lobby":{"people":[],"peopleCount":0,"rooms":[],"roomCount":0,"leaders":[{"name":"Ann","won":3,"lost":1}],"tournament":null}}"#
    guard case .lobby(_, let older) = try ServerMessage.decode(Array(old.utf8)) else {
      Issue.record("not a lobby view")
      return
    }
    #expect(older.leaders.first?.rating == nil)
    #expect(
      !String(decoding: ServerMessage.lobby(seq: 1, view: older).encoded(), as: UTF8.self)
        .contains("rating"))
    // A rating without its deviation, or with none above 0, is refused.
    for bad in [#""lost":1,"rating":1500}"#, #""lost":1,"rating":1500,"deviation":0}"#] {
      let broken = old.replacingOccurrences(of: #""lost":1}"#, with: bad)
      #expect(throws: (any Error).self) { try ServerMessage.decode(Array(broken.utf8)) }
    }
  }
}
