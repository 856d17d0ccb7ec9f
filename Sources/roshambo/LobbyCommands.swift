import ArgumentParser
import Foundation
import RoshamboClient
import RoshamboGame
import RoshamboJSON
import RoshamboProtocol
import Sysexits

/// `roshambo who`: one snapshot of the lobby, as plain lines.
struct Who: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print who is on the server, the rooms and their scores, and the leaderboard.",
    discussion: """
      Follows the server's lobby just long enough for one view, prints it and exits 0. \
      Names are printed as the screen shows them (anything unprintable made visible).
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under while you look (by default your login name).")
  var name: String?

  func validate() throws {
    if let name { try validateName(name) }
  }

  func run() async throws {
    try await followLobby(server: server, name: name) { event in
      guard case .view(_, let view) = event else { return true }
      for line in LobbyText.lines(view) { print(line) }
      return false
    }
  }
}

/// `roshambo lobby`: the lobby as it changes, as plain lines or JSON lines.
struct Lobby: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Follow the server's lobby: who is here, the rooms, the leaderboard.",
    discussion: """
      Prints the lobby each time it changes (at most a few times a second) until the \
      server closes or you press Ctrl-C. With --json, one JSON object per line: \
      {"seq": N, "lobby": {…}} with the lobby as docs/PROTOCOL.md describes it.
      """)

  @OptionGroup var server: ServerOptions

  @Option(help: "The name others see you under (by default your login name).")
  var name: String?

  @Flag(help: "One JSON object per line, for scripts.")
  var json = false

  func validate() throws {
    if let name { try validateName(name) }
  }

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

/// Connects, follows the lobby as `name` (or the login name) and hands each view to
/// `each` until it returns false; a refusal or a broken protocol is said and exits as
/// `roshambo play` does.
func followLobby(
  server options: ServerOptions, name: String?,
  _ each: @escaping (LobbyFollower.Event) async -> Bool
) async throws {
  let resolved = try await options.resolve()
  let connection = try await connect(resolved, options: options)
  do {
    try await LobbyFollower.follow(connection, name: try playerName(name), each: each)
  } catch let refused as LobbyFollower.Refused {
    complain(refused.description)
    throw ExitCode(ExitStatus.failure)
  } catch let violation as ProtocolViolation {
    complain(violation.description)
    throw ExitCode(ExitStatus.protocolViolation)
  } catch {
    complain(ConnectionFailure.ended(error))
    throw ExitCode(ExitStatus.failure)
  }
}
