import Foundation
import ProcessFixtures
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import Testing

/// Match records end to end: two `roshambo bot` processes play a fair match over TLS on
/// a server with a journal; the server's record (asked for with `match`) and each
/// player's own (`--save-record`) are checked by `roshambo verify`, compared, replayed,
/// forged and refused, and checked again by `scripts/verify_record.py`.
@Suite("Match records over TLS", .serialized)
struct MatchRecordProcessTests {
  let directory =
    NSTemporaryDirectory() + "roshambo-client-tests-\(getpid())/records-\(UUID().uuidString)"

  /// Runs `roshambo ARGUMENTS` with no server options (verify, replay of a file).
  func roshambo(_ arguments: [String]) async throws -> (status: Int32, printed: String) {
    try await run(repositoryRoot + "/.build/debug/roshambo", arguments)
  }

  func run(_ executable: String, _ arguments: [String]) async throws -> (
    status: Int32, printed: String
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let (status, printed) = await awaitExit(process, pipe)
    return (status, printed)
  }

  func write(_ match: FinishedMatch, _ name: String) throws -> String {
    let path = directory + "/" + name
    try Data(MatchRecord.encode(match)).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test("verify_record.py keeps the format's limits, and says what is wrong instead of failing")
  func pythonLimits() async throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let draw = RoundResult(round: 1, weapons: [.rock, .rock], winner: nil, reason: nil)
    let ordinary = FinishedMatch(
      room: "duel-1", finishedAt: 1_000, ruleset: "classic", bestOf: 1, players: ["Ann", "Bob"],
      scores: [0, 0], winner: "Ann", forfeit: true, fair: false, rounds: [draw])
    var long = ordinary
    long.rounds = (1...101).map { number in
      RoundResult(round: number, weapons: [.rock, .rock], winner: nil, reason: nil)
    }
    var named = ordinary
    named.players[1] = String(repeating: "b", count: 300)
    var room = ordinary
    room.room = "duel 1;"
    var cases = [
      (try write(long, "long.json"), "at most 100 rounds"),
      (try write(named, "named.json"), "at most 256 bytes"),
      (try write(room, "room.json"), "\"room\""),
    ]
    // What the hostile review passed: round 2^70, finishedAt 1e400, weapons as an object,
    // round 1.0, round -5, a NUL in a name.
    let genuine = String(decoding: MatchRecord.encode(ordinary), as: UTF8.self)
    for (name, from, to, reason) in [
      ("huge-round", #""round":1,"#, #""round":1180591620717411303424,"#, "a round's number"),
      ("infinite-time", #""finishedAt":1000"#, #""finishedAt":1e400"#, "\"finishedAt\""),
      ("weapons-object", #""weapons":["rock","rock"]"#, #""weapons":{"a":1}"#, "weapons"),
      ("round-float", #""round":1,"#, #""round":1.0,"#, "a round's number"),
      ("round-negative", #""round":1,"#, #""round":-5,"#, "a round's number"),
      ("nul-name", #""Ann""#, #""A\u0000nn""#, "control character"),
    ] {
      #expect(genuine.contains(from), "\(name): \(from) not in \(genuine)")
      let path = directory + "/" + name + ".json"
      try Data(genuine.replacingOccurrences(of: from, with: to).utf8).write(
        to: URL(fileURLWithPath: path))
      cases.append((path, reason))
    }
    let deep = directory + "/deep.json"
    try Data(String(repeating: "[", count: 100_000).utf8).write(to: URL(fileURLWithPath: deep))
    cases.append((deep, "nested"))
    let large = directory + "/large.json"
    let padded = MatchRecord.encode(ordinary) + Array(repeating: UInt8(ascii: " "), count: 300_000)
    try Data(padded).write(to: URL(fileURLWithPath: large))
    cases.append((large, "256 KiB"))
    for (file, reason) in cases {
      let python = try await run(
        "/usr/bin/python3", [repositoryRoot + "/scripts/verify_record.py", file])
      #expect(python.status == 65, "\(file): \(python.printed)")
      #expect(python.printed.contains(reason), "\(file): \(python.printed)")
      #expect(!python.printed.contains("Traceback"), "\(file): \(python.printed)")
    }
  }

  @Test(
    "a fair match's record: verified, the same as each player's own, replayed; forgeries refused")
  func fairMatch() async throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try await withTestServer(dataDirectory: directory + "/data") { server in
      let bots = try ["Ann", "Bob"].map { name in
        try startRoshambo(
          [
            "bot", "--room", "fair1", "--fair", "--matches", "1", "--name", name,
            "--strategy", "random", "--save-record", directory + "/own-" + name,
          ], port: server.port)
      }
      for (bot, pipe) in bots {
        let (status, printed) = await awaitExit(bot, pipe)
        #expect(status == 0, "\(printed)")
      }
      let tls = try ClientTestCertificates.clientTLS()
      let connection = try await ServerConnection.connect(
        host: "127.0.0.1", port: server.port, tls: tls)
      let record = try await RecordRequest.fetch(connection, name: "Viewer", id: 1)
      #expect(record.id == 1 && record.fair && record.room == "fair1")
      #expect(Set(record.players) == ["Ann", "Bob"])
      let rounds = try #require(record.rounds)
      #expect(rounds.count >= 2 && rounds.allSatisfy { $0.isFair && $0.at != nil })
      let verification = RecordVerification(record)
      #expect(verification.isProof, "\(verification.findings)")

      // Each player's own record is what the server published.
      let serverFile = try write(record, "server.json")
      for name in ["Ann", "Bob"] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/own-" + name)
        #expect(files.count == 1)
        let own = try RecordFile.read(path: directory + "/own-\(name)/" + files[0])
        #expect(own.id == nil && RecordComparison.differences(own, record).isEmpty)
        let verified = try await roshambo(
          ["verify", serverFile, "--compare", directory + "/own-\(name)/" + files[0]])
        #expect(verified.status == 0, "\(verified.printed)")
        #expect(verified.printed.contains("Consistent: every reveal matches its commitment"))
        #expect(verified.printed.contains("The two records agree"))
      }

      // Replayed from the server, piped: a line per round, the result last.
      let replayed = try await run(
        repositoryRoot + "/.build/debug/roshambo",
        [
          "replay", "1", "--host", "127.0.0.1", "--port", String(server.port), "--ca",
          ClientTestCertificates.files.caCertificate, "--name", "Viewer",
        ])
      #expect(replayed.status == 0, "\(replayed.printed)")
      let lines = replayed.printed.split(separator: "\n")
      #expect(lines.count == rounds.count)
      #expect(lines.last?.contains("WINS") == true, "\(replayed.printed)")

      // A forged weapon, swapped nonces, a wrong winner, a round taken out: refused, saying why.
      let decided = try #require(rounds.firstIndex { $0.weapons[0] != nil && $0.weapons[1] != nil })
      var weapon = record
      let played = rounds[decided].weapons[0]!
      weapon.rounds![decided].weapons[0] = Ruleset.classic.weapons.first { $0 != played }
      var nonces = record
      nonces.rounds![decided].nonces.reverse()
      var winner = record
      winner.winner = record.players.first { $0 != record.winner }!
      var removed = record
      removed.rounds!.remove(at: rounds.count > 2 ? 1 : 0)
      let forgeries: [(FinishedMatch, String)] = [
        (weapon, "do not match the commitment"), (nonces, "do not match the commitment"),
        (winner, "the winner is said to be"),
        (removed, rounds.count > 2 ? "a round is missing" : "the record starts at round 2"),
      ]
      for (index, (forged, reason)) in forgeries.enumerated() {
        let file = try write(forged, "forged-\(index).json")
        #expect(!RecordVerification(forged).isProof)
        let refused = try await roshambo(["verify", file])
        if rounds.count > 2 || index < 3 {
          #expect(refused.status == 65, "\(refused.printed)")
          #expect(refused.printed.contains("Refused:"))
        }
        #expect(refused.printed.contains(reason), "\(refused.printed)")
        let python = try await run(
          "/usr/bin/python3", [repositoryRoot + "/scripts/verify_record.py", file])
        if rounds.count > 2 || index < 3 { #expect(python.status == 65, "\(python.printed)") }
      }
      let python = try await run(
        "/usr/bin/python3", [repositoryRoot + "/scripts/verify_record.py", serverFile])
      #expect(python.status == 0 && python.printed.hasSuffix("holds\n"), "\(python.printed)")

      // A match the server does not keep.
      let again = try await ServerConnection.connect(
        host: "127.0.0.1", port: server.port, tls: tls)
      await #expect {
        try await RecordRequest.fetch(again, name: "Reader", id: 99)
      } throws: { error in
        (error as? RecordRequest.Refused)?.error.code == .noSuchMatch
      }
    }
  }
}
