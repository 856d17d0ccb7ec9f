import ArgumentParser
import Foundation
import Logging
import NIOConcurrencyHelpers
import RoshamboClient
import RoshamboGame
import RoshamboJSON
import RoshamboLoad
import RoshamboProtocol
import RoshamboTLS
import ServiceLifecycle
import Sysexits

/// One snapshot of the lobby, printed as plain lines (`roshambo who`).
struct LobbySnapshot {
  var server: ServerOptions
  /// The name others see while this looks (nil: the login name).
  var name: String?

  func run() async throws {
    try await followLobby(server: server, name: name, within: .seconds(10)) { event in
      guard case .view(_, let view) = event else { return true }
      for line in LobbyText.lines(view) { print(line) }
      return false
    }
  }
}

/// The lobby as it changes, printed as plain lines or JSON lines (`roshambo lobby`,
/// piped or with `--json`), until the server closes or the person presses Ctrl-C.
struct LobbyFeed {
  var server: ServerOptions
  var name: String?
  var json: Bool

  func run() async throws {
    let json = self.json
    try await followLobby(server: server, name: name) { event in
      guard case .view(let seq, let view) = event else { return true }
      if json {
        var text = JSONText()
        text.raw("{")
        text.key("seq"); text.int(seq); text.comma()
        text.key("lobby"); text.lobbyView(view)
        text.raw("}")
        print(String(decoding: text.bytes, as: UTF8.self))
      } else {
        for line in LobbyText.lines(view) { print(line) }
        print("")
      }
      fflush(nil)
      return true
    }
  }
}

/// Connects, follows the lobby as `name` (or the login name) on a lobby follower's
/// ``PlayerDriver`` that takes no challenges and does not reconnect, and hands each view
/// to `each` until it returns false; a refusal or a broken protocol is said and exits as
/// `roshambo play` does.
func followLobby(
  server options: ServerOptions, name: String?, within limit: Duration? = nil,
  _ each: @escaping @MainActor (LobbyNews) -> Bool
) async throws {
  let resolved = try await options.resolve()
  let connection = try await connect(resolved, options: options)
  let name = try playerName(name)
  let driver = await MainActor.run {
    let driver = PlayerDriver(
      configuration: PlayerConfiguration(
        name: name, role: .lobby, fair: true,
        keepaliveMillis: options.keepaliveMillis, reconnects: false),
      connection: connection, connect: reconnector(resolved))
    driver.lobbyNews = { [weak driver] news in
      if !each(news) { driver?.command(.leave) }
    }
    return driver
  }
  let follow = { await driver.follow() }
  let end: PlayerEnd?
  do {
    if let limit {
      end = try await connection.answering("the lobby", within: limit) { await follow() }
    } else {
      end = await follow()
    }
  } catch {
    throw exitCode(after: error)
  }
  switch end {
  case .refused(let error)?:
    complain(error.message)
    throw ExitCode(ExitStatus.failure)
  case .brokeProtocol, .cheated:
    complain(end?.reason ?? "")
    throw ExitCode(ExitStatus.protocolViolation)
  case .left?, .closed(nil)?, nil:
    return
  case .closed?, .gaveUp?, .couldNotConnect?:
    complain(end?.reason ?? "")
    throw ExitCode(ExitStatus.failure)
  }
}
