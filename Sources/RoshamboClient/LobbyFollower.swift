import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol

/// A connection that follows the lobby (`hello` with role `lobby`): each `lobby` view and
/// each challenge notice, sanitized for the terminal and checked, handed to the caller
/// until it has seen enough, the connection ends, or an accepted challenge seats this
/// connection in a room (then the connection is the caller's to play on).
///
/// Invariant: the caller sees only views whose `seq` rises, notices of challenges this
/// connection takes part in, and a seat only after a challenge it is in was accepted,
/// while the lobby lists it among the entrants of a tournament under way, or (an entrant
/// coming back) in a tournament's room as the answer to its `hello`;
/// anything else from the server ends the following with a ``ProtocolViolation``, a
/// refusal of the `hello` with a ``LobbyFollower/Refused``.
public enum LobbyFollower {
  /// The server refused to let this connection follow the lobby (the message says why).
  public struct Refused: Error, CustomStringConvertible {
    public var error: ProtocolError
    public var description: String { error.message }
  }

  /// What the server said to a follower.
  public enum Event: Sendable, Equatable {
    case view(seq: Int, LobbyView)
    /// A challenge made by or to this follower changed.
    case challenge(ChallengeNotice)
    /// A refusal of something the follower asked (a challenge, an answer): not fatal.
    case refused(ProtocolError, re: Int?)
  }

  /// A seat an accepted challenge gave this connection: its `welcome`.
  public struct Seated: Sendable, Equatable {
    public var room: String
    public var seat: Seat
    public var token: String
  }

  /// Sends `hello` as `name` with role `lobby` (saying it takes challenges when
  /// `takesChallenges`; `enteredTournament` says whether the caller has sent `enter`, so
  /// that a seat may come before a view lists the entry), then calls `each` with each event until it returns false or the
  /// connection ends (then returns nil; a connection that ends with an error throws it),
  /// or until an accepted challenge seats the connection: then returns the seat, with
  /// the connection open and the room's first `state` still to be read. Runs in the
  /// caller's isolation, so `each` may touch the caller's state. Sends a `ping` every
  /// `keepalive` while it follows.
  @discardableResult
  public static func follow(
    _ connection: ServerConnection, name: String, takesChallenges: Bool = false,
    enteredTournament: () -> Bool = { false },
    keepalive: Duration = .seconds(3),
    isolation: isolated (any Actor)? = #isolation,
    each: (Event) async -> Bool
  ) async throws -> Seated? {
    connection.send(
      .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, challenges: takesChallenges, keepalive: keepalive.promisedSeconds, id: 1))
    // Someone who only watches the lobby sends nothing of their own: a ping every
    // `keepalive` keeps the server's idle limit (for programs that are gone) off them,
    // and a server that answers nothing for three of them is taken for lost.
    let heard = NIOLockedValueBox(ContinuousClock.now)
    let silence = NIOLockedValueBox<Duration?>(nil)
    // Three intervals, and never less than 3 s: a busy machine may answer a ping late.
    let silenceLimit = max(keepalive * 3, .seconds(3))
    let pinger = Task {
      while !Task.isCancelled {
        try await Task.sleep(for: keepalive)
        let quiet = ContinuousClock.now - heard.withLockedValue { $0 }
        if quiet >= silenceLimit {
          silence.withLockedValue { $0 = quiet }
          await connection.close()
          return
        }
        connection.send(.ping(id: nil))
      }
    }
    defer { pinger.cancel() }
    let me = (try? PlayerName.normalize(name).get()) ?? name
    var last: Int?
    var accepted: Set<Int> = []
    var entrant = false
    var followed = false
    func violation(_ message: String) async -> ProtocolViolation {
      await connection.close()
      return ProtocolViolation(message: message)
    }
    for await event in connection.events {
      heard.withLockedValue { $0 = .now }
      switch event {
      case .closed(let error):
        if let error { throw error }
        if let quiet = silence.withLockedValue({ $0 }) {
          throw ServerSilent(seconds: Int(quiet.components.seconds))
        }
        return nil
      case .message(let raw):
        let event: Event
        switch raw.sanitized() {
        case .lobby(let seq, let lobby):
          if let last, seq <= last {
            throw await violation("lobby views went from seq \(last) to \(seq)")
          }
          last = seq
          followed = true
          // An entrant of the tournament under way is seated by the server each round.
          entrant =
            takesChallenges
            && lobby.tournament.map {
              $0.phase != .finished && $0.standings.contains { $0.name == me }
            } == true
          event = .view(seq: seq, lobby)
        case .challenge(let notice):
          guard takesChallenges, followed, notice.from == me || notice.to == me else {
            throw await violation("a challenge this follower is not part of")
          }
          if notice.status == .accepted { accepted.insert(notice.id) }
          event = .challenge(notice)
        case .error(let error, let re):
          guard followed, !error.fatal else {
            await connection.close()
            throw Refused(error: error)
          }
          event = .refused(error, re: re)
        case .pong:
          continue
        case .welcome(let room, let seat?, let token?)
        where
          (!accepted.isEmpty || entrant || (takesChallenges && enteredTournament())
          || (takesChallenges && !followed && Tournament.isTournamentRoom(room)))
          && ClientMessage.isValidRoom(room):
          // The last case: an entrant coming back while their tournament match waits for
          // them is seated at once, before any view.
          return Seated(room: room, seat: seat, token: token)
        case .welcome, .state:
          throw await violation("a room's message to a connection following the lobby")
        case .record:
          throw await violation("a match record this follower did not ask for")
        }
        guard await each(event) else {
          await connection.close()
          return nil
        }
      }
    }
    return nil
  }
}
