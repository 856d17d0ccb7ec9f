import Foundation
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboServer

/// The `match` request over real TLS: the record of a finished match, or `no_such_match`
/// saying why; the lobby lists the match among its recent ones.
@Suite("The match request")
struct MatchRequestTests {
  /// The next message that is neither a room's `state` nor a lobby view.
  func answer(_ client: TestClient) async throws -> ServerMessage {
    while true {
      let message = try await client.next()
      switch message {
      case .state, .lobby: continue
      default: return message
      }
    }
  }

  @Test("a finished match's record, to a player or a follower; a number never kept is refused")
  func record() async throws {
    try await withServer(settings: .init(bestOf: 1)) { server in
      let early = try await TestClient.connect(port: server.port)
      early.send(.match(match: 1, id: 3))
      #expect(try await early.expectError(.helloFirst).re == 3)

      let watcher = try await TestClient.connect(port: server.port)
      watcher.send(
        .hello(
          protocol: WireProtocol.version, name: "Carol", role: .lobby, room: nil, resume: nil,
          id: 1))
      _ = try await watcher.lobby { _ in true }

      let (alice, _) = try await TestClient.matchPlayed(port: server.port)

      alice.send(.match(match: 1, id: 9))
      guard case .record(let match, let re) = try await answer(alice) else {
        Issue.record("no record")
        return
      }
      #expect(re == 9)
      #expect(match.id == 1 && match.room == "den" && match.players == ["Alice", "Bob"])
      #expect(match.scores == [1, 0] && match.winner == "Alice" && !match.forfeit)
      #expect(match.rounds?.map(\.weapons) == [[.rock, .scissors]])
      #expect(match.rounds?.first?.at != nil)
      #expect(RecordVerification(match).holds)

      // The lobby lists it among the recent matches, by its number.
      let listed = try await watcher.lobby { !$0.recent.isEmpty }
      #expect(
        listed.recent == [
          .init(
            id: 1, room: "den", players: ["Alice", "Bob"], scores: [1, 0], winner: .one,
            fair: false)
        ])
      watcher.send(.match(match: 1, id: 4))
      guard case .record(let same, 4) = try await answer(watcher) else {
        Issue.record("no record for the follower")
        return
      }
      #expect(same == match)

      watcher.send(.match(match: 2, id: 5))
      guard case .error(let error, 5) = try await answer(watcher) else {
        Issue.record("no refusal")
        return
      }
      #expect(error.code == .noSuchMatch && !error.fatal)
      #expect(error.message.contains("No match 2 is kept here"))
      // The connection goes on.
      watcher.send(.match(match: 1, id: 6))
      guard case .record(_, 6) = try await answer(watcher) else {
        Issue.record("no record after a refusal")
        return
      }
    }
  }

  @Test("a server without a data directory keeps no matches, and says so")
  func ephemeral() async throws {
    try await withServer(dataDirectory: nil) { server in
      let alice = try await TestClient.connect(port: server.port)
      try await alice.hello(name: "Alice", room: "den")
      alice.send(.match(match: 1, id: 2))
      guard case .error(let error, let re) = try await answer(alice) else {
        Issue.record("no refusal")
        return
      }
      #expect(error.code == .noSuchMatch && re == 2)
      #expect(error.message.contains("keeps no matches"))
    }
  }

  @Test("match needs a positive number")
  func decoding() {
    #expect(
      ClientMessage.decode(Array(#"{"type":"match","match":42,"id":1}"#.utf8))
        == .success(.match(match: 42, id: 1)))
    for bad in [#"{"type":"match"}"#, #"{"type":"match","match":0}"#] {
      guard case .failure(let error) = ClientMessage.decode(Array(bad.utf8)) else {
        Issue.record("\(bad) was accepted")
        continue
      }
      #expect(error.code == .badMessage && error.message.contains("positive integer"))
    }
    #expect(
      ClientMessage.decode(ClientMessage.match(match: 7, id: 3).encoded())
        == .success(.match(match: 7, id: 3)))
  }
}
