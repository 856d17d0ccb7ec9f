// Server benchmarks, each printed beside its baseline from the same run:
//   1. round trip of a pick (a client sends choose → the new state has arrived at both
//      seats), next to ping/pong on the same connections (the floor);
//   2. capacity: N rooms (2N TLS connections) playing at once for S seconds: picks per
//      second, latency of a pick (choose → own state back) p50/p99, server memory per
//      connection; with durability on (`process`, the default: commits survive the
//      server's crash) and `power` (each commit synced: they survive a power cut), next
//      to the same run with durability off, and the journal's actions per commit;
//   3. slow consumers: server memory while two seats draw at the rate limit and 20
//      spectators never read, next to the same run with spectators that read;
//   6. lobby followers: the capacity run with N connections following the lobby, next to
//      the same run without them (and, in section 0, what one lobby view costs);
//   7. metrics: the capacity run with its operations endpoint scraped every second, next
//      to the same run with no endpoint, and what one scrape costs at 2N connections;
//   8. shared history: four servers of N/4 rooms each shipping finished matches into one
//      PostgreSQL (Debian's, started here) next to the same four without shipping, and
//      the leaderboard's query at 1,000,000 matches;
//   9. the party's board: the capacity run with a board and 32 browsers following it
//      (`--viewers N`), next to the same run with no board: the server's CPU and memory;
//  10. bots through a real server: two built-in bots (each a process, as `roshambo bot`)
//      play 1,000 matches in one room (`--matches N`), durability on, with the rate limit
//      lifted and with the server's default: matches and rounds a second, the server's
//      and the bots' CPU a round, next to the arena on a server of its own.
//
// Usage: swift run -c release server-bench [--quick] [--rooms N] [--seconds S] [--rate R]
//        [--only codec|latency|seating|capacity|consumers|fair|fair-capacity|followers|metrics|history|board|bots]
//        [--threads N]
//        [--pin] [--followers N] [--viewers N]
//        [--settle S] [--stalls] [--disk-write-us W --disk-sync-us S] [--compaction N]
//        [--inline-commit-us U] [--repeat N] [--matches N] [--shared-locks] [--no-tail]
// (--settle: seconds of play between seating the last bot and the capacity window, 1 by
// default; --stalls: the server's loop and journal profile over the window; --disk-*: a
// slow disk for the journal, µs added to each write and each sync; --compaction: actions
// between snapshots; --inline-commit-us: commits averaging under U µs run on the hub's
// loop, 0: never; --repeat: N capacity pairs, alternating, their picks pooled;
// --shared-locks: every journal takes the system's locks at each commit and shares its WAL
// index, as before the server held its journal: the baseline run of a before/after;
// --no-tail: every journal writes the database at each commit, as before the journal's
// tail: the baseline run of a before/after)
// (--pin: the server child on core 0; run as `taskset -c 1 server-bench --pin` so the
// clients keep to core 1)
// (internal modes: `serve --cert C --key K [--data-dir D] [--best-of N]
// [--default-rate-limit]`; `bot …`, one bot of section 10, see `botMode`)
import BenchmarkSupport
import Foundation
import Logging
import NIOCore
import NIOPosix
import RoshamboBoard
import RoshamboClient
import RoshamboGame
import RoshamboHistory
import RoshamboJournal
import RoshamboLoad
import RoshamboOperations
import RoshamboProtocol
import RoshamboServer
import RoshamboTLS
import ServiceLifecycle
import SlowDisk
import Synchronization

// MARK: - Measurements

func micros(since start: NIODeadline) -> Double {
  Double((NIODeadline.now() - start).nanoseconds) / 1000
}

func send(_ context: ChannelHandlerContext, _ message: ClientMessage) {
  context.writeAndFlush(NIOAny(ClientPipeline.frame(message)), promise: nil)
}

// MARK: - The latency probe

/// Drives two seats of one best-of-3 room in lock step from their event loop,
/// alternating a ping on seat 1 (the floor) and a ping on both seats with a pick that
/// resolves a round (seat 1 has already picked; seat 2's pick resolves it, and both
/// seats must receive the result). Rounds 1 and 2 are won by seat 1 then seat 2, so
/// round 3 ends the match: two picks in three resolve a round mid-match, one ends it
/// (which also records the match), then both seats ask for a rematch.
final class LatencyProbe: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  enum Step { case hello, ping, pingBoth, firstPick, secondPick, rematch }

  final class Shared {
    var contexts: [Seat: ChannelHandlerContext] = [:]
    var step = Step.hello
    var started = NIODeadline.now()
    var resolvedSeen: Set<Seat> = []
    /// The round of the current match (1–3) and its picks: seat 1's, then seat 2's.
    var matchRound = 1
    static let plan: [(Weapon, Weapon)] = [(.rock, .scissors), (.scissors, .rock), (.paper, .rock)]
    var rematchSeen: Set<Seat> = []
    var round = 0
    var pings: [Double] = []
    /// A ping sent on both seats at once, until both pongs are back: the transport's
    /// floor for something arriving at both seats.
    var pairPings: [Double] = []
    var pongsSeen: Set<Seat> = []
    var midPicks: [Double] = []
    var endPicks: [Double] = []
    /// In a fair room, each round's span split where the second reveal goes out (both
    /// seats have seen both commitments): the commitment's trip, then the reveals'.
    var commitTrips: [Double] = []
    var revealTrips: [Double] = []
    var iterations: Int
    let done: EventLoopPromise<ProbeResult>
    /// Fair rooms: a pick is a commitment, and the round resolves after both reveal.
    let fair: Bool
    /// Each seat's nonce for the round being played, until it reveals.
    var nonces: [Seat: [UInt8]] = [:]
    /// Each seat's nonce for its next commitment, drawn ahead as the player's client
    /// (`PlayerCore`) draws it: on the welcome, and right after each commitment goes out
    /// (while the server works), so that a pick only hashes.
    var nextNonces: [Seat: [UInt8]] = [:]

    init(iterations: Int, done: EventLoopPromise<ProbeResult>, fair: Bool = false) {
      self.iterations = iterations
      self.done = done
      self.fair = fair
    }

    /// Sends seat's pick for the current round: `choose`, or in a fair room `commit`.
    func pick(_ seat: Seat, _ weapon: Weapon) {
      guard fair else {
        send(contexts[seat]!, .choose(round: matchRound, weapon: weapon, id: nil))
        return
      }
      let nonce = nextNonces.removeValue(forKey: seat) ?? Commitment.makeNonce()
      nonces[seat] = nonce
      let digest = Commitment.digest(
        room: "probe", round: matchRound, seat: seat, weapon: weapon, nonce: nonce)
      send(contexts[seat]!, .commit(round: matchRound, digest: digest, id: nil))
      nextNonces[seat] = Commitment.makeNonce()
    }

    /// In a fair room, reveals seat's pick once both commitments show (once a round).
    func revealIfDue(_ seat: Seat, _ view: RoomView) {
      guard fair, view.round == matchRound, view.player(seat.opponent)?.commitment != nil,
        let nonce = nonces.removeValue(forKey: seat)
      else { return }
      let weapon = seat == .one ? Shared.plan[matchRound - 1].0 : Shared.plan[matchRound - 1].1
      send(
        contexts[seat]!,
        .reveal(round: matchRound, weapon: weapon, nonce: Commitment.hex(nonce), id: nil))
      if nonces.isEmpty { commitTrips.append(micros(since: started)) }
    }

    func next() {
      if midPicks.count + endPicks.count >= iterations {
        done.succeed(
          ProbeResult(
            pings: pings.sorted(), pairPings: pairPings.sorted(), midPicks: midPicks.sorted(),
            endPicks: endPicks.sorted(), commitTrips: commitTrips.sorted(),
            revealTrips: revealTrips.sorted()))
        return
      }
      step = .ping
      started = .now()
      send(contexts[.one]!, .ping(id: round))
    }
  }

  let shared: Shared
  let name: String
  private var seat: Seat?

  init(shared: Shared, name: String) {
    self.shared = shared
    self.name = name
  }

  func channelActive(context: ChannelHandlerContext) {
    send(
      context,
      .hello(
        protocol: WireProtocol.version, name: name, role: .player, room: "probe", resume: nil,
        fair: shared.fair, id: nil))
    context.fireChannelActive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard let message = try? frame.withUnsafeReadableBytes({ try ServerMessage.decode($0) }) else {
      return
    }
    switch message {
    case .welcome(_, let seat, _, _):
      self.seat = seat
      shared.contexts[seat!] = context
      if shared.fair { shared.nextNonces[seat!] = Commitment.makeNonce() }
    case .pong:
      guard let seat else { return }
      if shared.step == .ping {
        shared.pings.append(micros(since: shared.started))
        shared.step = .pingBoth
        shared.pongsSeen = []
        shared.started = .now()
        send(shared.contexts[.one]!, .ping(id: shared.round))
        send(shared.contexts[.two]!, .ping(id: shared.round))
      } else if shared.step == .pingBoth {
        shared.pongsSeen.insert(seat)
        if shared.pongsSeen.count == 2 {
          shared.pairPings.append(micros(since: shared.started))
          shared.step = .firstPick
          shared.pick(.one, Shared.plan[shared.matchRound - 1].0)
        }
      }
    case .state(_, let view):
      guard let seat else { return }
      switch shared.step {
      case .hello:
        // Each seat must have its welcome and the first choosing state, in whichever
        // order the two connections are read.
        if view.phase == .choosing {
          shared.rematchSeen.insert(seat)
          if shared.rematchSeen.count == 2 { shared.next() }
        }
      case .firstPick:
        if seat == .one, view.round == shared.matchRound, view.player(.one)?.chosen == true {
          shared.step = .secondPick
          shared.resolvedSeen = []
          shared.started = .now()
          shared.pick(.two, Shared.plan[shared.matchRound - 1].1)
        }
      case .secondPick:
        shared.revealIfDue(seat, view)
        if view.phase == .over || view.round == shared.matchRound + 1 {
          shared.resolvedSeen.insert(seat)
          if shared.resolvedSeen.count == 2 {
            let elapsed = micros(since: shared.started)
            if let commitTrip = shared.commitTrips.last, shared.fair {
              shared.revealTrips.append(elapsed - commitTrip)
            }
            if shared.matchRound < Shared.plan.count {
              shared.midPicks.append(elapsed)
              shared.matchRound += 1
              shared.round += 1
              shared.next()
              return
            }
            shared.endPicks.append(elapsed)
            shared.step = .rematch
            shared.rematchSeen = []
            send(shared.contexts[.one]!, .rematch(id: nil))
            send(shared.contexts[.two]!, .rematch(id: nil))
          }
        }
      case .rematch:
        if view.phase == .choosing {
          shared.rematchSeen.insert(seat)
          if shared.rematchSeen.count == 2 {
            shared.round += 1
            shared.matchRound = 1
            shared.next()
          }
        }
      case .ping, .pingBoth:
        break
      }
    case .error(let error, _):
      shared.done.fail(
        TLSError(.protocolFailure, "probe got error \(error.code): \(error.message)"))
    case .lobby, .lobbyPatch, .challenge, .record:
      break
    }
  }
}

