import RoshamboClient
import RoshamboConnections
import RoshamboGame
import RoshamboHub
import RoshamboProtocol

/// A whole LAN party in one thread on a virtual clock: the real ``HubCore`` run by the
/// real ``HubRunner`` (this simulation is its ``HubWorld``), a journal under the real
/// one's contract (``SimulatedJournal``), people whose programs are the real
/// ``PlayerCore`` run by the real ``PlayerRunner`` (``SimulatedPlayer``,
/// ``SimulatedProgram``), and a network between them that carries the real encoded
/// frames, with delays, dropped connections, hosts cut off for a while, a
/// full disk, and the server killed and started again at any step. After every step the
/// invariants (``Simulation/checkInvariants()``) are checked; the first that fails ends
/// the run, named.
///
/// Invariant: every random choice comes from one ``SimulationRandom``, and events due at
/// the same moment run in the order they were scheduled, so a seed is one evening.
public final class Simulation {
  public let configuration: SimulationConfiguration
  var random: SimulationRandom
  var queue = EventQueue<Event>()
  /// Virtual time, ms since 1970.
  package internal(set) var now: Int64 = 1_800_000_000_000
  let start: Int64
  /// The real hub's loop, with this simulation as its world (nil while the server is down).
  var runner: HubRunner<Simulation>?
  /// The hub as it stands (nil while the server is down).
  var hub: HubCore? { runner?.core }
  /// Rises at each crash: what the dead hub scheduled or asked for is dropped.
  var hubGeneration = 0
  /// Each timer's generation: a timer replaced or cancelled leaves a stale event.
  var timerGenerations: [HubTimer: Int] = [:]
  var timerSerial = 0
  /// Numbers the people's programs.
  var programSerial = 0
  var journal: SimulatedJournal
  /// The commit asked for and not yet answered (lost in a crash).
  var commitInFlight: JournalCommit?
  var players: [SimulatedPlayer]
  var connections: [Int: Connection] = [:]
  var nextConnection = 1
  var lastRestart: Int64
  public internal(set) var trace: Trace
  public internal(set) var failure: Failure?
  public internal(set) var steps = 0
  /// The server's limits for each connection (its defaults).
  let limits = ConnectionLimits()
  /// What waits for connections whose programs do not read.
  var backlogs = ConnectionBacklogs<[UInt8]>()
  /// What happened during the evening, counted: rounds, matches, crashes, drops, …
  public internal(set) var counts: [String: Int] = [:]
  /// What the invariants keep between steps.
  var watch = InvariantWatch()
  let hubConfiguration: HubConfiguration
  let grace: Int64
  /// The fleet's name book and the other server that shares it.
  var fleet = SimulatedFleet()

  /// A connection between a person and the server.
  struct Connection {
    let id: Int
    let player: Int
    /// The hub generation it was made with (a crash closes it).
    let generation: Int
    var open = true
    /// When the server closed it, if it did: a seat's grace runs from then, however long
    /// the program takes to notice (a paused terminal reads the close last).
    var serverClosedAt: Int64?
    /// When the last frame each way is delivered: frames never overtake one another.
    var toServerAt: Int64 = 0
    var toClientAt: Int64 = 0
    /// Until when its host is cut off from the server.
    var cutUntil: Int64 = 0
    /// The server's end: the real connection state machine.
    var server: ConnectionStateMachine
    /// When the server last read a frame from it.
    var lastRead: Int64 = 0
    /// Whether the hub was handed anything from it (it is then told when it closes).
    var forwarded = false
    /// Whether its socket takes more (a program that does not read fills it).
    var writable = true
    /// Bytes in the socket on their way to the program.
    var inSocket = 0
    /// The program reads nothing until then (its terminal paused).
    var readsFrom: Int64 = 0
    /// What arrived while the program did not read, in order (nil: the close).
    var unreadByProgram: [[UInt8]?] = []
    /// States and lobby messages the server skipped for this slow reader (the newest in
    /// place of one waiting): what may leave its lobby copy out of step.
    var statesSkipped = 0
    /// When it was made.
    var openedAt: Int64 = 0
  }

  enum Event {
    case timer(HubTimer, generation: Int, hub: Int)
    case committed(hub: Int)
    case answer(HubInput, hub: Int)
    case toServer(connection: Int, bytes: [UInt8])
    case connectionTimer(ConnectionTimer, connection: Int)
    case serverSeesClose(connection: Int)
    case toClient(connection: Int, bytes: [UInt8]?)
    case wake(player: Int, look: Int)
    case programTimer(player: Int, program: Int, timer: PlayerTimer, generation: Int)
    case crash
    case restart
    case disk(full: Bool)
    case dropConnection
    case cutHost
    case fleetRead(hub: Int)
    case otherServer(SimulatedFleet.Act)
    case end
  }

  /// What failed: the invariant's name, what was seen, and when.
  public struct Failure: Error, CustomStringConvertible {
    public var invariant: String
    public var detail: String
    public var step: Int
    public var at: Int64
    public var description: String { "\(invariant): \(detail) (step \(step), at +\(at) ms)" }
  }

