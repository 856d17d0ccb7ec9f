import Foundation
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import Testing

@testable import RoshamboJournal

/// A seat's commitment as a client makes it.
private func commit(
  _ client: TestClient, room: String, round: Int, weapon: Weapon, nonce: [UInt8]
) -> String {
  let digest = Commitment.digest(
    room: room, round: round, seat: client.seat!, weapon: weapon, nonce: nonce)
  client.send(.commit(round: round, digest: digest, id: 7))
  return digest
}

/// Each weapon name found in a file of the data directory, with the file.
private func weaponsOnDisk(in directory: String) throws -> [String] {
  var found: [String] = []
  for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
    for weapon in ["rock", "paper", "scissors", "lizard", "spock"]
    where bytes.range(of: Data(weapon.utf8)) != nil {
      found.append("\(weapon) in \(file)")
    }
  }
  return found
}

/// Ann and Bob seated in a fair room `room` (Ann asked for it), the match started.
private func fairPair(port: Int, room: String) async throws -> (TestClient, TestClient) {
  let ann = try await TestClient.connect(port: port)
  let bob = try await TestClient.connect(port: port)
  try await ann.hello(name: "Ann", room: room, fair: true)
  try await bob.hello(name: "Bob", room: room, fair: false)
  _ = try await bob.state { $0.phase == .choosing }
  return (ann, bob)
}

@Suite("Fair rooms over TLS", .serialized)
struct FairMatchTests {
  let annNonce = Array(repeating: UInt8(1), count: 32)
  let bobNonce = Array(repeating: UInt8(2), count: 32)

  @Test("a fair round end to end: digests only until both are in, reveals checked, secrecy on disk")
  func fairRound() async throws {
    let data = temporaryDataDirectory()
    try await withServer(dataDirectory: data) { server in
      try await playFairRound(port: server.port, data: data)
    }
  }

  func playFairRound(port: Int, data: String) async throws {
    let ann = try await TestClient.connect(port: port)
    let bob = try await TestClient.connect(port: port)
    try await ann.hello(name: "Ann", room: "fr", fair: true)
    _ = try await ann.nextState()
    try await bob.hello(name: "Bob", room: "fr", fair: false)
    let started = try await bob.state { $0.phase == .choosing }
    #expect(started.fair)

    let annDigest = commit(ann, room: "fr", round: 1, weapon: .rock, nonce: annNonce)
    let bobSees = try await bob.state { $0.player(.one)?.chosen == true }
    #expect(bobSees.player(.one)?.commitment == nil, "not before both are in")
    let bobDigest = commit(bob, room: "fr", round: 1, weapon: .scissors, nonce: bobNonce)
    let annSees = try await ann.state { $0.player(.two)?.commitment != nil }
    #expect(annSees.player(.two)?.commitment == bobDigest)
    #expect(annSees.player(.one)?.commitment == annDigest)
    #expect(annSees.deadline != nil, "the reveal stage has a deadline")

    // Both are bound, and (saved before broadcast) the journal has both commitments:
    // no weapon anywhere on disk.
    let found = try weaponsOnDisk(in: data)
    #expect(found.isEmpty, "\(found)")

    ann.send(.reveal(round: 1, weapon: .rock, nonce: Commitment.hex(annNonce), id: 8))
    bob.send(.reveal(round: 1, weapon: .scissors, nonce: Commitment.hex(bobNonce), id: 9))
    let resolved = try await ann.state { $0.history.count == 1 }
    let round = try #require(resolved.history.first)
    #expect(round.weapons == [.rock, .scissors])
    #expect(round.winner == .one)
    #expect(round.commitments == [annDigest, bobDigest])
    #expect(round.nonces == [Commitment.hex(annNonce), Commitment.hex(bobNonce)])
    // The same scan sees the reveals once they are journaled (it reads what is on disk).
    #expect(try weaponsOnDisk(in: data).contains { $0.hasPrefix("scissors in") })
    let checks = Commitment.verify(
      bobDigest, room: "fr", round: 1, seat: .two, weapon: .scissors,
      nonce: Commitment.hex(bobNonce))
    #expect(checks)
    await ann.close()
    await bob.close()
  }

