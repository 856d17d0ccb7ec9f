import RoshamboGame
import RoshamboProtocol

/// Asks a server for a finished match's record on a lobby follower's ``PlayerDriver``
/// that does not reconnect: `hello` as a follower, then, once the lobby is shown, `match`,
/// and waits for the `record` (or the refusal) that answers it.
///
/// Invariant: only a `record` answering this request is returned, and only once it is
/// sanitized for the terminal; it is checked to be the match asked for.
public enum RecordRequest {
  /// The server's refusal (`no_such_match`, or of the `hello`), in its words.
  public struct Refused: Error, CustomStringConvertible {
    public var error: ProtocolError
    public var description: String { error.message }
  }

  /// The record of match `id`, asked as `name`, pinging after `keepalive` of quiet;
  /// ``NoAnswer`` if none comes within `limit`. Closes the connection before returning.
  @MainActor
  public static func fetch(
    _ connection: ServerConnection, name: String, id: Int, within limit: Duration = .seconds(10),
    keepalive: Duration = .seconds(3)
  ) async throws -> FinishedMatch {
    let driver = PlayerDriver(
      configuration: PlayerConfiguration(
        name: name, role: .lobby, fair: true, keepaliveMillis: keepalive.milliseconds,
        reconnects: false),
      connection: connection
    ) { throw ConnectionLost(message: "a record is asked for on one connection") }
    var answer: Result<FinishedMatch, any Error>?
    var asked = false
    driver.lobbyNews = { [weak driver] news in
      switch news {
      case .view where !asked:
        asked = true
        driver?.command(.askRecord(id))
      case .record(let match):
        answer = .success(match)
        driver?.command(.leave)
      case .recordRefused(_, let error):
        answer = .failure(Refused(error: error))
        driver?.command(.leave)
      default:
        break
      }
    }
    let end = try await connection.answering("match \(id)", within: limit) {
      await driver.follow()
    }
    if let answer { return try answer.get() }
    switch end {
    case .refused(let error)?: throw Refused(error: error)
    case .brokeProtocol(let violation)?: throw ProtocolViolation(message: violation)
    default: throw ProtocolViolation(message: "the server closed the connection without an answer")
    }
  }
}
