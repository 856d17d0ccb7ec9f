import RoshamboGame
import RoshamboProtocol

/// Everything the hub holds, as one value: the lobby, who is connected where, what the
/// next commit makes durable and what it will send, the commit in flight, the lobby's
/// feed, challenges, the tournament's seating, the drain, and which timers run.
///
/// Invariant: the timers in ``timers`` are exactly those the driver has been told to
/// keep (every `schedule` recorded, every `cancel` and firing removed).
package struct HubState {
  package internal(set) var lobby: LobbyState
  var sessions = Sessions()
  var outbox = Outbox()
  var batch = JournalBatch()
  var commits = CommitStateMachine<Flight>()
  /// The number of the journal's last row once everything sealed is committed.
  var journaledThrough: Int64
  var flushScheduled = false
  /// When the lobby's followers get their next view, and the leaderboard it shows.
  var feed = LobbyFeed()
  var leaders = LeaderboardReading()
  /// The fleet's name book as last read, by folded name (empty outside a fleet).
  var fleetNames: [String: FleetName] = [:]

  /// Whether the hub takes actions now (not paused by a failed journal write).
  package var acceptsActions: Bool { commits.acceptsActions }

  /// The number of the lobby view last sent to every follower, and that view (a
  /// follower's copy is that view once the frames have arrived).
  package var lobbyViewSent: (seq: Int, view: LobbyView?) { (feed.seq, feed.sent) }
  package var challenges: ChallengeBoard
  /// The room connection `id` is seated in, if it plays (for the simulator's invariants).
  package func room(seating id: Int) -> String? { sessions[id]?.room }
  var tournament: TournamentSeating
  /// What a new follower is told once their first lobby view is on its way, by connection.
  var noticesAfterFirstView: [Int: (Peer, ProtocolError)] = [:]
  /// Reads of match records under way, by a number of their own.
  var recordReadings: [Int: RecordReading] = [:]
  var recordReadingsStarted = 0
  /// Whether the hub is stopping: nothing new is read.
  package internal(set) var stopping = false
  var drain = DrainStateMachine()
  /// Each timer running, with the moment it fires and, for a deadline, its round.
  package internal(set) var timers: [HubTimer: TimerEntry] = [:]
  /// The seats with a `grace` timer in ``timers``, by the name each waits for: the only
  /// seats where someone is waited for, so finding one never looks at every room.
  var seatsInGrace = SeatsInGrace()
  /// The new player identities each address may still bring (not journaled: a restart
  /// forgets what was spent).
  var newIdentities: NewIdentityBudget
  /// The room holding each seat's resume token: a resume finds its seat at once.
  var seatTokens: SeatTokens
  var snapshots: SnapshotSchedule
  /// The stage each tournament room's latest state carried, by its version: a state sent
  /// again (to a seat resumed) is the very view sent before, as the protocol says.
  var stages: [String: (version: Int, stage: RoomView.TournamentStage?)] = [:]

  /// Where the next resume token comes from.
  var tokens: TokenSource

  init(lobby: LobbyState, journaledThrough: Int64, configuration: HubConfiguration) {
    self.tokens = configuration.tokenSeed.map { .seeded(SplitMix64(seed: $0)) } ?? .system
    self.lobby = lobby
    self.seatTokens = SeatTokens(lobby)
    self.journaledThrough = journaledThrough
    self.challenges = ChallengeBoard(
      lifetimeMillis: configuration.challengeLifetimeMillis, blocks: lobby.blocks)
    self.tournament = TournamentSeating(plan: configuration.tournament)
    self.snapshots = SnapshotSchedule(interval: max(1, configuration.compactionInterval))
    self.newIdentities = NewIdentityBudget(perHour: configuration.newIdentitiesPerAddress)
  }

  /// A timer's moment, and the round a deadline is for.
  package struct TimerEntry: Equatable, Sendable {
    package var at: Int64
    var round = 0
  }

  /// A sealed batch on its way to the disk, and what it sends once it is durable.
  struct Flight {
    var batch: JournalBatch.Sealed
    var deliveries: [Delivery]
    /// The lobby after this batch, when a snapshot is due: written once it is committed.
    var snapshot: LobbyState?
    /// The number of the journal's row this batch ends with.
    var through: Int64
    /// What changed in the sessions while this batch gathered: a failed commit undoes it
    /// (and what came after), going back to the sessions as the batch began. Kept as the
    /// changes, not a copy of the sessions: a copy would be copied again, whole, by the
    /// next change (copy on write), at every commit.
    var sessionsChanged: Sessions.Changes
  }

  /// How many matches are being played now.
  package var matchesUnderWay: Int { lobby.rooms.values.count { $0.phase == .choosing } }

  /// Whether any match is being played: asked at every flush while draining, so it stops
  /// at the first match it finds (as matches end, more rooms are looked at; the drain ends
  /// when none is left).
  var anyMatchUnderWay: Bool { lobby.rooms.values.contains { $0.phase == .choosing } }
}

