import RoshamboGame
import RoshamboProtocol

/// What the hub is told once, at start: how often to fold the journal, how long to wait
/// before trying a failed journal again, the challenges' lifetime, the tournament plan,
/// the server's name, and where new resume tokens come from.
///
/// Invariant: nothing here changes while the hub runs.
package struct HubConfiguration: Sendable, Equatable {
  /// Whether a journal keeps what is accepted (without one nothing is committed).
  package var hasJournal: Bool
  /// Actions between two snapshots of the journal (at least 10 per room).
  package var compactionInterval = 10_000
  /// How long a paused hub waits before trying the journal again, ms.
  package var retryMillis: Int64 = 1_000
  package var challengeLifetimeMillis = ChallengeBoard.defaultLifetimeMillis
  package var tournament = TournamentPlan(
    kind: nil, settings: .init(), players: 0, startMillis: 60_000, pauseMillis: 3_000)
  /// The server's name for people (the one it announces), shown in the lobby's title.
  package var serverName: String?
  /// The rate each `welcome` announces (the connections' limit), if any.
  package var frameRate: FrameRate?
  /// The least level of log line the driver writes: lines below it are not made (a
  /// resolved round's line is made on every round otherwise).
  package var logLevel = HubLog.Level.info
  /// Whether the host's terminal is told the party's news (``HubOutput/news(_:)``).
  package var tellsNews = false
  /// Where resume tokens come from: nil, the system's random numbers; a seed, a
  /// reproducible sequence (tests and simulations; never a server people use).
  package var tokenSeed: UInt64?
  /// Which finished matches move ratings (`--rated-same-address` lets one address's
  /// seats be rated against each other).
  package var ratingRule = RatingRule()
  /// The names one player identity may hold here.
  package var namesPerIdentity = 5
  /// How long a held name stays its holder's unused, ms (nil: for ever).
  package var nameLapseMillis: Int64? = 30 * 86_400_000
  /// Player identities new to this server one address may bring in an hour (0: any).
  package var newIdentitiesPerAddress = 10
  /// Whether the server belongs to a fleet whose name book it shares: it offers what its
  /// holders do (``HubOutput/offerNames(_:)``) and yields to the fleet's holders
  /// (``HubInput/fleetNamesRead(_:)``).
  package var sharesNames = false
  /// Whether a board watches the lobby (`roshambo-server --board`): views to all are made
  /// as for one more follower, and each goes whole to ``Delivery/boardID`` too.
  package var feedsBoard = false

  package init(hasJournal: Bool) {
    self.hasJournal = hasJournal
  }
}

/// How the server runs its tournament: which kind it opens, how its matches are played,
/// when entries close, the pause between rounds.
package struct TournamentPlan: Sendable, Equatable {
  package var kind: Tournament.Kind?
  package var settings: RoomState.Settings
  /// Start once this many have entered (0: by the timer only).
  package var players: Int
  /// …or this long after the second entry, ms.
  package var startMillis: Int64
  package var pauseMillis: Int64
  /// After a tournament ends, the next opens for entries this much later (nil: none).
  package var nextMillis: Int64? = nil
  /// Entries one address may have at once (0: no bound).
  package var entriesPerAddress = 0

  package init(
    kind: Tournament.Kind?, settings: RoomState.Settings, players: Int, startMillis: Int64,
    pauseMillis: Int64, nextMillis: Int64? = nil, entriesPerAddress: Int = 0
  ) {
    self.kind = kind
    self.settings = settings
    self.players = players
    self.startMillis = startMillis
    self.pauseMillis = pauseMillis
    self.nextMillis = nextMillis
    self.entriesPerAddress = entriesPerAddress
  }
}