struct ProbeResult {
  var pings: [Double]
  var pairPings: [Double]
  var midPicks: [Double]
  var endPicks: [Double]
  var commitTrips: [Double] = []
  var revealTrips: [Double] = []
}

func probeLatency(port: Int, tls: TLSContext, iterations: Int, fair: Bool = false) throws
  -> ProbeResult
{
  let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
  defer { try? group.syncShutdownGracefully() }
  let loop = group.next()
  let done = loop.makePromise(of: ProbeResult.self)
  let shared = try loop.submit {
    NIOLoopBound(
      LatencyProbe.Shared(iterations: iterations, done: done, fair: fair), eventLoop: loop)
  }.wait()
  for name in ["probe-a", "probe-b"] {
    _ = try ClientPipeline.bootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try ClientPipeline.install(
            on: channel, tls: tls, serverName: "127.0.0.1",
            last: LatencyProbe(shared: shared.value, name: name))
        }
      }
      .connect(host: "127.0.0.1", port: port).wait()
  }
  return try done.futureResult.wait()
}

// MARK: - The server child

func serveMode(_ arguments: [String]) async throws -> Never {
  func value(_ flag: String) -> String? {
    arguments.firstIndex(of: flag).map { arguments[$0 + 1] }
  }
  var configuration = ServerConfiguration(
    certificateChainFile: value("--cert")!, privateKeyFile: value("--key")!,
    dataDirectory: value("--data-dir"))
  configuration.host = "127.0.0.1"
  configuration.port = 0
  configuration.limits.maxConnections = 100_000
  configuration.limits.maxConnectionsPerAddress = 100_000  // every bot connects from 127.0.0.1
  configuration.limits.maxHandshakes = 400_000
  // The bots play as fast as the server answers, far above any person's pace; the
  // per-connection rate limit (a policy, tested in the test suite) would cap them.
  // `--default-rate-limit` keeps it, as `roshambo-server` does (it has no option to lift it).
  if !arguments.contains("--default-rate-limit") {
    configuration.limits.framesPerSecond = 1_000_000
    configuration.limits.frameBurst = 1_000_000
  }
  configuration.roomSettings.bestOf = Int(value("--best-of") ?? "3")!
  configuration.roomSettings.fair = arguments.contains("--fair")
  if let threads = value("--threads") { configuration.threads = Int(threads)! }
  if let every = value("--compaction") { configuration.journalCompactionInterval = Int(every)! }
  if let micros = value("--inline-commit-us") {
    configuration.journalInlineCommitMicros = Int(micros)!
  }
  configuration.profileStalls = arguments.contains("--stalls")
  if arguments.contains("--metrics") { configuration.operationsAddress = ("127.0.0.1", 0) }
  if let url = value("--history-url") {
    configuration.historyAddress = try HistoryAddress(parsing: url)
  }
  if value("--durability") == "power" { configuration.durability = .power }
  configuration.journalTail = !arguments.contains("--no-tail")
  let showsBoard = arguments.contains("--board")
  configuration.feedsBoard = showsBoard
  if arguments.contains("--shared-locks") {
    // The baseline of the journal's own lock: its VFS name answered by the plain one.
    guard shared_locks_register() == 0 else { fatalError("could not register shared locks") }
  }
  let writeMicros = Int32(value("--disk-write-us") ?? "0")!
  let syncMicros = Int32(value("--disk-sync-us") ?? "0")!
  if writeMicros > 0 || syncMicros > 0 {
    // Every SQLite file this process opens goes through the slow VFS.
    guard slow_disk_register(writeMicros, syncMicros) == 0 else {
      fatalError("could not register the slow-disk VFS")
    }
  }
  var logger = Logger(label: "bench.server")
  logger.logLevel = .error
  // Bound as `roshambo-server` binds it and run in its one service group.
  let monitored = try await MonitoredServer.bind(
    configuration, logger: logger, storage: JournalStorage.shippingHistory)
  let server = monitored.server
  let board =
    showsBoard
    ? try await BoardServer.start(
      host: "127.0.0.1", port: 0, viewers: 64, server: server, logger: logger) : nil
  let group = monitored.serviceGroup(
    watching: board.map { [(name: "board", service: $0 as any Service)] } ?? [], logger: logger)
  let running = Task { try await group.run() }
  print("PORT \(server.port)")
  if let operations = monitored.operations { print("OPS \(operations.port)") }
  if let board { print("BOARD \(board.port)") }
  fflush(nil)
  while let line = readLine() {
    switch line {
    case "rss":
      print("RSS \(residentBytes())")
    case "cpu":
      print("CPU \(cpuMicrosOfThisProcess())")
    case "stalls":
      let profile = try await server.stallProfile() ?? "(not measured)"
      for text in profile.split(separator: "\n") { print("STALL \(text)") }
      print("STALL END")
    case "hellos":
      let cost = try await server.helloCost()
      print("HELLOS \(cost?.hellos ?? 0) \(cost?.nanoseconds ?? 0)")
    case "stalls-reset":
      try await server.resetStallProfile()
      slow_disk_reset()
    case "disk":
      print("DISK \(slow_disk_writes()) \(slow_disk_syncs()) \(slow_disk_wal_writes())")
    default:
      break
    }
    fflush(nil)
  }
  await group.triggerGracefulShutdown()
  try await running.value
  exit(0)
}

// MARK: - Main

let fileLimit = raiseFileLimit()
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "serve" { try await serveMode(arguments) }
if arguments.first == "bot" { try await botMode(arguments) }

let quick = arguments.contains("--quick")
let only = arguments.firstIndex(of: "--only").map { arguments[$0 + 1] }
let serverThreads = arguments.firstIndex(of: "--threads").map { Int(arguments[$0 + 1])! }
let compaction = arguments.firstIndex(of: "--compaction").map { Int(arguments[$0 + 1])! }
/// Commits averaging under this many µs run on the hub's loop (the server's default: 300).
let inlineCommitMicros = arguments.firstIndex(of: "--inline-commit-us").map {
  Int(arguments[$0 + 1])!
}
/// A slow disk for the server child (SQLite VFS delays per write and per sync, µs).
let diskWriteMicros =
  arguments.firstIndex(of: "--disk-write-us").map { Int(arguments[$0 + 1])! } ?? 0
let diskSyncMicros = arguments.firstIndex(of: "--disk-sync-us").map { Int(arguments[$0 + 1])! } ?? 0
/// Seconds of play after every bot is seated before the window opens (`--settle`): the
/// last 500 bots' joins and the snapshot they make due are seating, not steady play.
/// Capacity pairs (durability on, then off) to run; the figures pool their picks.
let repeats = arguments.firstIndex(of: "--repeat").map { Int(arguments[$0 + 1])! } ?? 1
let settleSeconds =
  arguments.firstIndex(of: "--settle").map { Double(arguments[$0 + 1])! } ?? (quick ? 0 : 1)
