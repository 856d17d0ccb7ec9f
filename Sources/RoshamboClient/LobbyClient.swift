import NIOConcurrencyHelpers
import RoshamboGame
import RoshamboProtocol

/// The lobby protocol on one connection (`hello` with role `lobby`): the one place that
/// writes the lobby's hello and its requests (challenge, accept, decline, enter, a
/// match's record), numbering them, and reads what the server answers. ``follow(keepalive:isolation:each:)``
/// hands each `lobby` view and each challenge notice, sanitized for the terminal and
/// checked, to the caller until it has seen enough, the connection ends, or an accepted
/// challenge (or the tournament) seats this connection in a room; then the connection is
/// the caller's to play on.
///
/// Invariant: the `hello` goes first and once, and every request after it carries an `id`
/// higher than any before it on this connection. The caller sees only views whose `seq`
/// rises, notices of challenges this connection takes part in, and a seat only after a
/// challenge it is in was accepted, while the lobby lists it among the entrants of a
/// tournament under way, after it entered one, or (an entrant coming back) in a
/// tournament's room as the answer to its `hello`; anything else from the server ends
/// the following with a ``ProtocolViolation``, a refusal of the `hello` with a
/// ``LobbyClient/Refused``.
public final class LobbyClient: Sendable {
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

  /// A seat an accepted challenge (or the tournament) gave this connection: its
  /// `welcome`.
  public struct Seated: Sendable, Equatable {
    public var room: String
    public var seat: Seat
    public var token: String

    public init(room: String, seat: Seat, token: String) {
      self.room = room
      self.seat = seat
      self.token = token
    }
  }

  public let connection: ServerConnection
  /// The name this connection says `hello` under.
  public let name: String
  /// Whether it says it takes challenges (and so may be seated from the lobby).
  public let takesChallenges: Bool

  /// The lobby's messages as this connection writes them: each with the next `id`.
  ///
  /// Invariant: every message has an `id` one higher than the one before, from 1 (the
  /// `hello`).
  public struct Requests: Equatable, Sendable {
    public let name: String
    public let takesChallenges: Bool
    /// Whether this person is (or is about to be) an entrant of the tournament.
    public private(set) var entrant: Bool
    private var lastID = 0

    public init(name: String, takesChallenges: Bool, entrant: Bool) {
      self.name = name
      self.takesChallenges = takesChallenges
      self.entrant = entrant
    }

    private mutating func nextID() -> Int {
      lastID += 1
      return lastID
    }

    /// `hello` with role `lobby`, asking for patches (``LobbyReplica`` applies them);
    /// `keepalive`: the pings promised, if any.
    public mutating func hello(keepalive: Duration?) -> ClientMessage {
      return .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, challenges: takesChallenges, keepalive: keepalive?.promisedSeconds,
        patches: true, id: nextID())
    }

    /// `lobbyResync`: a patch did not follow from the view this follower has.
    public mutating func resync() -> ClientMessage {
      .lobbyResync(id: nextID())
    }

    public mutating func challenge(_ person: String, fair: Bool) -> ClientMessage {
      .challenge(name: person, bestOf: nil, ruleset: nil, fair: fair, id: nextID())
    }

    public mutating func accept(_ challenge: Int) -> ClientMessage {
      .accept(challenge: challenge, id: nextID())
    }

    public mutating func decline(_ challenge: Int, forTheEvening: Bool) -> ClientMessage {
      .decline(challenge: challenge, block: forTheEvening, id: nextID())
    }

    /// `enter`; from now a seat may come before a view lists the entry.
    public mutating func enterTournament() -> ClientMessage {
      entrant = true
      return .enter(id: nextID())
    }

