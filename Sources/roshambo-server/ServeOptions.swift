import ArgumentParser
import Foundation
import Logging
import RoshamboGame
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS

/// What `roshambo-server` runs with: where to listen, its certificate, its data, how
/// rooms play and its limits.
struct ServeOptions: ParsableArguments {
  /// Every default is the configuration's own: written once, in `ServerConfiguration`.
  static let defaults = ServerConfiguration(
    certificateChainFile: "", privateKeyFile: "", dataDirectory: nil)
  @Option(help: "The address to listen on.")
  var host = Self.defaults.host

  @Option(help: "The TCP port; 0 picks a free one and prints it.")
  var port = Self.defaults.port

  @Option(help: ArgumentHelp("The certificate chain, PEM (leaf first).", valueName: "file"))
  var cert: String?

  @Option(help: ArgumentHelp("The certificate's private key, PEM.", valueName: "file"))
  var key: String?

  @Option(help: ArgumentHelp("Where the journal (roshambo.sqlite) is kept.", valueName: "dir"))
  var dataDir = "data"

  @Option(help: "Rounds in a match: an odd number from 1 to 99.")
  var bestOf = Self.defaults.roomSettings.bestOf

  @Option(help: "classic (rock, paper, scissors) or lizardSpock (adds lizard and Spock).")
  var ruleset = Self.defaults.roomSettings.ruleset

  @Option(help: "Seconds a round may last before missing picks lose it; 0 for no limit.")
  var roundSeconds = Self.seconds(Self.defaults.roomSettings.roundMillis)

  @Flag(
    help: ArgumentHelp(
      "Make every new room fair: rounds are played by commit–reveal.",
      discussion: """
        Each player first sends a SHA-256 commitment to a weapon and a random nonce, and \
        reveals both once the opponent has committed; every client checks every round, so \
        the server (and whoever hosts it) never knows a weapon before both players are \
        bound to theirs. Clients older than 1.2 cannot join fair rooms. Without it, a \
        player may still ask for a fair named room (roshambo play --fair --room NAME).
        """))
  var fair = false

  @Option(help: "Seconds a dropped player's seat is held for them to come back.")
  var graceSeconds = Self.seconds(Self.defaults.roomSettings.graceMillis)

  @Option(
    help: ArgumentHelp(
      "Connections allowed at once; more are refused with server_full.",
      discussion: """
        Each connection is an open file: at start the server raises its open-file limit \
        as far as the system allows, and takes fewer connections (saying so) if this many \
        still do not fit.
        """))
  var maxConnections = Self.defaults.limits.maxConnections

  @Option(
    help: ArgumentHelp(
      "Connections one IP address (an IPv6 address: its /64) may hold at once.",
      discussion: """
        Checked the moment a connection arrives, before TLS: more from the address are \
        refused (the first few are told server_full, the rest closed at once). One \
        address may also have at most this many TLS handshakes under way, and no more \
        than 256. Players behind one NAT share an address: raise it for a LAN party \
        behind one router, or for load tests.
        """))
  var maxConnectionsPerAddress = Self.defaults.limits.maxConnectionsPerAddress

  @Option(help: "Seconds without a complete message before a connection is closed.")
  var idleSeconds = Int(Self.defaults.limits.idleTimeoutSeconds)

  @Option(
    help: ArgumentHelp(
      "Messages one connection may send a second, after a burst of twice as many;"
        + " 0 for no limit.",
      discussion: """
        The server tells every client this rate when it says welcome, and the clients \
        and bots that come with roshambo keep to it: at the default of 20 a bot plays \
        about 4 matches a second. For an evening of bots on machines you trust, 0 lifts \
        the limit and they play as fast as the server answers.
        """, valueName: "count"))
  var messagesPerSecond = Self.defaults.limits.framesPerSecond

  @Option(
    help: ArgumentHelp(
      "Seconds a new connection has to finish TLS and say hello before it is closed"
        + " (TLS itself half of them, at least 5).",
      visibility: .hidden))
  var helloSeconds = Int(Self.defaults.limits.helloTimeoutSeconds)

  @Option(help: "Finished matches kept for `history` (the leaderboard keeps every total).")
  var keepMatches = Self.defaults.keepMatches

  @Option(
    help: ArgumentHelp(
      "What an acknowledged action survives: process (default) or power.",
      discussion: """
        The journal commits every action before anyone sees its result. With process \
        the commit is in the system's hands: it survives the server's crash, but a \
        power cut or kernel panic can lose the last seconds of play. With power each \
        commit is synced to the disk first (one sync per batch of actions, so play \
        waits for the disk, not for every action): it survives a power cut, at the \
        cost of a sync's time on each pick. See docs/OPERATIONS.md.
        """, valueName: "process|power"))
  var durability = Self.defaults.durability

  @Option(
    help: ArgumentHelp(
      "Serve /metrics, /livez and /readyz over plain HTTP on this address (off by default).",
      discussion: """
        For Prometheus and health checks: HOST:PORT, e.g. 127.0.0.1:9464 (a port of its \
        own, never the game's). Metrics say how the server is doing, never a pick or a \
        name; bind it to loopback, or to an address only your monitoring reaches. See \
        docs/OPERATIONS.md.
        """, valueName: "host:port"))
  var metricsAddress: OperationsAddress?

