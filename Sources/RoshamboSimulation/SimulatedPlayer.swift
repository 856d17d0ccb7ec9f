import RoshamboClient
import RoshamboGame
import RoshamboProtocol

/// One person at the party: who they are, what their program keeps on disk (a seat's
/// token, as ``SeatMemory`` does), and the program they run now, if any
/// (``SimulatedProgram``: the real ``PlayerCore`` run by the real ``PlayerRunner``). What a
/// person decides (to pick, to rematch, to challenge, to go away for a while) comes from
/// the simulation's seed and becomes one of the core's commands; everything the program
/// sends, when and how often, is the core's.
///
/// Invariant: a person runs at most one program at a time, and its connection is the
/// only one of theirs the simulation reads for them.
struct SimulatedPlayer {
  enum Kind: Equatable {
    /// Plays quick match.
    case quickMatch
    /// Follows the lobby: challenges, answers challenges, enters the tournament.
    case lobby
    /// Looks at the lobby, then watches a match being played, and back.
    case watcher
  }

  let index: Int
  let kind: Kind
  let name: String
  let identity: String
  /// A dishonest player (the hostile minority): in a fair room, half their reveals name
  /// another weapon than the one they committed to.
  var cheats = false
  /// The name a dishonest player's program runs under now when it is another's (written
  /// in other capitals, a look-alike), or nil.
  var impersonating: String?
  /// A token a dishonest player's program presents now though it holds no seat by it (one
  /// made up, or one of its own seats long given up), or nil.
  var presenting: String?
  /// The tokens of seats this person held: what a dishonest player replays.
  var formerTokens: [String] = []
  /// The program running, if any.
  var program: SimulatedProgram?
  /// The connection the program uses now, if any.
  var connection: Int? { program?.connection }
  /// The seat kept on disk (``SeatMemory``), if any: what a program started again resumes with.
  var token: String?
  /// Challenges waiting for this person's answer.
  var pending: [Int] = []
  /// A challenge this person made or accepted has not ended yet (they wait for the answer,
  /// or the seat).
  var challenging = false
  /// When the connection of a seat in a running match dropped (the grace runs from it).
  var droppedInMatchAt: Int64?
  /// When this person's program last lost its connection, and whether they were then
  /// entered in a tournament still taking entries.
  var droppedAt: Int64?
  var enteredWhenDropped = false
  /// When the server had their `hello` after that.
  var returnedAt: Int64?
  /// The room a watcher goes to watch next.
  var watchTarget: String?
  /// The program ended on the way somewhere (a match left for the lobby, the lobby left
  /// to watch): the next one starts at once.
  var comesBackSoon = false
  /// Refused their name, the person does not start the program again before then.
  var awayUntil: Int64 = 0
  /// Numbers the times the person was told to look at the screen next: only the latest
  /// counts.
  var look = 0

  init(index: Int, kind: Kind) {
    self.index = index
    self.kind = kind
    self.name = "P\(index)"
    // A player identity is the SHA-256 of a client key, as 64 hex digits.
    let hex = String(index + 1, radix: 16)
    self.identity = String(repeating: "0", count: 64 - hex.count) + hex
  }

  /// What the next program is, as its command line would make it: a seat kept on disk
  /// taken back first, a room to watch, the lobby, or quick match.
  func nextProgram(fair: Bool) -> PlayerConfiguration {
    if let token {
      return PlayerConfiguration(name: name, fair: true, resume: token)
    }
    if kind == .watcher, let room = watchTarget {
      return PlayerConfiguration(name: name, room: room, role: .spectator, fair: true)
    }
    if kind == .lobby || kind == .watcher {
      return PlayerConfiguration(
        name: name, role: .lobby, fair: true, takesChallenges: kind == .lobby)
    }
    return PlayerConfiguration(name: name, fair: fair)
  }

