import NIOCore
import NIOEmbedded
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub
@testable import RoshamboServer

/// Following the lobby: when views go out (``LobbyFeed``, alone), and what a follower
/// sees over real TLS as people come, play and go.
@Suite("Server: following the lobby")
struct LobbyFollowTests {
  /// An embedded loop must stay on the thread that made it, so each test that needs one
  /// makes its own (a stored property would be made and dropped wherever the suite's
  /// instance is, which for the async tests is another thread).
  func link(_ id: Int, on loop: EmbeddedEventLoop) -> Peer { Peer(id: id) }

  @Test("a new follower gets the current view at once; changes go to all, 250 ms apart")
  func feed() {
    let loop = EmbeddedEventLoop()
    var feed = LobbyFeed()
    // Nobody follows: nothing, whatever changes.
    feed.lobbyChanged()
    #expect(feed.decide(now: 0, followers: 0) == .nothing)
    let alice = link(1, on: loop)
    feed.followed(by: alice, takesPatches: false)
    #expect(feed.decide(now: 1_000, followers: 1) == .everyone(seq: 1))
    #expect(feed.decide(now: 1_001, followers: 1) == .nothing)
    // Changes within 250 ms of the last view wait for the next moment.
    feed.lobbyChanged()
    #expect(feed.decide(now: 1_100, followers: 1) == .later(at: 1_250))
    feed.lobbyChanged()
    #expect(feed.decide(now: 1_200, followers: 1) == .later(at: 1_250))
    #expect(feed.decide(now: 1_250, followers: 1) == .everyone(seq: 2))
    // A newcomer meanwhile gets the view the others have, without waiting.
    feed.lobbyChanged()
    let bob = link(2, on: loop)
    feed.followed(by: bob, takesPatches: false)
    guard case .newcomers(let links, let seq) = feed.decide(now: 1_300, followers: 2) else {
      Issue.record("a newcomer must not wait for the next view")
      return
    }
    #expect(links.map(\.id) == [2])
    #expect(seq == 2)
    #expect(feed.decide(now: 1_300, followers: 2) == .later(at: 1_500))
    #expect(feed.decide(now: 1_500, followers: 2) == .everyone(seq: 3))
  }

  @Test("a new patch follower while a change waits gets the next view to all, not a stale one")
  func patchNewcomerWaitsForTheChange() {
    var feed = LobbyFeed()
    feed.followed(by: Peer(id: 1), takesPatches: true)
    feed.lobbyChanged()
    #expect(feed.decide(now: 1_000, followers: 1) == .everyone(seq: 1))
    // Someone arrives: the view sent at seq 1 no longer shows the lobby.
    feed.lobbyChanged()
    feed.followed(by: Peer(id: 2), takesPatches: true)
    feed.followed(by: Peer(id: 3), takesPatches: false)
    // The whole-view newcomer is served now; the patch newcomer waits with the change.
    #expect(feed.decide(now: 1_100, followers: 3) == .newcomers([Peer(id: 3)], seq: 1))
    #expect(feed.decide(now: 1_100, followers: 3) == .later(at: 1_250))
    #expect(feed.decide(now: 1_250, followers: 3) == .everyone(seq: 2))
    #expect(feed.servedNewcomers == [Peer(id: 2)], "its first view is that one, whole")
    // Nothing pending: a patch newcomer gets the view sent to all at once (it is current).
    feed.followed(by: Peer(id: 4), takesPatches: true)
    #expect(feed.decide(now: 1_260, followers: 4) == .newcomers([Peer(id: 4)], seq: 2))
  }

  @Test("many followers or big views: views to all go out less often, within the byte budget")
  func paced() {
    #expect(LobbyFeed.interval(followers: 10, viewBytes: 2_000) == LobbyFeed.interval)
    // 1,000 followers of 16 kB views: 16 MB a view, at 8 MB/s one every 2 s.
    #expect(LobbyFeed.interval(followers: 1_000, viewBytes: 16_000) == 2_000)
    var feed = LobbyFeed()
    feed.lobbyChanged()
    #expect(feed.decide(now: 0, followers: 1_000) == .everyone(seq: 1))
    feed.lastViewBytes = 16_000
    feed.lobbyChanged()
    #expect(feed.decide(now: 300, followers: 1_000) == .later(at: 2_000))
    #expect(feed.decide(now: 2_000, followers: 1_000) == .everyone(seq: 2))
  }

  @Test("a follower sees people arrive, play and go, and recent matches; never a pick")
  func follow() async throws {
    try await withServer(settings: .init(bestOf: 1)) { server in
      let eve = try await TestClient.connect(port: server.port)
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          id: 1))
      let first = try await eve.lobby { _ in true }
      #expect(first.people == [.init(name: "Eve", status: .idle, room: nil)])
      #expect(first.rooms.isEmpty)