/// When the leaderboard is read: at start, and after matches were recorded, at most
/// every 2 s; the fleet's shared one, when there is one, is shown instead.
struct LeaderboardReading {
  var stale = true
  var reading = false
  var readAt: Int64?
  var shared: [LobbyView.Leader]?
}

/// When the journal is folded into a snapshot: after `interval` actions, or 10 per room
/// if that is more, and never while one is being written.
struct SnapshotSchedule {
  let interval: Int
  var sinceLast = 0
  var writing = false

  /// `count` more actions are sealed in a lobby of `rooms` rooms: whether one is due now.
  mutating func due(after count: Int, rooms: Int) -> Bool {
    sinceLast += count
    // A snapshot costs in proportion to the rooms; taking one at most every 10 actions
    // per room keeps its cost per action flat as the lobby grows.
    guard sinceLast >= max(interval, 10 * rooms), !writing else { return false }
    sinceLast = 0
    writing = true
    return true
  }
}

/// The tournament on the server: its plan, each entrant's connection, the address each
/// entered from, this round's tokens (the journal keeps only their hashes), who lost
/// their entry while away, and when the tournament's timer fires.
struct TournamentSeating {
  var plan: TournamentPlan
  var links: [String: Peer] = [:]
  var entryAddresses: [String: String] = [:]
  var tokens: [String: String] = [:]
  /// Last round's tokens (stored form) by entrant: one who resumes with theirs, the new
  /// round's welcome having gone to a connection already lost, is seated in this round.
  var formerTokens: [String: String] = [:]
  var lapsed: Set<String> = []
  /// Entrants whose connection dropped while entries are open, and the connection that
  /// entered (the entry goes when their ``HubTimer/entryGrace(name:)`` fires).
  var away: [String: Peer] = [:]
  /// When the tournament timer closes entries or pairs the next round (ms since 1970).
  var startsAt: Int64?
  /// What the tournament timer does when it fires.
  var timerPurpose: TimerPurpose?

  enum TimerPurpose: Equatable {
    case startRound
    case openNext
  }
}

/// Resume tokens: 128 random bits as hex, from the system's generator or, for tests and
/// simulations, from a seed (SplitMix64), so the same inputs give the same outputs.
enum TokenSource {
  case system
  case seeded(SplitMix64)

  mutating func next() -> String {
    switch self {
    case .system:
      return ResumeToken.make()
    case .seeded(var generator):
      let words = [generator.next(), generator.next()]
      self = .seeded(generator)
      return words.map {
        let hex = String($0, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
      }.joined()
    }
  }
}

extension HubState {
  /// What differs between the hub's indexes (names, resume tokens, seats in grace) and
  /// what a scan of everything would find, or nil when nothing does. For the property
  /// tests and the simulator, never on the hot path: it looks at every connection and room.
  package var indexMismatch: String? {
    if let mismatch = sessions.indexMismatch() { return "sessions: \(mismatch)" }
    if let mismatch = seatTokens.mismatch(with: lobby) { return "resume tokens: \(mismatch)" }
    var inGrace: Set<SeatsInGrace.Place> = []
    for case .grace(let room, let seat) in timers.keys {
      inGrace.insert(.init(room: room, seat: seat))
    }
    if inGrace != Set(seatsInGrace.names.keys) {
      return "seats in grace: \(seatsInGrace.names.keys.sorted()), timers: \(inGrace.sorted())"
    }
    return nil
  }
}
