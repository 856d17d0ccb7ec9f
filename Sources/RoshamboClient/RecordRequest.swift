import RoshamboGame
import RoshamboProtocol

/// Asks a server for a finished match's record, through ``LobbyClient``: `hello` as a
/// lobby follower, then `match`, and waits for the `record` (or the refusal) that
/// answers it.
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
      try await LobbyClient(connection, name: name).record(of: id)
    }
  }
}