  @Option(
    help: ArgumentHelp(
      "Show the party on a web page on this port (off by default): http://HOST:PORT/.",
      discussion: """
        A read-only board for a TV or a laptop's browser: the tournament's bracket, the \
        matches being played, the leaderboard, live. Plain HTTP on a port of its own; it \
        shows only what any lobby follower sees. See docs/OPERATIONS.md.
        """, valueName: "port"))
  var board: Int?

  @Option(
    help: ArgumentHelp(
      "The address the board listens on (by default --host's).", valueName: "host"))
  var boardHost: String?

  @Option(help: "Browsers that may watch the board at once; more are refused until one leaves.")
  var boardViewers = 32

  @Option(
    help: ArgumentHelp(
      "Ship every finished match to a PostgreSQL database shared by a fleet of servers.",
      discussion: """
        postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require] (the password \
        may come from PGPASSWORD instead). The journal keeps each match until the \
        database has it, so play never waits for it and nothing is lost while it is \
        down; the tables are made on first use. Needs --data-dir. See docs/OPERATIONS.md.
        """, valueName: "url"))
  var historyURL: String?

  @Flag(
    help: ArgumentHelp(
      "Run as an Agones GameServer (also when AGONES_SDK_HTTP_PORT is set).",
      discussion: """
        Tells the Agones SDK server beside it (127.0.0.1, port AGONES_SDK_HTTP_PORT or \
        9358) that it is Ready once it listens, Health every 2 s while the game's loop \
        answers, the Counters `players`, `rooms` and `waiting` and the List `rooms` (what \
        `roshambo play --allocator` is routed by), and Shutdown when it stops (after its \
        drain); it drains when Agones sets the GameServer to Shutdown. Implies \
        --no-announce: in a fleet, players find servers through the allocator. See \
        docs/OPERATIONS.md.
        """))
  var agones = false

  /// The Agones SDK server's port, when the server runs under Agones.
  var agonesPort: Int? {
    let environment = ProcessInfo.processInfo.environment["AGONES_SDK_HTTP_PORT"]
    guard agones || environment != nil else { return nil }
    return environment.flatMap(Int.init) ?? 9358
  }

  /// `--history-url`, parsed (``validate()`` refused a bad one).
  var historyAddress: HistoryAddress? { historyURL.flatMap { try? HistoryAddress(parsing: $0) } }

  @Option(
    help: ArgumentHelp(
      "Seconds a stopping server lets the matches under way finish (SIGTERM: 30, SIGINT: 5).",
      discussion: """
        On SIGTERM or SIGINT the server drains before it stops: it takes no new \
        connections, stops announcing itself, tells every player it is closing and when, \
        and starts no new match; it stops as soon as no match is under way, or when this \
        time is up. A match still unfinished then is saved, and resumes when the server \
        starts again. A second signal stops it at once. 0 stops without waiting.
        """, valueName: "seconds"))
  var drainSeconds: Double?

  @Option(
    help: ArgumentHelp(
      "Run a tournament for the lobby: round-robin, single-elimination or swiss.",
      discussion: """
        Opened when the server starts with no tournament in its journal. Players enter \
        from the lobby (key t on its screen, or `roshambo bot --tournament`); entries \
        close --tournament-start seconds after the second entry, or as soon as \
        --tournament-players have entered. The server pairs each round, seats the pairs \
        in rooms cup-N-R-M (best of --best-of, the --ruleset, fair with --fair), gives \
        byes on odd counts, and pairs the next round --tournament-pause seconds after \
        the last match of a round ends; a player who does not come forfeits after the \
        grace period. The lobby shows the standings and the pairings.
        """))
  var tournament: Tournament.Kind?

  @Option(help: "Start the tournament as soon as this many have entered (0: by time only).")
  var tournamentPlayers = Self.defaults.tournamentPlayers

  @Option(help: "Seconds after the second entry that the tournament starts.")
  var tournamentStart = Self.seconds(Self.defaults.tournamentStartMillis)

  @Option(help: "Seconds between a tournament round's end and the next round.")
  var tournamentPause = Self.seconds(Self.defaults.tournamentPauseMillis)

  @Option(
    help: ArgumentHelp(
      "Seconds after a tournament ends that the next one opens for entries (off: none).",
      discussion: """
        The next tournament is of the same kind and settings, on the same journal: its \
        rooms are numbered on (cup-2-…) and the leaderboard and history carry on. With \
        off, the server must be restarted for another.
        """, valueName: "seconds|off"))
  var tournamentNext =
    Self.defaults.tournamentNextMillis.map {
      $0 % 1_000 == 0 ? String($0 / 1_000) : String(Self.seconds($0))
    } ?? "off"