/// Whether the server child measures its loop's stalls (a probe each millisecond).
let profileStalls = arguments.contains("--stalls")
/// `--shared-locks`: every server child's journal shares its lock and WAL index through
/// the system, as before the server held its journal (a whole run's baseline).
let sharedLocksEverywhere = arguments.contains("--shared-locks")
/// `--no-tail`: every server child's journal writes its database at each commit (no
/// journal's tail), as before the tail (a whole run's baseline).
let noTailEverywhere = arguments.contains("--no-tail")
/// The server child on core 0 (run this program under `taskset -c 1` for the clients).
let pinned = arguments.contains("--pin")
func runs(_ section: String) -> Bool { only == nil || only == section }
let rooms =
  arguments.firstIndex(of: "--rooms").map { Int(arguments[$0 + 1])! } ?? (quick ? 500 : 5_000)
// Two sockets a room here (its bots) and two in the server child: say so before seating
// thousands of bots that could never all connect.
if 2 * rooms + 128 > fileLimit {
  FileHandle.standardError.write(
    Data(
      ("server-bench: --rooms \(rooms) needs \(2 * rooms + 128) open files here and in the "
        + "server, but the limit is \(fileLimit); lower --rooms to \((fileLimit - 128) / 2) or "
        + "raise the hard limit (ulimit -Hn).\n").utf8))
  exit(64)
}
let seconds =
  arguments.firstIndex(of: "--seconds").map { Int(arguments[$0 + 1])! } ?? (quick ? 5 : 20)
/// The offered load: picks per second across all bots. A round lasts until the later of
/// its two picks (about 7/6 of the mean wait) and a finished match costs a rematch
/// exchange, so each bot waits 2 × rooms / rate / 1.25 seconds on average.
let rate = arguments.firstIndex(of: "--rate").map { Int(arguments[$0 + 1])! } ?? 5_000
let paceMillis = Int64(Double(2 * rooms * 1000) / Double(rate) / 1.25)
let root = NSTemporaryDirectory() + "roshambo-server-bench-\(getpid())"
let files = try DevelopmentCertificates.create(in: root + "/certs", hosts: ["127.0.0.1"])
defer { try? FileManager.default.removeItem(atPath: root) }
let clientTLS = try TLSContext(.client(trust: .caFile(files.caCertificate)))

/// A run that could not finish is a failure, said as one: which stage, what it got to and
/// why, and exit status 1 (never a crash with a backtrace).
func failed(_ stage: String, _ why: Any) -> Never {
  FileHandle.standardError.write(Data("server-bench: \(stage) failed: \(why)\n".utf8))
  exit(1)
}

/// `power`: with durability, every commit synced (`--durability power`). `rateLimited`:
/// the server's default rate limit kept (20 frames a second, a burst of 40), not lifted.
func startServerChild(
  durable: Bool, power: Bool = false, bestOf: Int = 3, fair: Bool = false, metrics: Bool = false,
  history: String? = nil, stalls: Bool = profileStalls, board: Bool = false,
  sharedLocks: Bool = sharedLocksEverywhere, tail: Bool = !noTailEverywhere,
  rateLimited: Bool = false
) throws -> (ChildProcess, Int) {
  var args = [
    "serve", "--cert", files.serverCertificate, "--key", files.serverKey, "--best-of", "\(bestOf)",
  ]
  if rateLimited { args.append("--default-rate-limit") }
  if fair { args.append("--fair") }
  if durable { args += ["--data-dir", root + "/data-\(UUID().uuidString)"] }
  if durable, power { args += ["--durability", "power"] }
  if let threads = serverThreads { args += ["--threads", "\(threads)"] }
  if let every = compaction { args += ["--compaction", "\(every)"] }
  if let micros = inlineCommitMicros { args += ["--inline-commit-us", "\(micros)"] }
  if durable, diskWriteMicros > 0 || diskSyncMicros > 0 {
    args += ["--disk-write-us", "\(diskWriteMicros)", "--disk-sync-us", "\(diskSyncMicros)"]
  }
  if stalls { args += ["--stalls"] }
  if metrics { args += ["--metrics"] }
  if board { args += ["--board"] }
  if sharedLocks { args += ["--shared-locks"] }
  if !tail { args += ["--no-tail"] }
  if let history { args += ["--history-url", history] }
  if pinned {
    // The server on core 0; with this process under `taskset -c 1`, neither takes the
    // other's core.
    let child = try ChildProcess(
      ["-c", "0", CommandLine.arguments[0]] + args, executable: "/usr/bin/taskset")
    return (child, child.value("PORT"))
  }
  let child = try ChildProcess(args)
  return (child, child.value("PORT"))
}

// 0. What one pick costs in codec work, per call (µs), to see where the round trip goes.
if runs("codec") {
  var room = RoomState(name: "den")
  room.apply(.playerJoined(name: "Alice", token: "a", at: 0))
  room.apply(.playerJoined(name: "Bob", token: "b", at: 0))
  for round in 1...2 {
    room.apply(.chose(seat: .one, round: round, weapon: .rock, at: 1))
    room.apply(.chose(seat: .two, round: round, weapon: .rock, at: 1))
  }
  let state = ServerMessage.state(seq: room.version, view: room.view(for: .one))
  let stateBytes = state.encoded()
  let chooseBytes = ClientMessage.choose(round: 3, weapon: .paper, id: 7).encoded()
  func cost(_ label: String, _ body: () -> Void) { printCost(label, width: 44, runs: 2_000, body) }
  print("0. Codec work per call, µs (a state of \(stateBytes.count) bytes)")
  cost("encode state (server, per seat)") { _ = state.encoded() }
  cost("decode state (client)") { _ = try? ServerMessage.decode(stateBytes) }
  cost("decode choose (server)") { _ = ClientMessage.decode(chooseBytes) }
  cost("encode choose (client)") {
    _ = ClientMessage.choose(round: 3, weapon: .paper, id: 7).encoded()
  }
  // A snapshot holds the lobby (a value) while it is encoded: the hub's next change
  // copies what it changes, on the hub's loop.
  var lobby = LobbyState()
  for n in 0..<5_000 {
    lobby.rooms["r\(n)"] = room
  }
  let copies = 50
  var copyNanos: Int64 = 0
  for n in 0..<copies {
    let held = lobby
    let start = NIODeadline.now()
    lobby.rooms["r\(n)"]?.apply(.chose(seat: .one, round: 3, weapon: .paper, at: 2))
    copyNanos += (NIODeadline.now() - start).nanoseconds
    precondition(held.rooms.count == lobby.rooms.count)
  }
  print(
    pad("first change after a snapshot (5000 rooms)", 44)
      + format(Double(copyNanos) / Double(copies) / 1000, 2))
  // A lobby view as the hub makes one for its followers: rooms, and people chosen by
  // name (cut to the view's cap), built and encoded once for all followers.
  for roomCount in [1_000, 5_000] {
    var party = LobbyState()
    var people: [LobbyView.Person] = []
    for n in 0..<roomCount {
      party.rooms["room-\(n)"] = room
      for seat in ["a", "b"] {
        people.append(
          LobbyView.Person(name: "player-\(n)\(seat)", status: .playing, room: "room-\(n)"))
      }
    }
    people.shuffle()
    var lobbyBytes = 0
    let leaders = (0..<10).map { LobbyView.Leader(name: "player-\($0)a", won: 100 - $0, lost: $0) }
    cost("lobby view: \(roomCount) rooms, \(roomCount * 2) people, once") {
      let view = party.view(
        people: people.smallest(LobbyView.maxPeople) { $0.name < $1.name },
        peopleCount: people.count, leaders: leaders)
      lobbyBytes = ServerMessage.lobby(seq: 1, view: view).encoded().count
    }
    print(pad("  (its frame, bytes)", 44) + "\(lobbyBytes)")
  }
  print("")
  fflush(nil)
}

