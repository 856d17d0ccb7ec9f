import RoshamboGame
import RoshamboProtocol

/// Who a player is to its server and how it keeps its connection: what its `hello`
/// says, its keepalive, and its reconnect-and-patience policy.
///
/// Invariant: it does not change during a session (a new name or room is a new session).
public struct PlayerConfiguration: Equatable, Sendable {
  public var name: String
  /// The room to join, make or watch (nil: quick match).
  public var room: String?
  /// `.lobby`: the session follows the lobby until the server seats it (an accepted
  /// challenge, a tournament's match), then plays that match.
  public var role: ClientMessage.Role
  /// A lobby follower takes challenges (and so may be seated from the lobby).
  public var takesChallenges: Bool
  /// Ask for a fair room when this player's hello makes the room.
  public var fair: Bool
  /// A seat to take back with the first `hello` (a kept seat's token).
  public var resume: String?
  /// A `ping` after this long without sending anything; the server is taken for lost
  /// when silent for twice as long with a ping unanswered.
  public var keepaliveMillis: Int64
  /// Whether a lost connection is replaced (false: it ends the session).
  public var reconnects: Bool
  public var policy: ReconnectPolicy
  /// Whether the `hello` promises the keepalive's pings (a program that only measures the
  /// server promises none, and is held to the server's idle limit).
  public var promisesKeepalive: Bool
  /// Whether a lobby follower asks for patches of the view (false: whole views only).
  public var lobbyPatches: Bool

  public init(
    name: String, room: String? = nil, role: ClientMessage.Role = .player, fair: Bool = false,
    resume: String? = nil, keepaliveMillis: Int64 = 3_000, reconnects: Bool = true,
    policy: ReconnectPolicy = .standard, takesChallenges: Bool = false,
    promisesKeepalive: Bool = true, lobbyPatches: Bool = true
  ) {
    self.promisesKeepalive = promisesKeepalive
    self.lobbyPatches = lobbyPatches
    self.name = name
    self.room = room
    self.role = role
    self.takesChallenges = takesChallenges
    self.fair = fair
    self.resume = resume
    self.keepaliveMillis = max(1, keepaliveMillis)
    self.reconnects = reconnects
    self.policy = policy
  }

  /// The keepalive as the whole seconds a `hello` promises (1 to 60), rounded up.
  public var promisedSeconds: Int {
    Int(min(60, max(1, (keepaliveMillis + 999) / 1_000)))
  }

  /// The greeting (`hello`) this player says on a new connection, numbered `id`: a lobby follower's
  /// (asking for patches, saying whether it takes challenges; this client plays fair
  /// rooms), or, once it holds a seat (`resume`, its token, in `room`), or for any other
  /// role, a player's or a spectator's. Every `hello` a client of this package sends is
  /// written here.
  public func greeting(id: Int?, resume: String? = nil, room seatRoom: String? = nil)
    -> ClientMessage
  {
    let keepalive = promisesKeepalive ? promisedSeconds : nil
    if role == .lobby, resume == nil {
      return .hello(
        protocol: WireProtocol.version, name: name, role: .lobby, room: nil, resume: nil,
        fair: true, challenges: takesChallenges, keepalive: keepalive, patches: lobbyPatches,
        id: id)
    }
    return .hello(
      protocol: WireProtocol.version, name: name, role: role == .lobby ? .player : role,
      room: seatRoom ?? room, resume: resume, fair: fair, keepalive: keepalive, id: id)
  }
}

/// Everything a player holds, as one value: where its session is (``Phase``, which
/// carries what that phase needs), the match as this client sees it (``ClientState``,
/// kept across connections), the pace its frames keep, and its timers.
///
/// Invariant: only the phases with a connection (``Phase/awaitingWelcome(_:outage:)``,
/// ``Phase/following(_:_:)``, ``Phase/seated(_:)``) hold a ``Link``, so nothing is sent, pinged or timed for a
/// connection that is gone.
public struct PlayerState: Equatable, Sendable {
  /// Where the session is.
  public enum Phase: Equatable, Sendable {
    /// Not started.
    case idle
    /// The first connection is being made.
    case connecting
    /// Connected and `hello` sent; `outage`: this connection replaces a lost one, whose
    /// patience still runs until the welcome.
    case awaitingWelcome(Link, outage: Outage?)
    /// Connected as a lobby follower, `hello` sent; following the lobby (its views, its
    /// challenges) until the server seats this connection.
    case following(Link, LobbyFollowing)
    /// Welcomed to a room: a player's seat, or a spectator's place.
    case seated(Link)
    /// The connection was lost; waiting to try again, or trying.
    case reconnecting(Outage)
    case ended(PlayerEnd)
  }

  /// One connection's machines: its keepalive, when it began, and what was said on it.
  public struct Link: Equatable, Sendable {
    public var keepalive: Keepalive
    public var connectedAt: Int64
    /// When the server first said on this connection that it is closing.
    public var closingSaidAt: Int64?
    /// Whether the next `state` is the first since a `welcome` (it may repeat the view).
    public var firstAfterWelcome = false
  }

  /// A lost connection, from its loss until a new one is welcomed.
  public struct Outage: Equatable, Sendable {
    /// When the connection was lost.
    public var since: Int64
    /// The number of the try under way, or the next.
    public var attempt: Int
    /// Whether a connection is being made for that try.
    public var trying: Bool
    /// A lobby follower's: the server may have seated this person on the lost connection
    /// (``LobbyFollowing/seatMayWait``), so the new one may be seated at any time.
    public var seatMayWait = false
  }

  /// What the kept seat's file holds, as far as this session knows.
  enum KeptSeat: Equatable, Sendable {
    case unknown
    case kept(room: String, token: String)
    case forgotten
  }

  public internal(set) var phase: PlayerState.Phase = .idle
  /// The match as this client sees it, with its fair-play checks.
  public internal(set) var match = ClientState()
  /// How fast frames may go, and which wait.
  public internal(set) var pacer = Pacer(now: 0)
  /// The `id` of the last message numbered.
  public internal(set) var lastID = 0
  /// The timers scheduled, and when they fire.
  public internal(set) var timers: [PlayerTimer: Int64] = [:]
  /// Since when the server has said it is closing on every connection (from the loss of
  /// the first of them).
  public internal(set) var closingSince: Int64?
  /// Whether the player left (or hung up): a lost connection is not replaced.
  public internal(set) var quitting = false
  /// The nonce for this player's next fair commitment, drawn while it waits.
  public internal(set) var nextNonce = NextNonce()
  var keptSeat = KeptSeat.unknown
  /// The server was caught lying and the evidence is being written: the session ends once
  /// it is (its last words say where).
  var evidencePending = false

  public init() {}

  /// The connection's machines, in the phases that have one.
  public var link: Link? {
    switch phase {
    case .awaitingWelcome(let link, _), .following(let link, _), .seated(let link): link
    default: nil
    }
  }

  /// The lobby's following, while the session follows it.
  public var lobby: LobbyFollowing? {
    if case .following(_, let following) = phase { return following }
    return nil
  }

  /// Why the session ended, once it has.
  public var end: PlayerEnd? {
    if case .ended(let end) = phase { return end }
    return nil
  }
}