    public mutating func record(of match: Int) -> ClientMessage {
      .match(match: match, id: nextID())
    }
  }

  /// What was sent. Requests may come from any task (a key, a timer), hence the lock.
  private let requests: NIOLockedValueBox<Requests>

  /// `entrant`: the caller enters the tournament as soon as it can (a seat may then come
  /// before any view lists the entry).
  public init(
    _ connection: ServerConnection, name: String, takesChallenges: Bool = false,
    entrant: Bool = false
  ) {
    self.connection = connection
    self.name = name
    self.takesChallenges = takesChallenges
    self.requests = NIOLockedValueBox(
      Requests(name: name, takesChallenges: takesChallenges, entrant: entrant))
  }

  /// Sends the message `make` writes, and returns its `id`.
  @discardableResult
  private func request(_ make: (inout Requests) -> ClientMessage) -> Int {
    requests.withLockedValue { requests in
      let message = make(&requests)
      connection.send(message)
      return message.id ?? 0
    }
  }

  private func hello(keepalive: Duration?) {
    request { $0.hello(keepalive: keepalive) }
  }

  /// Challenges `person` to a match of the server's default length and ruleset.
  @discardableResult
  public func challenge(_ person: String, fair: Bool) -> Int {
    request { $0.challenge(person, fair: fair) }
  }

  /// Accepts challenge `challenge` (a notice's `id`).
  public func accept(_ challenge: Int) {
    request { $0.accept(challenge) }
  }

  /// Declines challenge `challenge`; `forTheEvening`: and every later one from the same
  /// person until the server restarts.
  public func decline(_ challenge: Int, forTheEvening: Bool = false) {
    request { $0.decline(challenge, forTheEvening: forTheEvening) }
  }

  /// Enters the tournament taking entries; from now a seat may come before a view lists
  /// the entry.
  public func enterTournament() {
    request { $0.enterTournament() }
  }

  public func close() async {
    await connection.close()
  }

  /// `LobbyClient(connection, name:, takesChallenges:).follow(…)`: for a caller that
  /// only follows.
  @discardableResult
  public static func follow(
    _ connection: ServerConnection, name: String, takesChallenges: Bool = false,
    keepalive: Duration = .seconds(3),
    isolation: isolated (any Actor)? = #isolation,
    each: (Event) async -> Bool
  ) async throws -> Seated? {
    try await LobbyClient(connection, name: name, takesChallenges: takesChallenges).follow(
      keepalive: keepalive, each: each)
  }

  /// Sends `hello`, then calls `each` with each event until it returns false or the
  /// connection ends (then returns nil; a connection that ends with an error throws it),
  /// or until the server seats the connection: then returns the seat, with the
  /// connection open and the room's first `state` still to be read. Runs in the caller's
  /// isolation, so `each` may touch the caller's state. Sends a `ping` every `keepalive`
  /// while it follows.
  @discardableResult
  public func follow(
    keepalive: Duration = .seconds(3),
    isolation: isolated (any Actor)? = #isolation,
    each: (Event) async -> Bool
  ) async throws -> Seated? {
    let connection = self.connection
    hello(keepalive: keepalive)
    // Someone who only watches the lobby sends nothing of their own: a ping every
    // `keepalive` keeps the server's idle limit (for programs that are gone) off them,
    // and a server that answers nothing for three of them (never less than 3 s: a busy
    // machine may answer a ping late) is taken for lost.
    let interval = keepalive.milliseconds
    let clock = NIOLockedValueBox(
      Keepalive(
        intervalMillis: interval, silenceLimitMillis: max(3 * interval, 3_000),
        now: ClientSession.clockMillis()))
    let silence = NIOLockedValueBox<Duration?>(nil)
    let pinger = Task {
      while !Task.isCancelled {
        switch clock.withLockedValue({ $0.step(at: ClientSession.clockMillis()) }) {
        case .lost(let silent):
          silence.withLockedValue { $0 = .milliseconds(silent) }
          await connection.close()
          return
        case .ping:
          connection.send(.ping(id: nil))
        case .wait(let until):
          try await Task.sleep(
            until: ClientSession.epoch + .milliseconds(until), clock: .continuous)
        }
      }
    }
    defer { pinger.cancel() }
    let me = (try? PlayerName.normalize(name).get()) ?? name
    var last: Int?
    var accepted: Set<Int> = []
    var entrant = false
    var followed = false
    var replica = LobbyReplica()
    func violation(_ message: String) async -> ProtocolViolation {
      await connection.close()
      return ProtocolViolation(message: message)
    }
    for await event in connection.events {
      var pong: Int?? = nil
      if case .message(.pong(let id)) = event { pong = .some(id) }
      _ = clock.withLockedValue { $0.heard(at: ClientSession.clockMillis(), pong: pong) }
      switch event {
      case .closed(let error):
        if let error { throw error }
        if let quiet = silence.withLockedValue({ $0 }) {
          throw ServerSilent(seconds: Int(quiet.components.seconds))
        }
        return nil
      case .message(let raw):
        let event: Event
        var message = raw
        if case .lobby = raw {
          _ = replica.receive(raw)
        } else if case .lobbyPatch = raw {
          switch replica.receive(raw) {
          case .updated:
            guard let seq = replica.seq, let view = replica.view else { continue }
            message = .lobby(seq: seq, view: view)
          case .waiting:
            continue
          case .resync:
            request { $0.resync() }
            continue
          }
        }
        switch message.sanitized() {
        case .lobbyPatch:
          continue
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
        case .error(let error, _) where followed && error.code == .timeout:
          // Taken for gone after a stop (Ctrl-Z) or a sleep: a lost connection, which the
          // lobby takes back by itself, not a refusal.
          await connection.close()
          throw ServerTimedOut()
        case .error(let error, let re):
          guard followed, !error.fatal else {
            await connection.close()
            throw Refused(error: error)
          }
          event = .refused(error, re: re)
        case .pong:
          continue
        case .welcome(let room, let seat?, let token?, _)
        where
          (!accepted.isEmpty || entrant
          || (takesChallenges && requests.withLockedValue { $0.entrant })
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