  /// Whether this person plays in a tournament not over, as their screen shows: seated
  /// in one of its rooms, or entered in it (by their request, or as its standings list).
  func inTournament(_ state: PlayerState) -> Bool {
    if case .seated = state.phase, let room = state.match.room {
      return Tournament.isTournamentRoom(room)
    }
    guard let lobby = state.lobby else { return false }
    guard let tournament = lobby.replica.view?.tournament, tournament.phase != .finished else {
      return lobby.entered
    }
    return lobby.entered || tournament.standings.contains { $0.name == name }
  }

  /// What this person asks of their program when they look at its screen (nil: nothing
  /// now); `watch`: the room a watcher goes to watch, which ends the lobby's program.
  mutating func decide(
    _ state: PlayerState, random: inout SimulationRandom
  ) -> PlayerCommand? {
    switch state.phase {
    case .seated:
      let match = state.match
      guard let view = match.view else { return nil }
      guard kind != .watcher, let seat = match.seat else {
        // A match watched to its end (or a while): the person goes away for a while.
        guard view.phase != .choosing || random.chance(0.05) else { return nil }
        return .leave
      }
      if match.isMyMove {
        return .pick(
          BotStrategy.random.pick(
            history: view.history, seat: seat, ruleset: Ruleset.named(view.ruleset),
            random: &random))
      }
      guard view.phase == .over else { return nil }
      // A tournament's match has no rematch: its player goes back to the lobby for the
      // next round.
      if Tournament.isTournamentRoom(view.room) {
        comesBackSoon = true
        return .leave
      }
      if random.chance(0.5), view.player(seat.opponent)?.left != true { return .rematch }
      // Enough for now: the person closes the program and comes back later.
      return .leave
    case .following(_, let lobby):
      guard let view = lobby.replica.view else { return nil }
      if kind == .watcher {
        let playing = view.rooms.filter { $0.phase == .choosing }
        guard let room = playing.randomElement(using: &random) else { return nil }
        watchTarget = room.name
        comesBackSoon = true
        return .leave
      }
      if let challenge = pending.first {
        pending.removeFirst()
        guard random.chance(0.7) else { return .decline(challenge, forTheEvening: false) }
        challenging = true
        return .accept(challenge)
      }
      if !challenging, random.chance(0.3) {
        let others = view.people.filter {
          $0.status == .idle && $0.takesChallenges && $0.name != name
        }
        guard let other = others.randomElement(using: &random) else { return nil }
        challenging = true
        // Half on the server's terms, half a length of their own.
        let bestOf = random.chance(0.5) ? nil : [1, 3, 5, 7].randomElement(using: &random)
        return .challenge(other.name, bestOf: bestOf, fair: random.chance(0.3))
      }
      if let tournament = view.tournament, tournament.phase == .entry, !lobby.entered,
        random.chance(0.2)
      {
        return .enterTournament
      }
      return nil
    default:
      return nil
    }
  }
}

/// A person's program: the real ``PlayerCore`` run by the real ``PlayerRunner``, with the
/// simulation as its world (its connections, its timers on the virtual clock, its nonces
/// from the seed, its kept seat). It asks the simulation for everything and decides
/// nothing itself.
///
/// Invariant: a timer it scheduled fires only while it is its person's program and the
/// schedule is its latest for that timer.
final class SimulatedProgram: PlayerWorld {
  unowned let simulation: Simulation
  let person: Int
  /// Numbers the person's programs: a timer of one that ended is stale.
  let serial: Int
  private(set) var runner: PlayerRunner<SimulatedProgram>
  /// The connection the core has now, if any.
  var connection: Int?
  /// Each timer's latest schedule; an event of an earlier one is stale.
  var timerGenerations: [PlayerTimer: Int] = [:]

  init(simulation: Simulation, person: Int, serial: Int, configuration: PlayerConfiguration) {
    self.simulation = simulation
    self.person = person
    self.serial = serial
    self.runner = PlayerRunner(PlayerCore(configuration: configuration))
  }

  var state: PlayerState { runner.core.state }

  func handle(_ input: PlayerInput) {
    runner.handle(input, in: self)
  }

  var now: Int64 { simulation.now }

  func perform(_ output: PlayerOutput, state: PlayerState) {
    simulation.program(self, performs: output, state: state)
  }
}
