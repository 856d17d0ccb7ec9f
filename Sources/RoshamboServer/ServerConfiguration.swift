import NIOCore
import RoshamboConnections
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS

/// Everything a server needs to run: where to listen, its certificate, where to keep
/// its data, how rooms play, and its limits.
///
/// Invariant: plain data; ``GameServer/start(_:logger:storage:now:)`` checks it (files, values).
public struct ServerConfiguration: Sendable {
  /// The limits that keep bad or greedy clients cheap (``ConnectionLimits``).
  public typealias Limits = ConnectionLimits

  public var host = "0.0.0.0"
  public var port = 7443
  public var certificateChainFile: String
  public var privateKeyFile: String
  /// Where the SQLite journal lives; nil keeps everything in memory (tests, benchmarks).
  public var dataDirectory: String?
  public var roomSettings = RoomState.Settings()
  public var allowTLS12 = false
  public var limits = Limits()
  /// After this many journaled actions (or 10 per room, if that is more) the journal is
  /// folded into a snapshot, so it stays bounded however long the server runs.
  public var journalCompactionInterval = 10_000
  /// Finished matches kept for `history` (the leaderboard keeps every player's totals).
  public var keepMatches = 10_000
  /// What a commit of the journal survives once it returned (and a client may see it).
  public var durability = JournalDurability.process
  /// The tournament the server opens for its lobby when it starts with none (nil: none).
  public var tournament: Tournament.Kind?
  /// How the tournament's matches are played (by default the rooms' settings).
  public var tournamentSettings: RoomState.Settings?
  /// The tournament starts once this many have entered (0: only by the timer below).
  public var tournamentPlayers = 0
  /// …or this long after its second entry, ms.
  public var tournamentStartMillis: Int64 = 60_000
  /// The pause between a round's end and the next round's seating, ms (to see results).
  public var tournamentPauseMillis: Int64 = 3_000
  /// After a tournament ends, the next of the same kind opens for entries this much
  /// later, ms (nil: none; the server must be restarted for another).
  public var tournamentNextMillis: Int64? = 60_000
  /// How many entries one address may have in a tournament, by default.
  public static let defaultTournamentEntriesPerAddress = 2
  /// How many entries one IP address (an IPv6 address: its /64) may have in a tournament
  /// at once, whatever identities they come under (0: no bound). Players behind one NAT
  /// share an address: a party there raises it.
  public var tournamentEntriesPerAddress = Self.defaultTournamentEntriesPerAddress
  /// Whether a match between two seats from one address is rated (a LAN behind one
  /// NAT); otherwise such a match is played and kept but rates nothing.
  public var ratesSameAddress = false
  /// The different rated opponents a player needs to be listed on the lobby's
  /// leaderboard (0: everyone who played, rated or not).
  public var listedOpponents = Glicko2Rating.listedOpponents
  /// The names one player identity may hold on this server.
  public var namesPerIdentity = 5
  /// Days a held name stays its holder's while unused (0: for ever).
  public var nameLapseDays = 30

