import RoshamboGame
import RoshamboProtocol

/// A connection that follows the lobby (`hello` with role `lobby`): each `lobby` view,
/// sanitized for the terminal and checked, handed to the caller until it has seen enough
/// or the connection ends.
///
/// Invariant: the caller sees only views whose `seq` rises and that arrive on a
/// connection that asked for them; anything else from the server ends the following
/// with a ``ProtocolViolation``, a refusal with a ``LobbyFollower/Refused``.
public enum LobbyFollower {
  /// The server refused to let this connection follow the lobby (the message says why).
  public struct Refused: Error, CustomStringConvertible {
    public var error: ProtocolError
    public var description: String { error.message }
  }

  /// Sends `hello` as `name` with role `lobby`, then calls `view` with each lobby view
  /// until it returns false or the connection ends (then returns; a connection that ends
  /// with an error throws it).
  public static func follow(
    _ connection: ServerConnection, name: String,
    view: (_ seq: Int, _ view: LobbyView) async -> Bool
  ) async throws {
    connection.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, id: 1))
    var last: Int?
    for await event in connection.events {
      switch event {
      case .closed(let error):
        if let error { throw error }
        return
      case .message(let raw):
        switch raw.sanitized() {
        case .lobby(let seq, let lobby):
          if let last, seq <= last {
            await connection.close()
            throw ProtocolViolation(message: "lobby views went from seq \(last) to \(seq)")
          }
          last = seq
          guard await view(seq, lobby) else {
            await connection.close()
            return
          }
        case .error(let error, _):
          await connection.close()
          throw Refused(error: error)
        case .pong:
          continue
        case .welcome, .state:
          await connection.close()
          throw ProtocolViolation(message: "a room's message to a connection following the lobby")
        }
      }
    }
  }
}