// 1. Round trip of a pick beside ping/pong, with durability on (process, then power:
// each commit synced) and off, to show what the journal costs.
if runs("latency") {
  var rows: [(durability: String, result: ProbeResult)] = []
  // The last row: durability on, the journal writing its database at each commit (no
  // tail), the baseline of the first.
  for (durable, power, tail) in [
    (true, false, true), (true, true, true), (false, false, true), (true, false, false),
  ] {
    let (server, port) = try startServerChild(
      durable: durable, power: power, bestOf: 3, tail: tail && !noTailEverywhere)
    let result = try probeLatency(port: port, tls: clientTLS, iterations: quick ? 600 : 3_000)
    server.stop()
    rows.append((durable ? (power ? "power" : tail ? "on" : "on, no tail") : "off", result))
  }
  print(
    "1. Round trip, µs (\(rows[0].result.midPicks.count + rows[0].result.endPicks.count) "
      + "picks each, 2 in 3 mid-match; the same two TLS connections)")
  print(pad("measure", 52) + pad("p50", 10) + pad("p99", 10) + "÷ ping seat 1 / ÷ ping both")
  for (durability, result) in rows {
    let floor = percentile(result.pings, 0.5)
    let pairFloor = percentile(result.pairPings, 0.5)
    for (label, picks) in [
      ("pick mid-match → both seats", result.midPicks),
      ("pick ending the match → both seats", result.endPicks),
    ] {
      let pick = percentile(picks, 0.5)
      print(
        pad("\(label) (durability \(durability))", 52) + pad(format(pick), 10)
          + pad(format(percentile(picks, 0.99)), 10) + format(pick / floor, 2) + "x / "
          + format(pick / pairFloor, 2) + "x")
    }
    print(
      pad("  floor: ping → pong on seat 1", 52) + pad(format(floor), 10)
        + pad(format(percentile(result.pings, 0.99)), 10))
    print(
      pad("  floor: ping on both seats → both pongs", 52) + pad(format(pairFloor), 10)
        + pad(format(percentile(result.pairPings, 0.99)), 10))
  }
  let durable = rows[0].result
  let mid = percentile(durable.midPicks, 0.5) / percentile(durable.pings, 0.5)
  let end = percentile(durable.endPicks, 0.5) / percentile(durable.pings, 0.5)
  print(
    "target: pick p50 <= 1.5x the one-seat ping floor (durability on): mid-match "
      + "\(format(mid, 2))x \(mid <= 1.5 ? "met" : "NOT MET"), match-ending "
      + "\(format(end, 2))x \(end <= 1.5 ? "met" : "NOT MET")")
  let power = rows[1].result
  func ratio(_ picks: KeyPath<ProbeResult, [Double]>, _ p: Double) -> String {
    format(percentile(power[keyPath: picks], p) / percentile(durable[keyPath: picks], p), 2) + "x"
  }
  print(
    "durability power ÷ on (process): mid-match p50 \(ratio(\.midPicks, 0.5)), p99 "
      + "\(ratio(\.midPicks, 0.99)); match-ending p50 \(ratio(\.endPicks, 0.5)), p99 "
      + "\(ratio(\.endPicks, 0.99))")
  let untailed = rows[3].result
  func tailed(_ picks: KeyPath<ProbeResult, [Double]>) -> String {
    format(
      percentile(durable[keyPath: picks], 0.5) / percentile(untailed[keyPath: picks], 0.5), 2)
      + "x"
  }
  let ending = percentile(durable.endPicks, 0.5) / percentile(durable.midPicks, 0.5)
  print(
    "the journal's tail ÷ the database at each commit (durability on), p50: mid-match "
      + "\(tailed(\.midPicks)), match-ending \(tailed(\.endPicks))")
  print(
    "target: match-ending p50 <= 1.15x mid-match (durability on): \(format(ending, 2))x "
      + "\(ending <= 1.15 ? "met" : "NOT MET")\n")
  fflush(nil)
}

// 4. Fair rooms (commit–reveal): the round trip of a round beside an ordinary one, both
// with durability on, on the same probe.
if runs("fair") {
  fairStepCosts()
  var rows: [(label: String, result: ProbeResult)] = []
  for fair in [false, true] {
    let (server, port) = try startServerChild(durable: true, bestOf: 3, fair: fair)
    let result = try probeLatency(
      port: port, tls: clientTLS, iterations: quick ? 600 : 3_000, fair: fair)
    server.stop()
    rows.append(
      (
        fair ? "fair room: commit → reveals → both seats" : "ordinary room: choose → both seats",
        result
      ))
  }
  print(
    "4. Fair rooms: the second pick of a round until both seats have the result, µs (durability on)"
  )
  print(pad("measure", 52) + pad("p50", 10) + pad("p99", 10) + "÷ ordinary p50")
  let base = percentile(rows[0].result.midPicks + rows[0].result.endPicks, 0.5)
  for (label, result) in rows {
    let picks = result.midPicks + result.endPicks
    print(
      pad(label, 52) + pad(format(percentile(picks, 0.5)), 10)
        + pad(format(percentile(picks, 0.99)), 10) + format(percentile(picks, 0.5) / base, 2) + "x")
  }
  // One more frame each way (a seat's reveal in, at the server, beside the other's) is
  // about what a ping on both seats costs over a ping on one.
  for (label, trips) in [
    ("  its commit → both seats see both digests", rows[1].result.commitTrips),
    ("  then the last reveal → both seats", rows[1].result.revealTrips),
    ("ping, one seat (fair run)", rows[1].result.pings),
    ("ping, both seats (fair run)", rows[1].result.pairPings),
  ] {
    print(
      pad(label, 52) + pad(format(percentile(trips, 0.5)), 10)
        + pad(format(percentile(trips, 0.99)), 10) + format(percentile(trips, 0.5) / base, 2) + "x")
  }
  print("")
  fflush(nil)
}

// 2. Capacity, durability on and off.
struct Capacity {
  var picksPerSecond: Double
  var p50: Double
  var p99: Double
  var bytesPerConnection: Double
  var errors: [String: Int]
  var connected: Int
  /// Each second of the window: picks, p99 µs.
  var timeline: [LoadReport.Second]
  /// The server loop's stall profile, when asked for (`--stalls`).
  var stalls: [String]
  /// Every pick's latency, µs, sorted.
  var latencies: [Double]
  /// Lobby views the followers received in the window, their bytes, the window's length.
  var lobbyViews = 0
  var lobbyBytes = 0
  var seconds = 0.0
  /// The journal's commits in the window, and the actions they held (when counted).
  var commits = 0
  var committedActions = 0
  /// Seconds from the first connection to the last bot seated (play goes on meanwhile).
  var seatingSeconds = 0.0
  /// The server's CPU over the window (cores: CPU seconds a second), and its resident
  /// memory at the window's end, when measured.
  var serverCores = 0.0
  var serverRSS = 0
  /// What the board's viewers read over the window, bytes (when it had viewers).
  var boardBytes = 0

  /// Several runs as one: their picks pooled (sorted again), rates and memory averaged;
  /// the first run's timeline and profile.
  static func pooled(_ runs: [Capacity]) -> Capacity {
    let latencies = runs.flatMap(\.latencies).sorted()
    func mean(_ value: KeyPath<Capacity, Double>) -> Double {
      runs.map { $0[keyPath: value] }.reduce(0, +) / Double(runs.count)
    }
    func at(_ p: Double) -> Double {
      latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
    }
    return Capacity(
      picksPerSecond: mean(\.picksPerSecond), p50: at(0.5), p99: at(0.99),
      bytesPerConnection: mean(\.bytesPerConnection),
      errors: runs.reduce(into: [:]) { $0.merge($1.errors, uniquingKeysWith: +) },
      connected: runs[0].connected, timeline: runs[0].timeline, stalls: runs[0].stalls,
      latencies: latencies, commits: runs.map(\.commits).reduce(0, +),
      committedActions: runs.map(\.committedActions).reduce(0, +),
      seatingSeconds: mean(\.seatingSeconds), serverCores: mean(\.serverCores),
      serverRSS: runs.map(\.serverRSS).reduce(0, +) / runs.count,
      boardBytes: runs.map(\.boardBytes).reduce(0, +) / runs.count)
  }
}

/// Scrapes `/metrics` every second on its own thread until stopped: how long each scrape
/// took (µs) and how many bytes it was.
final class Scraper: Sendable {
  private let state = Mutex<(stopped: Bool, micros: [Double], bytes: Int, failures: Int)>(
    (false, [], 0, 0))

  init(port: Int) {
    Thread.detachNewThread { [self] in
      while !state.withLock({ $0.stopped }) {
        let start = NIODeadline.now()
        let answer = try? OperationsClient.get(host: "127.0.0.1", port: port, path: "/metrics")
        let micros = Double((NIODeadline.now() - start).nanoseconds) / 1000
        state.withLock {
          if let answer, answer.status == 200 {
            $0.micros.append(micros)
            $0.bytes = answer.body.utf8.count
          } else {
            $0.failures += 1
          }
        }
        Thread.sleep(forTimeInterval: 1)
      }
    }
  }

  /// Stops scraping; the scrapes' times (µs, sorted), the last one's size, the failures.
  func stop() -> (micros: [Double], bytes: Int, failures: Int) {
    state.withLock {
      $0.stopped = true
      return ($0.micros.sorted(), $0.bytes, $0.failures)
    }
  }
}

/// The scrapes of the last capacity run with `scraped`.
let lastScrapes = Mutex<(micros: [Double], bytes: Int, failures: Int)>(([], 0, 0))

