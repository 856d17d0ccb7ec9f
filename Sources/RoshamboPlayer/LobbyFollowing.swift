import RoshamboGame
import RoshamboProtocol

/// One connection's following of the lobby (a `hello` with role `lobby`), as a value: the
/// follower's copy of the view (``LobbyReplica``), the challenges it is in, and whether
/// the server may seat it. It reads each message the server sends and says what it means
/// (``Step``); the ``PlayerCore`` that holds it sends, shows and ends.
///
/// Invariants: views reach the player only with a `seq` that never goes back; a challenge notice only
/// when this follower takes challenges and is its challenger or the one challenged (it
/// may come before the first view, which can wait up to the server's send interval); a
/// seat only after a challenge it is in was accepted, while the lobby lists it among the
/// entrants of a tournament under way, after it asked to enter one, as the answer to its
/// `hello` in a seat the server held for this person (a tournament's round paired, or a
/// challenge accepted, while they were away), or at any time on a connection that
/// replaced one on which such a seat may have been given (the server seats the person
/// back when it sees the old connection close, which may come after the new one's first
/// view). Anything else ends the connection as the server breaking the protocol.
public struct LobbyFollowing: Equatable, Sendable {
  /// What one message from the server means.
  public enum Step: Equatable, Sendable {
    /// Show the player this.
    case news(LobbyNews)
    /// Nothing to show (a `pong`, a patch while the whole view is awaited).
    case nothing
    /// A patch did not follow from the copy: ask for the whole view.
    case resync
    /// The server seated this connection in a room: it plays there now.
    case seated(room: String, seat: Seat, token: String)
    /// The server refused to let this connection follow the lobby.
    case refused(ProtocolError)
    /// The server said it is closing in `seconds`; `thenCloses`: it refused this
    /// connection's `hello` for it, so this connection ends now.
    case closing(seconds: Int, thenCloses: Bool)
    /// The server took this connection for gone (it heard nothing for a while): it is
    /// lost, not refused.
    case timedOut
    /// The server broke the protocol, as this says.
    case violation(String)
  }

  /// The follower's name as the server shows it (its normal form).
  public let me: String
  /// Whether this follower takes challenges (and so may be seated from the lobby).
  public let takesChallenges: Bool
  /// The copy of the lobby's view.
  public private(set) var replica = LobbyReplica()
  /// The `seq` of the last view shown (nil before the first).
  public private(set) var seq: Int?
  /// This connection replaces a lost one, whose patience runs until the first view.
  public internal(set) var outage: PlayerState.Outage?
  /// Challenges this follower is in that were accepted.
  private var accepted: Set<Int> = []
  /// Challenges this follower is in that wait for an answer.
  private var pending: Set<Int> = []
  /// The connection this one replaced may have been given a seat (``seatMayWait``).
  private let replacedSeated: Bool
  /// The last view listed this follower among the entrants of a tournament under way.
  private var listedEntrant = false
  /// This follower asked to enter the tournament taking entries.
  public private(set) var entered = false
  /// The records asked for and not yet answered: the match's number by the request's
  /// `id`.
  private var recordsAsked: [Int: Int] = [:]

  public init(name: String, takesChallenges: Bool, outage: PlayerState.Outage? = nil) {
    self.me = (try? PlayerName.normalize(name).get()) ?? name
    self.takesChallenges = takesChallenges
    self.outage = outage
    self.replacedSeated = outage?.seatMayWait ?? false
  }

  /// Whether the server may have given this person a seat the follower has not heard of:
  /// a challenge they are in waits for an answer or was accepted, they entered a
  /// tournament or are among its entrants. Carried to the connection that replaces a lost
  /// one.
  public var seatMayWait: Bool {
    takesChallenges && (!pending.isEmpty || seatGiven)
  }

  /// Whether the server has a reason to seat this follower: a challenge it is in was
  /// accepted, it entered a tournament or is among its entrants, or the connection it
  /// replaced may have been given a seat.
  private var seatGiven: Bool {
    !accepted.isEmpty || listedEntrant || entered || replacedSeated
  }

  /// Whether a view was shown on this connection: until then a refusal is fatal.
  public var followed: Bool { seq != nil }

  /// The follower asks to enter the tournament: from now a seat may come before a view
  /// lists the entry.
  public mutating func enter() {
    entered = true
  }

  /// The follower asks, in request `id`, for the record of match `match`.
  public mutating func ask(record match: Int, id: Int) {
    recordsAsked[id] = match
  }

