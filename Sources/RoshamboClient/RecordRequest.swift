import RoshamboGame
import RoshamboProtocol

/// Asks a server for a finished match's record: `hello` as a lobby follower, then
/// `match`, and waits for the `record` (or the refusal) that answers it.
///
/// Invariant: only a `record` answering this request is returned, and only once it is
/// sanitized for the terminal; it is checked to be the match asked for.
public enum RecordRequest {
  /// The server's refusal (`no_such_match`, or of the `hello`), in its words.
  public struct Refused: Error, CustomStringConvertible {
    public var error: ProtocolError
    public var description: String { error.message }
  }

  /// The record of match `id`, asked as `name`; ``NoAnswer`` if none comes within
  /// `limit`. Closes the connection before returning.
  public static func fetch(
    _ connection: ServerConnection, name: String, id: Int, within limit: Duration = .seconds(10),
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> FinishedMatch {
    defer { Task { await connection.close() } }
    return try await connection.answering("match \(id)", within: limit) {
      try await ask(connection, name: name, id: id)
    }
  }

  private static func ask(
    _ connection: ServerConnection, name: String, id: Int,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> FinishedMatch {
    connection.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, id: 1))
    connection.send(.match(match: id, id: 2))
    for await event in connection.events {
      switch event {
      case .closed(let error):
        if let error { throw error }
        throw ProtocolViolation(message: "the server closed the connection without an answer")
      case .message(let message):
        switch message.sanitized() {
        case .record(let match, let re) where re == 2:
          guard match.id == Int64(id) else {
            throw ProtocolViolation(
              message:
                "asked for match \(id), the server sent match \(match.id.map(String.init) ?? "null")"
            )
          }
          return match
        case .error(let error, let re) where re == 2 || re == 1 || error.fatal:
          throw Refused(error: error)
        case .lobby, .pong, .error:
          continue
        case .record, .welcome, .state, .challenge:
          throw ProtocolViolation(message: "a message that does not answer a request for a record")
        }
      }
    }
    throw ProtocolViolation(message: "the server closed the connection without an answer")
  }
}