/// The journal's commits so far and the actions they held, read from `/metrics` at `port`.
func journalCommits(port: Int) -> (commits: Int, actions: Int) {
  guard let answer = try? OperationsClient.get(host: "127.0.0.1", port: port, path: "/metrics")
  else { return (0, 0) }
  var counts = (commits: 0, actions: 0)
  for line in answer.body.split(separator: "\n") {
    let parts = line.split(separator: " ")
    guard parts.count == 2, let value = Double(parts[1]) else { continue }
    if parts[0] == "roshambo_journal_actions_per_commit_count" { counts.commits += Int(value) }
    if parts[0] == "roshambo_journal_actions_per_commit_sum" { counts.actions += Int(value) }
  }
  return counts
}

/// `countsCommits`: the journal's commits over the window, from the server's `/metrics`
/// read at its start and its end.
func capacity(
  durable: Bool, power: Bool = false, fair: Bool = false, followers: Int = 0,
  scraped: Bool = false, countsCommits: Bool = false, board: Int? = nil, stalledViewers: Int = 0
) async throws -> Capacity {
  let (server, port) = try startServerChild(
    durable: durable, power: power, fair: fair, metrics: scraped || countsCommits,
    board: board != nil)
  let operationsPort = scraped || countsCommits ? server.value("OPS") : 0
  let boardPort = board.map { _ in server.value("BOARD") }
  let viewers = try boardPort.map { try BoardViewers(count: board!, port: $0) }
  defer { viewers?.stop() }
  let stalled = try boardPort.map {
    try BoardViewers(count: stalledViewers, port: $0, reads: false)
  }
  defer { stalled?.stop() }
  let cpuAt = Mutex<[Int]>([])
  let readAt = Mutex<[Int]>([])
  let rssAtEnd = Mutex(0)
  let commitsAt = Mutex<[(commits: Int, actions: Int)]>([])
  defer { server.stop() }
  let scraper = scraped ? Scraper(port: operationsPort) : nil
  defer {
    if let scraper {
      let scrapes = scraper.stop()
      lastScrapes.withLock { $0 = scrapes }
    }
  }
  let baseline = server.rss()
  let seatedRSS = Mutex(0)
  let began = ContinuousClock.now
  let seatedAfter = Mutex<Duration?>(nil)
  let windowStalls = Mutex<[String]>([])
  /// The slow disk's writes, syncs and writes to the log over the window.
  let windowDisk = Mutex<[Int]?>(nil)
  let report: LoadReport
  do {
    report = try await runLoad()
  } catch {
    failed(
      "capacity at \(rooms) rooms (durability \(durable ? (power ? "power" : "on") : "off")"
        + "\(fair ? ", fair" : ""))", error)
  }
  func runLoad() async throws -> LoadReport {
    try await LoadGenerator.run(
      host: "127.0.0.1", port: port, tls: clientTLS, rooms: rooms, seconds: Double(seconds),
      paceMillis: paceMillis, threads: 1, fair: fair, settle: settleSeconds, followers: followers,
      connected: {
        cpuAt.withLock { $0.append(server.cpuMicros()) }
        readAt.withLock { $0.append(viewers?.bytes ?? 0) }
        seatedAfter.withLock { $0 = ContinuousClock.now - began }
        seatedRSS.withLock { $0 = server.rss() }
        if countsCommits { commitsAt.withLock { $0.append(journalCommits(port: operationsPort)) } }
        // The stall profile and the disk's counts cover the measuring window, not the
        // seating of every bot.
        server.send("stalls-reset")
      },
      finished: {
        cpuAt.withLock { $0.append(server.cpuMicros()) }
        readAt.withLock { $0.append(viewers?.bytes ?? 0) }
        rssAtEnd.withLock { $0 = server.rss() }
        if countsCommits { commitsAt.withLock { $0.append(journalCommits(port: operationsPort)) } }
        // Before the bots disconnect: 10,000 closing connections are not the run.
        let lines =
          profileStalls ? server.answers(to: "stalls", prefix: "STALL ", end: "STALL END") : []
        windowStalls.withLock { $0 = lines }
        if durable, diskWriteMicros > 0 || diskSyncMicros > 0 {
          server.send("disk")
          let counts = server.line(startingWith: "DISK ").split(separator: " ").dropFirst()
          windowDisk.withLock { $0 = counts.map { Int($0)! } }
        }
      })
  }
  var stalls = windowStalls.withLock { $0 }
  if let disk = windowDisk.withLock({ $0 }) {
    stalls.append(
      "slow disk: \(disk[0]) writes (\(disk[2]) to the log) and \(disk[1]) syncs in the window, "
        + "\(format(Double(disk[0]) / Double(report.picks), 2)) per measured pick")
  }
  let counted = commitsAt.withLock { $0.count == 2 ? $0 : nil }
  return Capacity(
    picksPerSecond: report.picksPerSecond, p50: report.percentile(0.5),
    p99: report.percentile(0.99),
    bytesPerConnection: Double(seatedRSS.withLock { $0 } - baseline) / Double(report.connections),
    errors: report.errors, connected: report.connections, timeline: report.timeline,
    stalls: stalls, latencies: report.latencies, lobbyViews: report.lobbyViews,
    lobbyBytes: report.lobbyBytes, seconds: report.seconds,
    commits: counted.map { $0[1].commits - $0[0].commits } ?? 0,
    committedActions: counted.map { $0[1].actions - $0[0].actions } ?? 0,
    seatingSeconds: seatedAfter.withLock { $0 }.map {
      Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 - settleSeconds
    } ?? 0,
    serverCores: cpuAt.withLock {
      $0.count == 2 ? Double($0[1] - $0[0]) / 1e6 / report.seconds : 0
    },
    serverRSS: rssAtEnd.withLock { $0 },
    boardBytes: readAt.withLock { $0.count == 2 ? $0[1] - $0[0] : 0 })
}

extension ChildProcess {
  /// The server child's CPU time so far, µs (asked with the line `cpu`).
  func cpuMicros() -> Int {
    send("cpu")
    return value("CPU")
  }
}

/// A TCP connection to 127.0.0.1:`port`, blocking.
func loopbackSocket(port: Int) throws -> Int32 {
  let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard socket >= 0, connected == 0 else {
    throw BoardViewerFailure(reason: "cannot connect to the board on port \(port)")
  }
  return socket
}

struct BoardViewerFailure: Error, CustomStringConvertible {
  var reason: String
  var description: String { reason }
}

/// Browsers following the board's stream (`GET /events`) that read everything and keep
/// nothing: plain sockets, one thread each.
final class BoardViewers: Sendable {
  private let state = Mutex<(stopped: Bool, bytes: Int, sockets: [Int32])>((false, 0, []))

  /// `reads`: false for browsers that never read (stalled tabs).
  init(count: Int, port: Int, reads: Bool = true) throws {
    for _ in 0..<count {
      let socket = try loopbackSocket(port: port)
      let request = Array("GET /events HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
      guard write(socket, request, request.count) == request.count else {
        throw BoardViewerFailure(reason: "a board viewer could not ask for the stream")
      }
      state.withLock { $0.sockets.append(socket) }
      guard reads else { continue }
      Thread.detachNewThread { [self] in
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
          let read = Foundation.read(socket, &buffer, buffer.count)
          if read <= 0 { break }
          state.withLock { $0.bytes += read }
        }
      }
    }
  }

  /// What the viewers read so far, bytes.
  var bytes: Int { state.withLock { $0.bytes } }

  func stop() {
    for socket in state.withLock({ $0.sockets }) { close(socket) }
  }
}

// 3. Spectators that never read: what they cost the server, beside readers.
if runs("consumers") {
  let spectators = 20
  let pace = TimeAmount.milliseconds(50)  // each seat's pick: 20 frames/s, the default limit
  // Linux grows a socket's send buffer up to 4 MiB (tcp_wmem); at ~110 KiB/s per
  // spectator that takes about 40 s, and only then does the server's own memory matter.
  let settle = TimeAmount.seconds(quick ? 10 : 40)
  let measured = TimeAmount.seconds(Int64(quick ? 5 : 20))
  var rows: [(String, SlowConsumerRun)] = []
  for reading in [true, false] {
    let (server, port) = try startServerChild(durable: true)
    let run = try SlowConsumerRun.run(
      server: server, port: port, tls: clientTLS, spectators: spectators, reading: reading,
      pace: pace, settle: settle, seconds: measured)
    server.stop()
    rows.append((reading ? "spectators read" : "spectators never read", run))
  }
  print(
    "3. Slow consumers: two seats draw (a pick every \(pace.nanoseconds / 1_000_000) ms each), "
      + "\(spectators) spectators; server RSS from \(settle.nanoseconds / 1_000_000_000) s "
      + "(kernel socket buffers full) for \(measured.nanoseconds / 1_000_000_000) s more")
  print(
    pad("run", 24) + pad("rounds", 8) + pad("states/spectator", 18) + pad("RSS MiB", 9)
      + "growth MiB")
  for (label, run) in rows {
    print(
      pad(label, 24) + pad("\(run.rounds)", 8) + pad(format(run.statesPerSpectator, 0), 18)
        + pad(format(Double(run.finalRSS) / 1_048_576), 9)
        + format(Double(run.growth) / 1_048_576, 2))
  }
  let extra = Double(rows[1].1.growth - rows[0].1.growth) / 1_048_576
  print(
    "never-reading spectators add \(format(extra, 2)) MiB of growth over readers; target "
      + "< 4 MiB: \(extra < 4 ? "met" : "NOT MET")\n")
  fflush(nil)
}

