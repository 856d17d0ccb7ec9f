import Foundation
import RoshamboGame
import RoshamboJSON
import RoshamboProtocol
import Sysexits

/// The lobby printed on standard output, as plain lines or JSON lines: one view
/// (`roshambo who`), or every view until the server closes or the person presses Ctrl-C
/// (`roshambo lobby`, piped or with `--json`). It follows the lobby on a lobby follower's
/// ``PlayerDriver`` that takes no challenges and does not reconnect (one view: a
/// ``LobbyLook``).
///
/// Invariant: it only looks: it never challenges, accepts or takes a seat.
public struct LobbyPrinter: Sendable {
  /// How much of the lobby is printed, and how.
  ///
  /// Invariant: only `changes` prints more than one view.
  public enum Mode: Sendable, Equatable {
    /// One view as plain lines, given up on after 10 s without one.
    case once
    /// Every view, as plain lines (a blank line after each) or one JSON object a line.
    case changes(json: Bool)
  }

  public var access: ServerAccess
  /// The name others see while this looks, asked for once connected (`--name`, else the
  /// login name).
  public var name: @Sendable () throws -> String
  public var mode: Mode

  public init(access: ServerAccess, name: @escaping @Sendable () throws -> String, mode: Mode) {
    self.access = access
    self.name = name
    self.mode = mode
  }

  /// One view as a JSON line: `{"seq": N, "lobby": {…}}`.
  public static func jsonLine(seq: Int, view: LobbyView) -> String {
    var text = JSONText()
    text.raw("{")
    text.key("seq"); text.int(seq); text.comma()
    text.key("lobby"); text.lobbyView(view)
    text.raw("}")
    return String(decoding: text.bytes, as: UTF8.self)
  }

  public func run() async throws {
    switch mode {
    case .once:
      let (_, connection, name) = try await reach()
      let seen: (view: LobbyView?, end: PlayerEnd?)
      do {
        seen = try await LobbyLook.firstView(
          on: connection, name: name, keepaliveMillis: access.keepaliveMillis,
          within: .seconds(10))
      } catch {
        throw CommandExit.after(error)
      }
      if let view = seen.view {
        for line in LobbyText.lines(view) { print(line) }
      } else if let (message, exit) = CommandExit.reason(afterFollowing: seen.end) {
        StandardError.complain(message)
        throw exit
      }
    case .changes(let json):
      try await follow { event in
        guard case .view(let seq, let view) = event else { return true }
        if json {
          print(Self.jsonLine(seq: seq, view: view))
        } else {
          for line in LobbyText.lines(view) { print(line) }
          print("")
        }
        fflush(nil)
        return true
      }
    }
  }

  /// The server found and connected to, and the name to look under (asked once
  /// connected).
  private func reach() async throws -> (ResolvedServer, ServerConnection, String) {
    let resolved = try await access.resolve()
    let connection = try await access.connect(resolved)
    return (resolved, connection, try name())
  }

  /// Connects, follows the lobby and hands each piece of news to `each` until it returns
  /// false; a refusal or a broken protocol is said and exits as `roshambo play` does.
  private func follow(_ each: @escaping @MainActor (LobbyNews) -> Bool) async throws {
    let (resolved, connection, name) = try await reach()
    let keepaliveMillis = access.keepaliveMillis
    let reconnect = access.reconnector(resolved)
    let driver = await MainActor.run {
      let driver = PlayerDriver(
        configuration: PlayerConfiguration(
          name: name, role: .lobby, fair: true, keepaliveMillis: keepaliveMillis,
          reconnects: false),
        connection: connection, connect: reconnect)
      driver.lobbyNews = { [weak driver] news in
        if !each(news) { driver?.command(.leave) }
      }
      return driver
    }
    let end = await driver.follow()
    if let (message, exit) = CommandExit.reason(afterFollowing: end) {
      StandardError.complain(message)
      throw exit
    }
  }
}
