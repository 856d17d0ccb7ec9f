import RoshamboClient
import RoshamboGame
import RoshamboProtocol

/// A test's follower of the lobby on a connection the test made: a ``PlayerDriver`` whose
/// core follows the lobby as the real clients do (role `lobby`, fair, taking challenges or
/// not), handing each ``LobbyNews`` to the test until the test has seen enough. The test
/// asks for things (accept, decline, challenge) through ``driver``.
///
/// Invariants: the follower never connects again (a lost connection ends it); each news
/// reaches the test in the order the core said it, in the test's own isolation; once the
/// test has seen enough, the follower leaves the lobby and its connection is closed.
public struct LobbyFollower: Sendable {
  /// How a following ended.
  public enum Outcome: Equatable, Sendable {
    /// The test had seen enough: the follower left the lobby.
    case stopped
    /// The server seated this connection (an accepted challenge, a tournament's match);
    /// ``LobbyFollower/driver`` plays on in the room.
    case seated(room: String, seat: Seat)
    /// The session ended first, with why.
    case ended(PlayerEnd)
  }

  /// The driver of the follower's core: commands go to it.
  public let driver: PlayerDriver
  private let news: AsyncStream<LobbyNews>
  private let sink: AsyncStream<LobbyNews>.Continuation

  /// A follower named `name` on `connection`, pinging every `keepaliveMillis`; nothing is
  /// sent before ``follow(isolation:each:)``.
  @MainActor
  public init(
    _ connection: ServerConnection, name: String, takesChallenges: Bool = false,
    keepaliveMillis: Int64 = 3_000
  ) {
    let configuration = PlayerConfiguration(
      name: name, role: .lobby, fair: true, keepaliveMillis: keepaliveMillis, reconnects: false,
      takesChallenges: takesChallenges)
    driver = PlayerDriver(configuration: configuration, connection: connection) {
      throw OneConnectionOnly()
    }
    (news, sink) = AsyncStream.makeStream(of: LobbyNews.self)
    driver.lobbyNews = { [sink] in _ = sink.yield($0) }
  }

  /// Says `hello`, then calls `each` with each news (the seat aside) until it returns
  /// false, the server seats the connection, or the session ends; says which. Runs in the
  /// caller's isolation, so `each` may touch the caller's state. Call it once.
  public func follow(
    isolation: isolated (any Actor)? = #isolation, each: (LobbyNews) async -> Bool
  ) async -> Outcome {
    let driver = self.driver
    let sink = self.sink
    let session = Task { @MainActor in
      let end = await driver.follow()
      sink.finish()
      return end
    }
    for await item in news {
      if case .seated = item { break }
      guard await each(item) else {
        await driver.command(.leave)
        _ = await session.value
        return .stopped
      }
    }
    if let end = await session.value { return .ended(end) }
    let match = await driver.core.state.match
    guard let room = match.room, let seat = match.seat else {
      return .ended(.brokeProtocol("seated without a room or a seat"))
    }
    return .seated(room: room, seat: seat)
  }

  /// `LobbyFollower(connection, name:, takesChallenges:, keepaliveMillis:).follow(each:)`:
  /// for a test that only follows; `each` is also given the driver, to ask for things.
  @discardableResult
  public static func follow(
    _ connection: ServerConnection, name: String, takesChallenges: Bool = false,
    keepaliveMillis: Int64 = 3_000, isolation: isolated (any Actor)? = #isolation,
    each: (LobbyNews, PlayerDriver) async -> Bool
  ) async -> Outcome {
    let follower = await LobbyFollower(
      connection, name: name, takesChallenges: takesChallenges, keepaliveMillis: keepaliveMillis)
    return await follower.follow { await each($0, follower.driver) }
  }
}

/// The follower was asked for a second connection, which it never makes.
struct OneConnectionOnly: Error {}