if runs("fair-capacity") {
  let ordinary = try await capacity(durable: true)
  let fair = try await capacity(durable: true, fair: true)
  print(
    "5. Capacity in fair rooms: \(rooms) rooms offered \(rate) picks/s for \(seconds) s, durability on "
      + "(a pick: choose → own state; in a fair room commit → own state, and each round one reveal more per seat)"
  )
  print(pad("rooms", 20) + pad("picks/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + "errors")
  for (name, run) in [("ordinary", ordinary), ("fair", fair)] {
    print(
      pad(name, 20) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
        + pad(format(run.p99 / 1000, 2), 9) + (run.errors.isEmpty ? "none" : "\(run.errors)"))
  }
  print(
    "fair ÷ ordinary: throughput \(format(fair.picksPerSecond / ordinary.picksPerSecond, 2))×, p99 "
      + "\(format(fair.p99 / ordinary.p99, 2))×\n")
  fflush(nil)
}

// 6. Following the lobby must not cost the game: the capacity run beside the same run
// with lobby followers (1,000 by default, `--followers N`), alternating.
if runs("followers") {
  let followers =
    arguments.firstIndex(of: "--followers").map { Int(arguments[$0 + 1])! } ?? (quick ? 100 : 1_000)
  var rows: [(String, Capacity)] = []
  for round in 0..<repeats {
    rows.append(("no followers (\(round + 1))", try await capacity(durable: true)))
    rows.append(
      (
        "\(followers) followers (\(round + 1))",
        try await capacity(durable: true, followers: followers)
      ))
  }
  print(
    "6. Lobby followers: \(rooms) rooms (\(rooms * 2) players) offered \(rate) picks/s for \(seconds) s, "
      + "durability on, beside the same with \(followers) connections following the lobby")
  print(
    pad("run", 24) + pad("picks/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + pad("KiB/conn", 10)
      + pad("views/s each", 14) + pad("MB/s", 8) + "errors")
  for (name, run) in rows {
    let each = run.lobbyViews == 0 ? 0 : Double(run.lobbyViews) / run.seconds / Double(followers)
    print(
      pad(name, 24) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
        + pad(format(run.p99 / 1000, 2), 9) + pad(format(run.bytesPerConnection / 1024), 10)
        + pad(format(each, 2), 14) + pad(format(Double(run.lobbyBytes) / run.seconds / 1e6, 1), 8)
        + (run.errors.isEmpty ? "none" : "\(run.errors)"))
  }
  for (name, run) in rows {
    print(
      "p99 by second, \(name), ms: "
        + run.timeline.map { format($0.p99 / 1000, $0.p99 < 10_000 ? 1 : 0) }.joined(separator: " ")
    )
    for line in run.stalls { print("  " + line) }
  }
  print("")
  fflush(nil)
}

// 7. Metrics must not cost the game: the capacity run with the operations endpoint
// scraped every second, beside the same run with no endpoint (alternating).
if runs("metrics") {
  var rows: [(String, Capacity)] = []
  var scrapes: [Double] = []
  var scrapeBytes = 0
  var failures = 0
  for round in 0..<repeats {
    rows.append(("no endpoint (\(round + 1))", try await capacity(durable: true)))
    rows.append(
      ("scraped every 1 s (\(round + 1))", try await capacity(durable: true, scraped: true)))
    let last = lastScrapes.withLock { $0 }
    scrapes += last.micros
    scrapeBytes = last.bytes
    failures += last.failures
  }
  scrapes.sort()
  print(
    "7. Metrics: \(rooms) rooms (\(rooms * 2) TLS connections) offered \(rate) picks/s for \(seconds) s, "
      + "durability on, with no operations endpoint beside the same with /metrics scraped every second"
  )
  print(
    pad("run", 24) + pad("picks/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + pad("KiB/conn", 10)
      + "errors")
  for (name, run) in rows {
    print(
      pad(name, 24) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
        + pad(format(run.p99 / 1000, 2), 9) + pad(format(run.bytesPerConnection / 1024), 10)
        + (run.errors.isEmpty ? "none" : "\(run.errors)"))
  }
  let off = Capacity.pooled(rows.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.1))
  let on = Capacity.pooled(rows.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.1))
  print(
    "scraped ÷ not: throughput \(format(on.picksPerSecond / off.picksPerSecond, 3))×, p50 "
      + "\(format(on.p50 / off.p50, 2))×, p99 \(format(on.p99 / off.p99, 2))×, memory per connection "
      + "\(format(on.bytesPerConnection / off.bytesPerConnection, 2))×")
  if let median = scrapes.isEmpty ? nil : scrapes[scrapes.count / 2] {
    print(
      "one scrape at up to \(rooms * 2) connections (\(scrapes.count) scrapes, \(failures) failed): "
        + "median \(format(median / 1000, 2)) ms, longest \(format(scrapes.last! / 1000, 2)) ms, "
        + "\(scrapeBytes) bytes; beside a pick's p50 of \(format(off.p50 / 1000, 2)) ms\n")
  }
  fflush(nil)
}

// 9. The party's board: the capacity run with a board followed by 32 browsers (reading
// everything), beside the same run with no board, alternating: the server's CPU and memory.
if runs("board") {
  let viewers =
    arguments.firstIndex(of: "--viewers").map { Int(arguments[$0 + 1])! } ?? 32
  var rows: [(String, Capacity)] = []
  for round in 0..<repeats {
    rows.append(("no board (\(round + 1))", try await capacity(durable: true)))
    rows.append(
      ("\(viewers) viewers (\(round + 1))", try await capacity(durable: true, board: viewers)))
  }
  // Browsers that never read (64, the child's bound): what they cost the server.
  let stalledRun = try await capacity(durable: true, board: 0, stalledViewers: 64)
  print(
    "9. The board: \(rooms) rooms (\(rooms * 2) TLS connections) offered \(rate) picks/s for "
      + "\(seconds) s, durability on, with no board beside the same with a board and "
      + "\(viewers) browsers following it, and with 64 browsers that never read")
  print(
    pad("run", 24) + pad("picks/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9)
      + pad("CPU cores", 11) + pad("RSS MiB", 9) + pad("board KB/s", 12) + "errors")
  for (name, run) in rows {
    print(
      pad(name, 24) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
        + pad(format(run.p99 / 1000, 2), 9) + pad(format(run.serverCores, 3), 11)
        + pad(format(Double(run.serverRSS) / 1_048_576, 1), 9)
        + pad(format(Double(run.boardBytes) / run.seconds / 1000, 1), 12)
        + (run.errors.isEmpty ? "none" : "\(run.errors)"))
  }
  print(
    pad("64 never reading", 24) + pad(format(stalledRun.picksPerSecond, 0), 10)
      + pad(format(stalledRun.p50 / 1000, 2), 9) + pad(format(stalledRun.p99 / 1000, 2), 9)
      + pad(format(stalledRun.serverCores, 3), 11)
      + pad(format(Double(stalledRun.serverRSS) / 1_048_576, 1), 9) + pad("-", 12)
      + (stalledRun.errors.isEmpty ? "none" : "\(stalledRun.errors)"))
  let off = Capacity.pooled(rows.enumerated().filter { $0.offset % 2 == 0 }.map(\.element.1))
  let on = Capacity.pooled(rows.enumerated().filter { $0.offset % 2 == 1 }.map(\.element.1))
  print(
    "\(viewers) viewers ÷ none: throughput \(format(on.picksPerSecond / off.picksPerSecond, 3))×, "
      + "p50 \(format(on.p50 / off.p50, 2))×, p99 \(format(on.p99 / off.p99, 2))×, server CPU "
      + "\(format(on.serverCores / off.serverCores, 3))×, resident memory "
      + "\(format(Double(on.serverRSS) / Double(off.serverRSS), 3))× "
      + "(+\(format(Double(on.serverRSS - off.serverRSS) / 1_048_576, 1)) MiB)\n")
  fflush(nil)
}

// 8. A fleet's shared history: four servers shipping into one PostgreSQL.
if runs("history") {
  let postgres = try BenchPostgres()
  defer { postgres.remove() }
  let servers = 4
  let each = max(1, rooms / servers)
  /// Four servers of `each` rooms under load at once (shipping to PostgreSQL or not):
  /// every pick's latency pooled, the picks per second summed.
  func fleet(shipping: Bool) async throws -> (picksPerSecond: Double, p50: Double, p99: Double) {
    var children: [(ChildProcess, Int)] = []
    for _ in 0..<servers {
      children.append(try startServerChild(durable: true, history: shipping ? postgres.url : nil))
    }
    defer { for (child, _) in children { child.stop() } }
    let reports = try await withThrowingTaskGroup(of: LoadReport.self) { group in
      for (_, port) in children {
        group.addTask {
          try await LoadGenerator.run(
            host: "127.0.0.1", port: port, tls: clientTLS, rooms: each, seconds: Double(seconds),
            paceMillis: paceMillis, threads: 1, settle: settleSeconds)
        }
      }
      var reports: [LoadReport] = []
      for try await report in group { reports.append(report) }
      return reports
    }
    let latencies = reports.flatMap(\.latencies).sorted()
    func percentile(_ p: Double) -> Double {
      latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
    }
    return (reports.map(\.picksPerSecond).reduce(0, +), percentile(0.5), percentile(0.99))
  }
  let off = try await fleet(shipping: false)
  try postgres.psql("DROP TABLE IF EXISTS roshambo_matches, roshambo_standings, roshambo_schema")
  let on = try await fleet(shipping: true)
  // Matches stored in the window, and how long each took from its end to PostgreSQL.
  let shipped = try postgres.psql(
    """
    SELECT count(*), round(count(*) / greatest(1, extract(epoch FROM max(stored_at) - min(stored_at)))::numeric, 0),
      round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM stored_at) * 1000 - finished_at)::numeric, 1),
      round(percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM stored_at) * 1000 - finished_at)::numeric, 1)
    FROM roshambo_matches
    """
  ).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
  guard shipped.count == 4, shipped[0] != "0" else {
    fatalError("no match reached PostgreSQL (\(shipped)); its log: \(postgres.directory)/log")
  }
  print(
    "8. Shared history: \(servers) servers of \(each) rooms (\(servers * each * 2) TLS connections) offered "
      + "\(rate) picks/s in all for \(seconds) s, durability on; shipping finished matches into one PostgreSQL "
      + "beside the same four without shipping")
  print(pad("fleet", 24) + pad("picks/s", 10) + pad("p50 ms", 9) + "p99 ms")
  for (name, run) in [("not shipping", off), ("shipping", on)] {
    print(
      pad(name, 24) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
        + format(run.p99 / 1000, 2))
  }
  print(
    "shipping ÷ not: throughput \(format(on.picksPerSecond / off.picksPerSecond, 3))×, p99 "
      + "\(format(on.p99 / off.p99, 2))×")
  print(
    "matches stored: \(shipped[0]) (\(shipped[1]) a second); from a match's end to PostgreSQL: p50 "
      + "\(shipped[2]) ms, p99 \(shipped[3]) ms")
  // The leaderboard at 1,000,000 matches: the same query the lobby and `history` make.
  try postgres.psql(
    """
    INSERT INTO roshambo_matches (server_id, match_id, room, finished_at, ruleset, best_of,
      player1, player2, score1, score2, winner, forfeit, fair)
    SELECT 'bench', n, 'r' || (n % 5000), n, 'classic', 3, 'p' || (n % 10000),
      'p' || ((n * 7 + 1) % 10000), 2, 1, 'p' || (n % 10000), false, false
    FROM generate_series(1, 1000000) AS n;
    INSERT INTO roshambo_standings (name, won, lost)
      SELECT 'p' || n, 100 + n % 97, 100 + n % 89 FROM generate_series(0, 9999) AS n
      ON CONFLICT (name) DO UPDATE SET won = excluded.won, lost = excluded.lost;
    ANALYZE
    """)
  let history = SharedHistory(
    address: try HistoryAddress(parsing: postgres.url), logger: Logger(label: "bench"))
  var boardTimes: [Double] = []
  var recentTimes: [Double] = []
  for _ in 0..<50 {
    var start = NIODeadline.now()
    _ = try await history.leaderboard(limit: 10)
    boardTimes.append(micros(since: start))
    start = NIODeadline.now()
    _ = try await history.recentMatches(limit: 20)
    recentTimes.append(micros(since: start))
  }
  await history.close()
  boardTimes.sort()
  recentTimes.sort()
  let total = try postgres.psql("SELECT count(*) FROM roshambo_matches")
  print(
    "at \(total) matches (10,000 players): the leaderboard's top 10 in \(format(boardTimes[25] / 1000, 2)) ms "
      + "(median of 50; longest \(format(boardTimes.last! / 1000, 2)) ms), the latest 20 matches in "
      + "\(format(recentTimes[25] / 1000, 2)) ms\n")
  fflush(nil)
}

// 1b. Seating: what seating a player costs as the server fills, the hub's own work per
// hello at each size beside the smallest (it must not grow with the players seated).
if runs("seating") {
  let levels = [1_000, 5_000, 10_000, 19_800].filter { $0 + 128 <= fileLimit }
  var rows: [(connections: Int, perSecond: Double, microsPerHello: Double)] = []
  for level in levels {
    let (server, port) = try startServerChild(durable: true, stalls: true)
    let began = ContinuousClock.now
    let seated = Mutex<(at: ContinuousClock.Instant, hellos: Int, nanoseconds: Int64)?>(nil)
    do {
      // The bots pick every 30 s or so once seated: a little play goes on while the rest
      // arrive (commits between hellos, as at the start of the capacity run), without
      // crowding out the handshakes (the capacity run seats under full play).
      _ = try await LoadGenerator.run(
        host: "127.0.0.1", port: port, tls: clientTLS, rooms: level / 2, seconds: 0,
        paceMillis: 30_000, settle: 0,
        connected: {
          let at = ContinuousClock.now
          server.send("hellos")
          let parts = server.line(startingWith: "HELLOS ").split(separator: " ")
          seated.withLock { $0 = (at, Int(parts[1])!, Int64(parts[2])!) }
        })
    } catch {
      server.stop()
      failed("seating \(level) connections", error)
    }
    server.stop()
    guard let (at, hellos, nanoseconds) = seated.withLock({ $0 }), hellos > 0 else {
      failed("seating \(level) connections", "the server counted no hello")
    }
    let elapsed = at - began
    let secondsTaken =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    rows.append(
      (level, Double(level) / secondsTaken, Double(nanoseconds) / Double(hellos) / 1_000))
  }
  print(
    "1b. Seating: N TLS connections seated into N/2 rooms from an empty server, durability on; "
      + "the hub's own work per hello (its core, not TLS or framing), beside the smallest run's")
  print(pad("connections", 13) + pad("seated/s", 10) + pad("hub µs/hello", 14) + "÷ smallest")
  for row in rows {
    print(
      pad("\(row.connections)", 13) + pad(format(row.perSecond, 0), 10)
        + pad(format(row.microsPerHello, 2), 14)
        + format(row.microsPerHello / rows[0].microsPerHello, 2) + "x")
  }
  if let first = rows.first, let last = rows.last {
    let growth = last.microsPerHello / first.microsPerHello
    print(
      "hub work per hello at \(last.connections) ÷ at \(first.connections): \(format(growth, 2))×; "
        + "target within 1.3×: \(growth <= 1.3 ? "met" : "NOT MET")\n")
  }
  fflush(nil)
}

// 10. Bots through a real server: two built-in bots, as `roshambo bot` plays (each its
// own process, the player's core pacing it to the rate the server announces), in one room
// of a server child with durability on, for 1,000 matches (`--matches N`; `--quick`: 100):
// with the rate limit lifted (as fast as the server answers) and with the server's default
// (what a player's server does), beside the arena playing the same two bots on a server of
// its own (no limit, no journal, best of 9, and best of 3 as the bots' server plays),
// alternating with the lifted run `--repeat` times.
if runs("bots") {
  let botMatches =
    arguments.firstIndex(of: "--matches").map { Int(arguments[$0 + 1])! } ?? (quick ? 100 : 1_000)
  let strategies: [BotStrategy] = [.random, .markov]
  // The arena's two games (one in each seat order, played at once) of 2 × matches rounds
  // each: about as many rounds in all as the bots' matches make (a best-of-3 match
  // between these two is about 3.8 rounds).
  let arenaRounds = botMatches * 2
  let identity = root + "/arena-identity.pem"
  var rows: [BotsRun] = []
  var arenas: [BotsRun] = []
  var lifted: [BotsRun] = []
  for round in 0..<repeats {
    let tag = repeats > 1 ? " (\(round + 1))" : ""
    for bestOf in [9, 3] {
      let run = try await arenaOnItsOwnServer(
        label: "arena, its own server, best of \(bestOf)\(tag)", strategies: strategies,
        roundsPerGame: arenaRounds, bestOf: bestOf, certificate: files.serverCertificate,
        key: files.serverKey, ca: files.caCertificate, identity: identity)
      rows.append(run)
      if bestOf == 9 { arenas.append(run) }
    }
    let (server, port) = try startServerChild(durable: true)
    let run = playBots(
      label: "bots, limit lifted\(tag)", server: server, port: port, ca: files.caCertificate,
      folder: root, strategies: strategies, matches: botMatches)
    server.stop()
    rows.append(run)
    lifted.append(run)
  }
  let (limitedServer, limitedPort) = try startServerChild(durable: true, rateLimited: true)
  let limited = playBots(
    label: "bots, the default limit", server: limitedServer, port: limitedPort,
    ca: files.caCertificate, folder: root, strategies: strategies, matches: botMatches)
  limitedServer.stop()
  rows.append(limited)
  /// Several runs as one: their rounds, matches, seconds and CPU summed.
  func pooled(_ runs: [BotsRun]) -> BotsRun {
    func sum(_ value: KeyPath<BotsRun, Int?>) -> Int? {
      runs.allSatisfy { $0[keyPath: value] != nil }
        ? runs.map { $0[keyPath: value]! }.reduce(0, +) : nil
    }
    let rounds: Int = runs.map(\.rounds).reduce(0, +)
    let seconds: Double = runs.map(\.seconds).reduce(0, +)
    let total: Int = runs.map(\.totalMicros).reduce(0, +)
    return BotsRun(
      label: runs[0].label, matches: sum(\.matches), rounds: rounds, seconds: seconds,
      serverMicros: sum(\.serverMicros), botMicros: sum(\.botMicros), totalMicros: total)
  }
  let arena = pooled(arenas)
  let fast = pooled(lifted)
  print(
    "10. Bots through a real server: two built-in bots (\(strategies.map(\.rawValue).joined(separator: " and "))), "
      + "each a process as `roshambo bot` plays, \(botMatches) matches in one room (best of 3), "
      + "durability on; the server's rate limit lifted, then its default (20 frames/s, a burst "
      + "of 40); beside the arena playing the same two bots on a server of its own (in one "
      + "process, no limit, no journal), a game of \(arenaRounds) rounds in each seat order, "
      + "in two rooms at once")
  print(
    pad("run", 40) + pad("matches/s", 11) + pad("rounds/s", 10) + pad("rounds", 8)
      + pad("wall s", 8) + pad("server µs/round", 17) + pad("bots µs/round", 15)
      + pad("CPU µs/round", 14) + "÷ arena rounds/s")
  func cell(_ value: Double?, _ digits: Int = 1) -> String {
    value.map { format($0, digits) } ?? "-"
  }
  for run in rows {
    print(
      pad(run.label, 40) + pad(cell(run.matches.map { Double($0) / run.seconds }, 2), 11)
        + pad(format(run.roundsPerSecond, 1), 10) + pad("\(run.rounds)", 8)
        + pad(format(run.seconds, 2), 8) + pad(cell(run.perRound(run.serverMicros)), 17)
        + pad(cell(run.perRound(run.botMicros)), 15) + pad(cell(run.perRound(run.totalMicros)), 14)
        + format(run.roundsPerSecond / arena.roundsPerSecond, 4) + "×")
  }
  let botFrames = Double(limited.rounds + limited.matches!) / limited.seconds
  let speed = fast.roundsPerSecond / arena.roundsPerSecond
  let cost: Double = fast.perRound(fast.totalMicros)! / arena.perRound(arena.totalMicros)!
  let limitedMatches: Double = Double(limited.matches!) / limited.seconds
  let fastMatches: Double = Double(fast.matches!) / fast.seconds
  let slowdown = limited.roundsPerSecond / fast.roundsPerSecond
  print(
    "limit lifted ÷ the arena's own server (best of 9), runs pooled: rounds/s "
      + "\(format(speed, 3))× (\(format(fast.roundsPerSecond)) against "
      + "\(format(arena.roundsPerSecond))), CPU a round \(format(cost, 2))× "
      + "(\(format(fast.perRound(fast.totalMicros)!)) µs: server "
      + "\(format(fast.perRound(fast.serverMicros)!)), bots \(format(fast.perRound(fast.botMicros)!)); "
      + "against \(format(arena.perRound(arena.totalMicros)!)))")
  // The arena plays a pairing's two games side by side, a room each; the bots play one
  // room, one round at a time.
  print(
    "a room's rounds/s: the bots' \(format(fast.roundsPerSecond)) (limit lifted), the arena's "
      + "\(format(arena.roundsPerSecond / 2)) (its two rooms at once): "
      + "\(format(2 * speed, 3))×")
  print(
    "the default limit ÷ lifted: rounds/s \(format(slowdown, 4))×, matches/s "
      + "\(format(limitedMatches, 2)) against \(format(fastMatches, 2)); a bot's picks and "
      + "rematches a second \(format(botFrames, 2)) (the server's limit: 20)")
  // Under the limit the processes mostly wait: what they cost a second says more than a
  // round does.
  print(
    "CPU seconds a second under the default limit: server "
      + "\(format(Double(limited.serverMicros!) / limited.seconds / 1e6, 4)), the two bots "
      + "\(format(Double(limited.botMicros!) / limited.seconds / 1e6, 4)); limit lifted: server "
      + "\(format(Double(fast.serverMicros!) / fast.seconds / 1e6, 3)), bots "
      + "\(format(Double(fast.botMicros!) / fast.seconds / 1e6, 3))\n")
  fflush(nil)
}

if !runs("capacity") { exit(0) }
// With --repeat N, the pairs alternate so that both see the machine's slower moments.
var pairs: [(on: Capacity, power: Capacity, off: Capacity)] = []
for _ in 0..<repeats {
  pairs.append(
    (
      try await capacity(durable: true, countsCommits: true),
      try await capacity(durable: true, power: true, countsCommits: true),
      try await capacity(durable: false)
    ))
}
let durableRun = Capacity.pooled(pairs.map(\.on))
let powerRun = Capacity.pooled(pairs.map(\.power))
let memoryRun = Capacity.pooled(pairs.map(\.off))
print(
  "2. Capacity: \(rooms) rooms (\(rooms * 2) TLS connections) offered \(rate) picks/s for \(seconds) s "
    + "(each bot picks every \(paceMillis) ms on average)"
    + (diskWriteMicros > 0 || diskSyncMicros > 0
      ? "; slow disk for the journal: +\(diskWriteMicros) µs a write, +\(diskSyncMicros) µs a sync"
      : ""))
print(
  pad("server", 20) + pad("picks/s", 10) + pad("p50 ms", 9) + pad("p99 ms", 9) + pad("KiB/conn", 10)
    + pad("seated in", 11) + "errors")
let capacityRows = [
  ("durability on", durableRun), ("durability power", powerRun), ("durability off", memoryRun),
]
for (name, run) in capacityRows {
  print(
    pad(name, 20) + pad(format(run.picksPerSecond, 0), 10) + pad(format(run.p50 / 1000, 2), 9)
      + pad(format(run.p99 / 1000, 2), 9) + pad(format(run.bytesPerConnection / 1024), 10)
      + pad(format(run.seatingSeconds, 1) + " s", 11)
      + (run.errors.isEmpty ? "none" : "\(run.errors)"))
}
if repeats > 1 {
  print(
    "(the picks of \(repeats) runs each, alternating; p99 ms of each, on / power / off: "
      + pairs.map {
        format($0.on.p99 / 1000, 1) + " / " + format($0.power.p99 / 1000, 1) + " / "
          + format($0.off.p99 / 1000, 1)
      }
      .joined(separator: ", ") + ")")
}
print(
  "durability costs \(format((1 - durableRun.picksPerSecond / memoryRun.picksPerSecond) * 100))% of throughput"
    + " and \(format(durableRun.p99 / memoryRun.p99, 2))× the p99")
print(
  "durability power ÷ on (process): \(format(powerRun.picksPerSecond / durableRun.picksPerSecond, 3))× "
    + "the picks/s, \(format(powerRun.p50 / durableRun.p50, 2))× the p50, "
    + "\(format(powerRun.p99 / durableRun.p99, 2))× the p99")
for (name, run) in capacityRows where run.commits > 0 {
  print(
    "journal, \(name): \(run.commits) commits of \(run.committedActions) actions in the window "
      + "(\(format(Double(run.committedActions) / Double(run.commits), 2)) actions a commit, "
      + "\(format(Double(run.commits) / Double(seconds * repeats), 0)) commits/s)")
}
for (name, run) in capacityRows {
  // Where the run's p99 came from: the p99 of each second of the window, in ms.
  print(
    "p99 by second, \(name), ms: "
      + run.timeline.map { format($0.p99 / 1000, $0.p99 < 10_000 ? 1 : 0) }.joined(separator: " "))
  guard !run.stalls.isEmpty else { continue }
  print("server loop, \(name):")
  for line in run.stalls { print("  " + line) }
}
print(
  "targets (5,000 rooms): >= 5,000 picks/s: \(durableRun.picksPerSecond >= 5_000 ? "met" : "NOT MET"); "
    + "p99 < 50 ms: \(durableRun.p99 < 50_000 ? "met" : "NOT MET"); "
    + "<= 48 KiB/conn: \(durableRun.bytesPerConnection <= 48 * 1024 ? "met" : "NOT MET")")