  @Option(
    help: ArgumentHelp(
      "Tournament entries one IP address (an IPv6 address: its /64) may have (0: any).",
      discussion: """
        A player identity costs nothing to make, so one machine could enter any number \
        of names; more entries from the address are refused. Players behind one NAT \
        address share it: for a party behind one router, or several players on this \
        machine, raise it (or 0).
        """))
  var tournamentEntriesPerAddress = Self.defaults.tournamentEntriesPerAddress

  @Flag(
    help: ArgumentHelp(
      "Rate matches between two players at one IP address.",
      discussion: """
        A match rates its players only when two different player identities play it \
        from two different addresses (an IPv6 address: its /64), so that nobody can \
        raise a rating by playing themselves. Players behind one NAT share an address: \
        for a party behind one router, pass this. Other matches are played and kept.
        """))
  var ratedSameAddress = false

  @Option(
    help: ArgumentHelp(
      "Different opponents a player must have been rated against to be on the leaderboard.",
      discussion: """
        A ring of a few player identities playing each other cannot fill the board. For \
        two or three people playing together, lower it (1, or 0 to list everyone who \
        played, rated or not).
        """, valueName: "count"))
  var leaderboardOpponents = Self.defaults.listedOpponents

  @Option(
    help: ArgumentHelp(
      "Names one player identity (client key) may hold here.",
      discussion: """
        A name belongs to the first key to use it here; past this many, a key plays under \
        the names it holds, so that nobody can take every name newcomers would use.
        """, valueName: "count"))
  var namesPerKey = Self.defaults.namesPerIdentity

  @Option(
    help: ArgumentHelp(
      "Days a name stays its holder's while they do not use it (0: for ever).",
      discussion: """
        Once a holder has not played under a name here for this long, the next player \
        to use it holds it.
        """, valueName: "days"))
  var nameLapseDays = Self.defaults.nameLapseDays

  @Option(
    help: ArgumentHelp(
      "New player identities one IP address (IPv6: its /64) may bring in an hour (0: any).",
      discussion: """
        A client key costs nothing to make: without a bound one machine could hold every \
        name. Players behind one NAT address share it: for a party behind one router \
        with more newcomers than this, raise it (or 0).
        """, valueName: "count"))
  var newKeysPerAddress = Self.defaults.newIdentitiesPerAddress

  @Option(
    name: .customLong("release-name"),
    help: ArgumentHelp(
      "Free a name whichever player identity holds it (repeat for several).",
      discussion: """
        A name belongs to the first player identity (client key) to use it here; a \
        player who lost their identity file, or a name someone took in jest, is freed \
        with this at the next start. The next player to use it holds it. It acts once: \
        later starts with the same flag leave the name to its new holder (the server \
        says so; remove the flag), and a match of the old holder's still running keeps \
        its seat for its token.
        """, valueName: "name"))
  var releasedNames: [String] = []

  @Flag(
    help: ArgumentHelp(
      "Start even though the journal is damaged.",
      discussion: """
        Moves roshambo.sqlite (and its -wal and -shm files) in --data-dir aside, renamed \
        with .damaged-TIME (never deleted), and starts a new journal from the last good \
        state: the snapshot and every row before the first one that cannot be read. \
        Finished matches and the leaderboard are carried over.
        """))
  var recover = false

  @Flag(help: "Also accept TLS 1.2 (ECDHE with AEAD suites only).")
  var allowTLS12 = false

  @Option(
    help: ArgumentHelp(
      "Event loop threads for connections.",
      discussion: """
        With 1 (the default) every connection and the game share one thread, so a pick \
        never waits for a hand-over between threads. More threads spread the TLS work \
        of many connections over more cores, at the cost of those hand-overs.
        """))
  var threads = Self.defaults.threads

  @Option(
    help: ArgumentHelp(
      "The name announced on the local network (by default the host name).",
      discussion: "Follows the rule for player names: 1 to 24 characters, nothing invisible."))
  var name: String?

  @Flag(
    help: ArgumentHelp(
      "Do not announce the server on the local network.",
      discussion: """
        By default the server multicasts its name, port, waiting players and identity \
        code to \(Announcement.group) UDP port \(Announcement.port) every 2 s, so that \
        `roshambo play` and `roshambo servers` find it without --host.
        """))
  var noAnnounce = false

  @Flag(
    help: ArgumentHelp(
      "No journal, and stop when standard input closes (`roshambo play --vs-bot`).",
      visibility: .hidden))
  var ephemeral = false

  @Option(
    help: ArgumentHelp(
      "The least severe log lines written (key=value, on standard error).",
      discussion: "By default warnings and worse; info logs every connection, match and "
        + "tournament step. The party's news is printed as sentences either way."))
  var logLevel = Logger.Level.warning

  /// `--name`, or the host name when it makes a valid name (cut to fit), or "roshambo".
  var announcedName: String {
    if let name { return (try? PlayerName.normalize(name).get()) ?? name }
    let host = String(LocalNetwork.hostName().prefix(PlayerName.maxCharacters))
    return (try? PlayerName.normalize(host).get()) ?? "roshambo"
  }

  /// Milliseconds as the seconds a flag takes.
  private static func seconds(_ millis: Int64) -> Double { Double(millis) / 1_000 }
}