  /// ``nameLapseDays`` in milliseconds (nil: names never lapse).
  package var nameLapseMillis: Int64? {
    nameLapseDays > 0 ? Int64(nameLapseDays) * 86_400_000 : nil
  }
  /// Player identities new to this server one address may bring in an hour (0: any).
  public var newIdentitiesPerAddress = 10
  /// Names the host frees at start, whichever player identity held them.
  public var releasedNames: [String] = []
  /// How long a challenge in the lobby waits for its answer, ms.
  public var challengeLifetimeMillis = ChallengeBoard.defaultLifetimeMillis
  /// Commits that have been taking less than this many µs on average run on the hub's
  /// loop (cheaper than handing them to the journal's thread and back); slower ones run
  /// on the journal's thread, so a slow disk never holds the game up. 0 sends every
  /// commit to the journal's thread.
  public var journalInlineCommitMicros = 300
  /// Whether a commit with durability `process` is a copy into the journal's tail, which
  /// the journal's thread writes to the database within 100 ms (the default);
  /// false writes the database at each commit (the benchmarks' baseline).
  public var journalTail = true
  /// While the journal cannot be written, how often the hub tries again (ms).
  public var journalRetryMillis: Int64 = 1_000
  /// Event loop threads for connections; the hub runs on the first. With one, a
  /// connection and the game never hand work to each other across threads (see
  /// docs/PERFORMANCE.md for what that saves).
  public var threads = 1
  /// Whether the hub measures how long its loop stalls and what ran in the stalls
  /// (``GameServer/stallProfile()``; logged every 10 s at debug level).
  public var profileStalls = false
  /// What the server's operator can do about a client's failed TLS handshake, added to
  /// its log line (the executable knows its own flags; the library does not).
  public var tlsAdvice: @Sendable (TLSError) -> String? = { _ in nil }
  /// The name the server announces itself under on the local network (docs/PROTOCOL.md,
  /// "Finding servers on a LAN"); nil does not announce.
  public var announceName: String?
  /// Where the party's news goes as plain sentences for the host (``HostNews``: the
  /// tournament, challenges taken, matches won), or nil; the executable prints them.
  public var news: (@Sendable (String) -> Void)?
  /// The UDP port of the announcement group (tests use one of their own).
  public var announcePort = Announcement.port
  /// How often the server announces itself unasked (it also answers queries at once).
  public var announceInterval: TimeAmount = .seconds(2)
  /// Where the operations endpoint (`/metrics`, `/livez`, `/readyz`; plain HTTP)
  /// listens; nil: nowhere (the default).
  public var operationsAddress: (host: String, port: Int)? {
    get { operationsHost.map { ($0, operationsPort) } }
    set {
      operationsHost = newValue?.host
      operationsPort = newValue?.port ?? 0
    }
  }
  private var operationsHost: String?
  private var operationsPort = 0
  /// Whether a board (`--board`) watches the lobby: the hub makes its views as for one
  /// more follower, and ``GameServer/watchLobby(_:)`` hands each to it.
  public var feedsBoard = false
  /// The shared history finished matches are shipped to (needs a data directory: the
  /// journal keeps each match until the history has it); nil: none, the journal's own.
  public var historyAddress: HistoryAddress?
  /// Finished matches the journal's outbox holds for the shared history at most; past it
  /// the oldest are dropped from it (the journal keeps them), so a long outage of
  /// PostgreSQL cannot grow the journal without bound.
  public var maxHistoryOutbox = 100_000
  /// The port of the Agones SDK server beside this one (``AgonesLink``); nil: not run by
  /// Agones.
  public var agonesPort: Int?
  /// How long the drain a SIGTERM (or Agones' `Shutdown`) asks for may last, and the one a
  /// SIGINT asks for (the host at the terminal waits for it).
  public var drainLimitOnTerminate = Duration.seconds(30)
  public var drainLimitOnInterrupt = Duration.seconds(5)
  /// The git commit the binary was built from (for `roshambo_build_info`).
  public var sourceCommit = "unknown"

  public init(certificateChainFile: String, privateKeyFile: String, dataDirectory: String?) {
    self.certificateChainFile = certificateChainFile
    self.privateKeyFile = privateKeyFile
    self.dataDirectory = dataDirectory
  }
}

/// What an acknowledged action survives: the journal's commit has returned before any
/// client sees the action's result, and this says how far that commit got.
public enum JournalDurability: String, Sendable, CaseIterable {
  /// The commit is in the operating system's hands (SQLite's WAL, `synchronous =
  /// NORMAL`): it survives the server's crash, not the machine's (a power cut, a kernel
  /// panic); the WAL is synced only at checkpoints.
  case process
  /// The commit is on the disk (`synchronous = FULL`: the WAL is synced at every commit,
  /// so one sync per batch of actions the hub commits together): it survives a power cut.
  case power
}
