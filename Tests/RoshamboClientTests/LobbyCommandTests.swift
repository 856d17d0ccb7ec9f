import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboProtocol
import RoshamboTLS
import Testing

/// `roshambo who` and `roshambo lobby`: the real program against a real server, and
/// against a hostile one.
@Suite("Looking at the lobby", .serialized)
struct LobbyCommandTests {
  @Test("who prints who is here and the rooms, then exits 0")
  func who() async throws {
    try await withTestServer { server in
      let tls = try ClientTestCertificates.clientTLS()
      let bob = try await ServerConnection.connect(host: "127.0.0.1", port: server.port, tls: tls)
      bob.send(
        .hello(
          protocol: WireProtocol.version, name: "Bob", role: .player, room: "den", resume: nil,
          fair: false, id: 1))
      try await waitUntil("Bob is seated") {
        try await server.lobby().rooms["den"]?.seats[.one]?.name == "Bob"
      }
      let (status, output) = try await runRoshambo(["who", "--name", "Eve"], port: server.port)
      #expect(status == 0, "\(output)")
      // The first program of the test process to run makes the player identity, and says
      // so on standard error first: that notice is not the lobby's.
      let printed =
        output.hasPrefix("roshambo: Made your player identity")
        ? String(output[output.range(of: "lobby:")!.lowerBound...]) : output
      #expect(
        printed == """
          lobby: 2 people, 1 room
          people:
            Bob waiting in den
            Eve in the lobby
          rooms:
            den: Bob waiting for an opponent (best of 3, classic)

          """, "\(printed)")
      await bob.close()
    }
  }

  @Test("who prints recent matches; a forfeit between keyless players lists nobody")
  func whoRatings() async throws {
    let data = NSTemporaryDirectory() + "roshambo-who-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: data) }
    try await withTestServer(dataDirectory: data) { server in
      let tls = try ClientTestCertificates.clientTLS()
      var seated: [ServerConnection] = []
      for name in ["Bob", "Ann"] {
        let connection = try await ServerConnection.connect(
          host: "127.0.0.1", port: server.port, tls: tls)
        connection.send(
          .hello(
            protocol: WireProtocol.version, name: name, role: .player, room: "den", resume: nil,
            fair: false, id: 1))
        seated.append(connection)
        // Bob sits first, so the record names him first (the hellos would otherwise race).
        try await waitUntil("\(name) is seated") {
          try await server.lobby().rooms["den"]?.seats.values.contains { $0.name == name } == true
        }
      }
      try await waitUntil("the match runs") {
        try await server.lobby().rooms["den"]?.phase == .choosing
      }
      // Ann gives the match up before a round: Bob wins it by forfeit. Neither has a
      // player identity, so nobody is rated or listed.
      seated[1].send(.leave(id: 2))
      try await waitUntil("the match is over") {
        try await server.lobby().rooms["den"]?.phase == .over
      }
      // The lobby reads the leaderboard at most every 2 s: look until it shows.
      var printed = ""
      for _ in 0..<40 {
        printed = try await runRoshambo(["who", "--name", "Eve"], port: server.port).printed
        if printed.contains("recent matches") { break }
        try await Task.sleep(for: .milliseconds(250))
      }
      let board = printed.split(separator: "\n").drop { !$0.hasPrefix("leaderboard") }
      #expect(
        Array(board) == [
          "leaderboard: nobody yet (rated matches against several different people list a player)",
          "recent matches (roshambo replay NUMBER):",
          "  #1 den: Bob 0–0 Ann, Bob won by forfeit",
        ], "\(printed)")
      for connection in seated { await connection.close() }
    }
  }

  @Test("lobby --json prints one JSON object per view that any JSON reader takes")
  func json() async throws {
    try await withTestServer { server in
      let (process, pipe) = try startRoshambo(
        ["lobby", "--json", "--name", "Eve"], port: server.port)
      let line = try await readLine(from: pipe)
      process.terminate()
      process.waitUntilExit()
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["seq"] as? Int == 1, "\(line)")
      let lobby = object?["lobby"] as? [String: Any]
      #expect(lobby?["peopleCount"] as? Int == 1)
      #expect((lobby?["people"] as? [[String: Any]])?.first?["status"] as? String == "idle")
    }
  }

  @Test("names with escape sequences from a hostile server are shown harmlessly")
  func hostileNames() async throws {
    let view =
      #"{"people":[{"name":"\u001b[2JEvil","status":"idle","room":null}],"peopleCount":1,"#
      + #""rooms":[{"name":"den","players":["\u001b]0;owned\u0007",null],"scores":[0,0],"#
      + #""round":1,"phase":"waiting","bestOf":3,"ruleset":"classic","fair":false,"spectators":0}],"#
      + #""roomCount":1,"leaders":[{"name":"\u009b2Jx","won":1,"lost":0}]}"#
    let server = try await HostileServer(frames: [
      frame(#"{"type":"lobby","seq":1,"lobby":"# + view + "}")
    ])
    defer { Task { await server.close() } }
    let (status, printed) = try await runRoshambo(["who", "--name", "Eve"], port: server.port)
    #expect(status == 0, "\(printed)")
    #expect(
      !printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x07 })
    #expect(printed.contains("Evil in the lobby"), "\(printed)")
  }

  @Test("a server that answers the lobby with a room's state broke the protocol: exit 76")
  func roomStateToFollower() async throws {
    let server = try await HostileServer(frames: [
      frame(#"{"type":"welcome","protocol":1,"room":"den","seat":1,"token":"t"}"#)
    ])
    defer { Task { await server.close() } }
    let (status, printed) = try await runRoshambo(["who", "--name", "Eve"], port: server.port)
    #expect(status == 76, "\(printed)")
    #expect(printed.contains("a room's message to a connection following the lobby"), "\(printed)")
  }

  /// The first line `pipe` carries (10 s at most).
  func readLine(from pipe: Pipe) async throws -> String {
    try await blocking { try Self.readLineNow(from: pipe) }
  }

  static func readLineNow(from pipe: Pipe) throws -> String {
    var seen = Data()
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      seen.append(chunk)
      if let newline = seen.firstIndex(of: 10) {
        return String(decoding: seen[..<newline], as: UTF8.self)
      }
    }
    throw TimedOut(description: "no line within 10 s: \(String(decoding: seen, as: UTF8.self))")
  }
}