  /// An evening of `configuration`, keeping the last `traceLines` steps to print.
  public init(_ configuration: SimulationConfiguration, traceLines: Int = 400) {
    self.configuration = configuration
    self.random = SimulationRandom(seed: configuration.seed)
    self.start = now
    self.lastRestart = now
    let defaults = RoomState.Settings(bestOf: 3)
    self.grace = defaults.graceMillis
    self.journal = SimulatedJournal(defaults: defaults)
    self.trace = Trace(keep: max(1, traceLines))
    var settings = HubConfiguration(hasJournal: true)
    settings.tokenSeed = configuration.seed &+ 1
    settings.compactionInterval = 1_000_000
    // Three evenings in four the server is one of a fleet sharing its names; the fourth
    // it stands alone, and its own name book is all that refuses a name someone holds.
    settings.sharesNames = configuration.seed % 4 != 1
    // Entries close at 4 or 6 (half the evenings each), or a minute after the first with
    // whoever entered: from 5 up, the first round has byes and matches side by side.
    settings.tournament = TournamentPlan(
      kind: .singleElimination, settings: RoomState.Settings(bestOf: 1),
      players: (configuration.seed / 2) % 2 == 0 ? 4 : 6,
      startMillis: 60_000, pauseMillis: 5_000, nextMillis: 120_000)
    self.hubConfiguration = settings
    self.players = (0..<configuration.players).map {
      var player = SimulatedPlayer(
        index: $0, kind: $0 % 8 == 7 ? .watcher : $0 % 2 == 0 ? .quickMatch : .lobby)
      // One lobby person in eight cheats, as a people's fault.
      player.cheats = configuration.faults.contains(.people) && $0 % 8 == 3
      return player
    }
  }

  /// Runs the evening to its end or to the first invariant that fails.
  public func run() -> Failure? {
    runner = HubRunner(HubCore(lobby: journal.lobby, configuration: hubConfiguration))
    handle(.start(releasing: []))
    if hubConfiguration.sharesNames { fleetRestarted() }
    for index in players.indices { wake(index, after: random.int(0...60_000)) }
    let end = start + Int64(configuration.hours * 3_600_000)
    queue.schedule(.end, at: end)
    scheduleFaults(until: end)
    if hubConfiguration.sharesNames { scheduleOtherServer(until: end) }
    while failure == nil, let (at, event) = queue.next() {
      now = max(now, at)
      steps += 1
      if case .end = event { break }
      step(event)
      if failure == nil { checkInvariants() }
    }
    if failure == nil { checkAtEnd() }
    return failure
  }

  /// Simulated milliseconds so far.
  public var simulatedMillis: Int64 { now - start }

  func fail(_ invariant: String, _ detail: String) {
    guard failure == nil else { return }
    failure = Failure(invariant: invariant, detail: detail, step: steps, at: now - start)
    trace.note("FAILED \(invariant): \(detail)")
  }

  private func step(_ event: Event) {
    switch event {
    case .timer(let timer, let generation, let generationOfHub):
      guard generationOfHub == hubGeneration, timerGenerations[timer] == generation else { return }
      timerGenerations[timer] = nil
      trace.note("\(now - start) timer \(timer)")
      checkGraceLength(timer)
      handle(.timerFired(timer))
    case .committed(let generationOfHub):
      guard generationOfHub == hubGeneration, let commit = commitInFlight else { return }
      commitInFlight = nil
      answerCommit(commit, onJournalThread: true)
    case .answer(let input, let generationOfHub):
      guard generationOfHub == hubGeneration else { return }
      handle(input)
    case .toServer(let id, let bytes):
      arrived(bytes, on: id)
    case .connectionTimer(let timer, let id):
      connectionTimerFired(timer, id)
    case .serverSeesClose(let id):
      guard let connection = connections[id], connection.generation == hubGeneration, runner != nil
      else { return }
      trace.note("\(now - start) c\(id) closed")
      connections[id]?.server.closed()
      backlogs.forget(id)
      if connection.forwarded { handle(.closed(peer(connection))) }
    case .toClient(let id, let bytes):
      toClient(id, bytes)
    case .wake(let index, let look):
      // Only the person's latest look is theirs: they look again once, not on every
      // schedule made meanwhile.
      guard players[index].look == look else { return }
      wakeUp(index)
    case .programTimer(let index, let program, let timer, let generation):
      programTimerFired(player: index, program: program, timer, generation)
    case .crash:
      crash()
    case .restart:
      restart()
    case .disk(let full):
      journal.diskFull = full
      trace.note("\(now - start) disk \(full ? "full" : "freed")")
    case .dropConnection:
      dropRandomConnection()
    case .cutHost:
      cutRandomHost()
    case .fleetRead(let generationOfHub):
      guard generationOfHub == hubGeneration else { return }
      fleetRead()
    case .otherServer(let act):
      otherServer(act)
    case .end:
      break
    }
  }

  func peer(_ connection: Connection) -> Peer {
    Peer(
      id: connection.id, address: "10.0.0.\(connection.player + 2)",
      identity: players[connection.player].identity)
  }

  /// A person looks at their screen again `delay` ms from now (and not at any time
  /// asked for before).
  func wake(_ index: Int, after delay: Int64) {
    players[index].look += 1
    queue.schedule(.wake(player: index, look: players[index].look), at: now + max(0, delay))
  }
}
