import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboClient

/// The player's core on real connections: ``PlayerDriver`` against an in-process server
/// through real TLS.
@Suite("Player: the driver on a real server", .serialized)
struct PlayerDriverTests {
  /// A player who picks `weapon` whenever it is their move and leaves once the match is
  /// over; `connections` records every connection status the match showed.
  @MainActor
  final class Player {
    let driver: PlayerDriver
    var connections: [ClientContext.Connection] = []
    private var left = false

    init(name: String, weapon: Weapon, port: Int) throws {
      let tls = try ClientTestCertificates.clientTLS()
      driver = PlayerDriver(
        configuration: PlayerConfiguration(name: name, room: "den"),
        connect: { try await ServerConnection.connect(host: "127.0.0.1", port: port, tls: tls) })
      driver.changed = { [weak self] state in
        guard let self else { return }
        if self.connections.last != state.match.context.connection {
          self.connections.append(state.match.context.connection)
        }
        if state.match.isMyMove { self.driver.command(.pick(weapon)) }
        if state.match.view?.phase == .over, !self.left {
          self.left = true
          self.driver.command(.leave)
        }
      }
    }
  }

  /// Runs both players to their ends; one still running after 60 s is hung up.
  @MainActor
  static func play(_ alice: Player, _ bob: Player) async -> (PlayerEnd, PlayerEnd) {
    let stop = Task { @MainActor in
      try await Task.sleep(for: .seconds(60))
      alice.driver.command(.hangUp)
      bob.driver.command(.hangUp)
    }
    defer { stop.cancel() }
    async let aliceEnds = alice.driver.run()
    let bobEnds = await bob.driver.run()
    return (await aliceEnds, bobEnds)
  }

  @Test("two players play a match to its end and leave")
  @MainActor
  func match() async throws {
    try await withTestServer { server in
      let alice = try Player(name: "Alice", weapon: .rock, port: server.port)
      let bob = try Player(name: "Bob", weapon: .scissors, port: server.port)
      let (aliceEnds, bobEnds) = await Self.play(alice, bob)
      #expect(aliceEnds == .left)
      #expect(bobEnds == .left)
      // Whoever connected first has seat one: rock beats scissors either way.
      let view = alice.driver.core.state.match.view
      #expect(view?.winner != nil && view?.winner == view?.you)
      #expect(alice.connections == [.connected, .closed("you left the game")])
    }
  }

  @Test("a connection cut mid-match is taken back with the seat's token, and the match ends")
  @MainActor
  func cutConnection() async throws {
    try await withTestServer { server in
      let alice = try Player(name: "Alice", weapon: .rock, port: server.port)
      let bob = try Player(name: "Bob", weapon: .scissors, port: server.port)
      var cut = false
      let picking = alice.driver.changed
      alice.driver.changed = { state in
        // After the first round, Alice's link drops as a network would drop it; she picks
        // again only on the new connection, so the match cannot end before the cut.
        if !cut, state.match.view?.history.count == 1 {
          cut = true
          Task { await alice.driver.cutConnection() }
        }
        if cut, !alice.connections.contains(.reconnecting(attempt: 1)) {
          if case .reconnecting = state.match.context.connection { picking?(state) }
          return
        }
        picking?(state)
      }
      let (aliceEnds, bobEnds) = await Self.play(alice, bob)
      #expect(aliceEnds == .left)
      #expect(bobEnds == .left)
      #expect(cut)
      #expect(alice.connections.contains(.reconnecting(attempt: 1)))
      let view = alice.driver.core.state.match.view
      #expect(view?.winner != nil && view?.winner == view?.you)
      #expect(alice.driver.core.state.match.view?.history.count ?? 0 >= 2)
    }
  }
}