  @Test("history marks the matches that were fair")
  func history() async throws {
    let data = temporaryDataDirectory()
    try await withServer(settings: .init(bestOf: 1), dataDirectory: data) { server in
      try await playOneRoundMatch(port: server.port)
    }
    let report = try MatchHistory(dataDirectory: data).report(limit: 5)
    let lines = report.split(separator: "\n")
    #expect(
      lines.contains { $0.contains("fairh") && $0.contains("fair: every round") }, "\(report)")
    #expect(lines.contains { $0.contains("plainh") && !$0.contains("fair:") }, "\(report)")
  }

  func playOneRoundMatch(port: Int) async throws {
    for (room, fair) in [("fairh", true), ("plainh", false)] {
      let ann = try await TestClient.connect(port: port)
      let bob = try await TestClient.connect(port: port)
      try await ann.hello(name: "Ann", room: room, fair: fair)
      try await bob.hello(name: "Bob", room: room, fair: fair)
      _ = try await bob.state { $0.phase == .choosing }
      if fair {
        _ = commit(ann, room: room, round: 1, weapon: .rock, nonce: annNonce)
        _ = commit(bob, room: room, round: 1, weapon: .scissors, nonce: bobNonce)
        _ = try await ann.state { $0.player(.two)?.commitment != nil }
        ann.send(.reveal(round: 1, weapon: .rock, nonce: Commitment.hex(annNonce), id: 8))
        bob.send(.reveal(round: 1, weapon: .scissors, nonce: Commitment.hex(bobNonce), id: 9))
      } else {
        ann.send(.choose(round: 1, weapon: .rock, id: 8))
        bob.send(.choose(round: 1, weapon: .scissors, id: 9))
      }
      _ = try await bob.state { $0.phase == .over }
      await ann.close()
      await bob.close()
    }
  }

  @Test("a reveal that does not match its commitment loses the round")
  func lyingReveal() async throws {
    try await withServer { server in
      let (ann, bob) = try await fairPair(port: server.port, room: "lie")
      _ = commit(ann, room: "lie", round: 1, weapon: .rock, nonce: annNonce)
      _ = commit(bob, room: "lie", round: 1, weapon: .rock, nonce: bobNonce)
      _ = try await ann.state { $0.player(.two)?.commitment != nil }
      // Ann committed to rock and claims paper, which would beat Bob's rock.
      ann.send(.reveal(round: 1, weapon: .paper, nonce: Commitment.hex(annNonce), id: 8))
      bob.send(.reveal(round: 1, weapon: .rock, nonce: Commitment.hex(bobNonce), id: 9))
      let resolved = try await bob.state { $0.history.count == 1 }
      #expect(resolved.history[0].winner == .two)
      #expect(resolved.history[0].weapons == [nil, .rock])
      await ann.close()
      await bob.close()
    }
  }

  @Test(
    "a client that cannot play fair is refused from a fair room; choose and commit are refused where they do not belong"
  )
  func refusals() async throws {
    try await withServer { server in
      let ann = try await TestClient.connect(port: server.port)
      try await ann.hello(name: "Ann", room: "fr2", fair: true)
      let old = try await TestClient.connect(port: server.port)
      old.send(
        .hello(
          protocol: WireProtocol.version, name: "Old", role: .player, room: "fr2", resume: nil,
          id: 3))
      let (refused, re) = try await old.expectError(.fairRoom)
      #expect(re == 3)
      #expect(refused.message.contains("upgrade"))
      let bob = try await TestClient.connect(port: server.port)
      try await bob.hello(name: "Bob", room: "fr2", fair: false)
      _ = try await bob.state { $0.phase == .choosing }
      bob.send(.choose(round: 1, weapon: .rock, id: 4))
      #expect(try await bob.expectError(.fairRoom).re == 4)

      let carol = try await TestClient.connect(port: server.port)
      let dave = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol", room: "plain", fair: false)
      // Asking for a fair room that exists as an ordinary one is refused, not ignored.
      let eve = try await TestClient.connect(port: server.port)
      let asked = try await eve.hello(name: "Eve", room: "plain", fair: true)
      guard case .error(let notFair, _) = asked else {
        Issue.record("expected a refusal, got \(asked)")
        return
      }
      #expect(notFair.code == .fairRoom && notFair.message.contains("is not fair"))
      try await dave.hello(name: "Dave", room: "plain")
      let plain = try await dave.state { $0.phase == .choosing }
      #expect(!plain.fair)
      dave.send(.commit(round: 1, digest: String(repeating: "a", count: 64), id: 5))
      #expect(try await dave.expectError(.notFair).re == 5)
      for client in [ann, old, bob, carol, dave] { await client.close() }
    }
  }

  @Test("a restarted server resumes a fair round from its journal, commitments and all")
  func restart() async throws {
    let data = temporaryDataDirectory()
    var annDigest = ""
    try await withServer(dataDirectory: data) { server in
      let (ann, bob) = try await fairPair(port: server.port, room: "keep")
      annDigest = commit(ann, room: "keep", round: 1, weapon: .paper, nonce: annNonce)
      _ = try await bob.state { $0.player(.one)?.chosen == true }
      await ann.close()
      await bob.close()
    }
    try await withServer(dataDirectory: data) { server in
      let room = try #require(try await server.lobby().rooms["keep"])
      #expect(room.settings.fair)
      #expect(room.seats[.one]?.commitment == annDigest)
      #expect(room.seats.values.allSatisfy { $0.pick == nil })
    }
  }
}
