import RoshamboGame

/// One look at the lobby: a lobby follower's ``PlayerDriver`` that takes no challenges
/// and does not reconnect, on a connection of its own, which leaves at the first view.
/// `roshambo who` prints what it saw; `roshambo challenge` reads it to see whether the
/// person's lobby is open elsewhere.
///
/// Invariant: it only looks: taking no challenges, it replaces no lobby of the same
/// person's, and it never challenges, accepts or takes a seat.
enum LobbyLook {
  /// The first lobby view the server sends on `connection` to `name` (nil when the
  /// follower ended before one), and how the follower ended (nil: seated, which a look
  /// never is). Throws when no view or end came within `limit`.
  @MainActor
  static func firstView(
    on connection: ServerConnection, name: String, keepaliveMillis: Int64,
    within limit: Duration
  ) async throws -> (view: LobbyView?, end: PlayerEnd?) {
    let driver = PlayerDriver(
      configuration: PlayerConfiguration(
        name: name, role: .lobby, fair: true, keepaliveMillis: keepaliveMillis,
        reconnects: false),
      connection: connection, connect: { throw CancellationError() })
    var view: LobbyView?
    driver.lobbyNews = { [weak driver] news in
      guard case .view(_, let shown) = news, view == nil else { return }
      view = shown
      driver?.command(.leave)
    }
    let end = try await connection.answering("the lobby", within: limit) {
      await driver.follow()
    }
    return (view, end)
  }
}