      let alice = try await TestClient.connect(port: server.port)
      try await alice.hello(name: "Alice", room: "den")
      let waiting = try await eve.lobby { $0.peopleCount == 2 }
      #expect(waiting.people.first == .init(name: "Alice", status: .waiting, room: "den"))
      #expect(waiting.rooms.map(\.phase) == [.waiting])

      let bob = try await TestClient.connect(port: server.port)
      try await bob.hello(name: "Bob", room: "den")
      let carol = try await TestClient.connect(port: server.port)
      try await carol.hello(name: "Carol", room: "den", role: .spectator)
      let playing = try await eve.lobby { view in
        view.peopleCount == 4 && view.rooms.first?.phase == .choosing
      }
      #expect(
        playing.people == [
          .init(name: "Alice", status: .playing, room: "den"),
          .init(name: "Bob", status: .playing, room: "den"),
          .init(name: "Carol", status: .watching, room: "den"),
          .init(name: "Eve", status: .idle, room: nil),
        ])
      #expect(playing.rooms.first?.players == ["Alice", "Bob"])
      #expect(playing.rooms.first?.spectators == 1)

      // Alice picks: nothing of it reaches the lobby's follower before the round resolves.
      alice.send(.choose(round: 1, weapon: .rock, id: 2))
      _ = try await alice.state { $0.player(.one)?.chosen == true }
      bob.send(.choose(round: 1, weapon: .scissors, id: 3))
      let over = try await eve.lobby { view in
        view.rooms.first?.phase == .over && !view.recent.isEmpty
      }
      #expect(over.rooms.first?.scores == [1, 0])
      #expect(over.recent.first?.players == ["Alice", "Bob"])
      // Without player identities the match rates nobody, and nobody is listed.
      #expect(over.leaders.isEmpty)
      for frame in eve.inbox.frames {
        let text = String(decoding: frame, as: UTF8.self)
        for secret in ["rock", "scissors", "token", "sha256:"] {
          #expect(!text.contains(secret), "a lobby view showed \(secret): \(text)")
        }
      }

      // Leaving is seen too; the views' seq only rose.
      await bob.close()
      await carol.close()
      _ = try await eve.lobby { $0.peopleCount == 2 && $0.rooms.first?.spectators == 0 }
      let seqs = eve.inbox.messages.compactMap { message -> Int? in
        if case .lobby(let seq, _) = message { seq } else { nil }
      }
      #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "\(seqs)")
      await alice.close()
      await eve.close()
    }
  }

  @Test("someone arriving within 250 ms of the last view is still shown to everyone")
  func arrivalSoonAfterAView() async throws {
    try await withServer { server in
      let alice = try await TestClient.connect(port: server.port)
      alice.send(
        .hello(
          protocol: WireProtocol.version, name: "Alice", role: .lobby, room: nil, resume: nil,
          id: 1))
      _ = try await alice.lobby { _ in true }
      // Bob comes at once: he is sent the current view, and Alice the one with him in it.
      let bob = try await TestClient.connect(port: server.port)
      bob.send(
        .hello(
          protocol: WireProtocol.version, name: "Bob", role: .lobby, room: nil, resume: nil,
          id: 1))
      _ = try await bob.lobby { _ in true }
      let both = try await alice.lobby { $0.peopleCount == 2 }
      #expect(both.people.map(\.name) == ["Alice", "Bob"])
      await alice.close()
      await bob.close()
    }
  }

  @Test("a follower's second hello, or a follower choosing, is refused; leave closes it")
  func refusals() async throws {
    try await withServer { server in
      let eve = try await TestClient.connect(port: server.port)
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .lobby, room: nil, resume: nil,
          id: 1))
      _ = try await eve.lobby { _ in true }
      eve.send(
        .hello(
          protocol: WireProtocol.version, name: "Eve", role: .player, room: "den", resume: nil,
          id: 2))
      _ = try await eve.expectError(.badMessage)
      eve.send(.choose(round: 1, weapon: .rock, id: 3))
      _ = try await eve.expectError(.notPlaying)
      eve.send(.leave(id: 4))
      await eve.waitUntilClosed()
      #expect(eve.inbox.isClosed)
    }
  }
}

extension TestClient {
  /// Skips messages until a lobby view satisfies `condition`.
  func lobby(where condition: (LobbyView) -> Bool) async throws -> LobbyView {
    while true {
      let message = try await next()
      if case .lobby(_, let view) = message, condition(view) { return view }
      if case .error(let error, _) = message {
        throw TestClientError.unexpected("error \(error.code): \(error.message)")
      }
    }
  }
}