  /// What `raw` from the server means.
  public mutating func receive(_ raw: ServerMessage) -> Step {
    var message = raw
    switch raw {
    case .lobby:
      _ = replica.receive(raw)
    case .lobbyPatch:
      switch replica.receive(raw) {
      case .updated:
        guard let seq = replica.seq, let view = replica.view else { return .nothing }
        message = .lobby(seq: seq, view: view)
      case .waiting:
        return .nothing
      case .resync:
        return .resync
      }
    default:
      break
    }
    switch message.sanitized() {
    case .lobbyPatch, .pong:
      return .nothing
    case .lobby(let seq, let view):
      // A view again at the same seq (the server refreshing a follower after a refusal)
      // is the same view; one going back is a lie.
      if let last = self.seq, seq < last {
        return .violation("lobby views went from seq \(last) to \(seq)")
      }
      self.seq = seq
      outage = nil
      // An entrant of the tournament under way is seated by the server each round.
      listedEntrant =
        takesChallenges
        && view.tournament.map {
          $0.phase != .finished && $0.standings.contains { $0.name == me }
        } == true
      return .news(.view(seq: seq, view))
    case .challenge(let notice):
      guard takesChallenges, notice.from == me || notice.to == me else {
        return .violation("a challenge this follower is not part of")
      }
      switch notice.status {
      case .pending: pending.insert(notice.id)
      case .accepted:
        pending.remove(notice.id)
        accepted.insert(notice.id)
      case .declined, .expired, .withdrawn: pending.remove(notice.id)
      }
      return .news(.challenge(notice))
    case .error(let error, _) where followed && error.code == .timeout:
      return .timedOut
    case .error(let error, _) where error.code == .closing:
      // Said to a follower, or (fatal) to a `hello` while the server drains: either way
      // it is back once the server is.
      return .closing(seconds: error.seconds ?? 0, thenCloses: error.fatal)
    case .error(let error, let re?) where recordsAsked[re] != nil && !error.fatal:
      return .news(.recordRefused(match: recordsAsked.removeValue(forKey: re)!, error))
    case .error(var error, _):
      guard followed, !error.fatal else {
        error.fatal = true
        return .refused(error)
      }
      return .news(.refused(error))
    case .welcome(let room, let seat?, let token?, _)
    where mayBeSeated(in: room) && ClientMessage.isValidRoom(room):
      return .seated(room: room, seat: seat, token: token)
    case .welcome, .state:
      return .violation("a room's message to a connection following the lobby")
    case .record(let record, let re?) where recordsAsked[re] != nil:
      let asked = recordsAsked.removeValue(forKey: re)!
      guard record.id == Int64(asked) else {
        return .violation(
          "asked for match \(asked), the server sent match "
            + (record.id.map(String.init) ?? "null"))
      }
      return .news(.record(record))
    case .record:
      return .violation("a match record this follower did not ask for")
    }
  }

  /// Whether the server may seat this follower in `room` now.
  private func mayBeSeated(in room: String) -> Bool {
    guard takesChallenges else { return false }
    // The last case: someone coming back while a match of theirs waits for them (a
    // tournament's round paired, a challenge accepted, as their connection dropped) is
    // seated in it at once, before any view.
    return seatGiven || !followed
  }
}

/// What a lobby follower is told, for its screen (or its bot).
///
/// Invariant: nothing here was not checked and sanitized for the terminal first.
public enum LobbyNews: Equatable, Sendable {
  /// The lobby as the server has it at `seq`.
  case view(seq: Int, LobbyView)
  /// A challenge made by or to this follower changed.
  case challenge(ChallengeNotice)
  /// The server refused something this follower asked (a challenge, an answer): not
  /// fatal.
  case refused(ProtocolError)
  /// The server said it is closing in `seconds`, at `closesAt` (ms, on the core's clock).
  case closing(seconds: Int, closesAt: Int64)
  /// The connection was lost; the try under way, or the next, to reach the server again.
  case reconnecting(attempt: Int)
  /// The record of a finished match this follower asked for, checked to be that match.
  case record(FinishedMatch)
  /// The server refused to give the record of match `match`.
  case recordRefused(match: Int, ProtocolError)
  /// The server seated this follower in `room` (an accepted challenge, a tournament's
  /// match): the session plays there now, on the same connection.
  case seated(room: String)
}
