import NIOCore
import NIOPosix
import RoshamboArena
import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import RoshamboTLS

/// One pairing of an arena being played: game after game, each in two rooms side by side
/// (one per seat order), each room two connections; what the four seats see goes to the
/// pairing's ``PairingReferee``, which says when to stop.
///
/// Invariant: it lives on the arena's one event loop (so do its seats and pickers), and it
/// tells the arena it is over exactly once, after every connection of its last game has
/// closed.
final class ArenaTable {
  /// How rooms of an arena are named: the arena's, the pairing, the game, the order.
  let roomPrefix: String
  let pairing: ArenaSchedule.Pairing
  private(set) var referee: PairingReferee
  fileprivate unowned let arena: ArenaCoordinator
  private var game = 0
  private var seats: [ArenaSeat] = []
  /// Seats of the current game whose connection is still open.
  private var open = 0
  /// Rounds played in every game so far, counted or not.
  private(set) var played = 0
  private var over = false

  init(arena: ArenaCoordinator, pairing: ArenaSchedule.Pairing, roomPrefix: String) {
    self.arena = arena
    self.pairing = pairing
    self.roomPrefix = roomPrefix
    referee = PairingReferee(
      pairing: pairing, roundCap: arena.schedule.roundCap, test: arena.test)
  }

  /// The rooms may run this far ahead of each other (rounds reported and not yet counted)
  /// before the one ahead waits.
  static let maxLead = 64

  func start() { startGame() }

  private func startGame() {
    seats = []
    let schedule = arena.schedule
    for order in ArenaSchedule.SeatOrder.allCases {
      let room =
        "\(roomPrefix)-p\(pairing.index + 1)-g\(game + 1)-\(order == .firstSeated ? "a" : "b")"
      for seat in Seat.allCases {
        let bot = arena.bots[schedule.bot(in: seat, of: pairing, order: order)]
        let picker = bot.picker(
          seed: schedule.seed(pairing: pairing, game: game, order: order, seat: seat),
          loop: arena.loop, groups: arena.programGroups,
          failed: { [weak arena] failure in arena?.fail(failure) })
        seats.append(
          ArenaSeat(
            table: self, order: order, seat: seat, room: room, name: bot.name, picker: picker))
      }
    }
    open = seats.count
    // Seat 2's connection opens once seat 1 has its seat: a server seats in the order
    // people arrive.
    for seat in seats where seat.expectedSeat == .one { arena.connect(seat) }
  }

  /// `seat` was given its seat: its room's second seat may come.
  func seated(_ seat: ArenaSeat) {
    guard seat.expectedSeat == .one, !over else { return }
    for other in seats where other.room == seat.room && other.expectedSeat == .two {
      arena.connect(other)
    }
  }

  /// A seat saw a round end.
  func report(_ outcome: SeatOutcome, order: ArenaSchedule.SeatOrder, seat: Seat) {
    if seat == .one {
      played += 1
      arena.roundPlayed()
    }
    let wasSettled = referee.isSettled
    do {
      try referee.report(outcome, order: order, seat: seat)
    } catch {
      arena.fail(
        ArenaFailure(
          "\(arena.bots[pairing.first].name) against "
            + "\(arena.bots[pairing.second].name): \(error)"))
      return
    }
    if referee.isSettled, !wasSettled {
      for seat in seats { seat.finish() }
    } else {
      // The room behind caught up: the one ahead may go on.
      for seat in seats where seat.order != order { seat.resume() }
    }
  }

  /// Whether a seat that has seen `seen` rounds of this game should play another: it
  /// asks about its own count, not its room's, since its opponent may have read further.
  func wantsRound(afterSeeing seen: Int) -> Bool {
    !referee.isSettled && seen < arena.schedule.roundsPerGame
  }

  /// Whether the room of `order` may pick now (it is not too far ahead of the other).
  func mayPick(_ order: ArenaSchedule.SeatOrder) -> Bool {
    referee.backlog(order) < Self.maxLead
  }

  /// A seat's connection closed: once all four have, the next game, or the end.
  func closed(_ seat: ArenaSeat) {
    open -= 1
    guard open == 0, !over else { return }
    for seat in seats { seat.picker.close() }
    arena.pickTimes(
      seats.flatMap(\.picker.answerTimes), firsts: seats.compactMap(\.picker.firstAnswerTime))
    game += 1
    if !referee.isSettled, game < arena.schedule.games {
      startGame()
    } else {
      over = true
      referee.close()
      arena.finished(self)
    }
  }

  /// The arena failed: close everything.
  func abandon() {
    over = true
    for seat in seats {
      seat.picker.close()
      seat.abandon()
    }
  }
}

/// One seat of an arena room: a ``PlayerCore`` driven on its connection's channel (the
/// `hello`, the pace of its frames, its keepalive), whose match it reads after each change
/// to keep the match's rounds (the server's views carry only the latest 100), report each
/// round's end to its table, pick through its ``SeatPicker`` when the table lets it, ask
/// for rematches until its game's rounds are played, then leave.
///
/// Invariant: every frame it sends is one its core returned; it picks at most once per
/// round of a match, and asks for nothing once it has begun to leave.
final class ArenaSeat: ChannelInboundHandler, PlayerWorld {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  let order: ArenaSchedule.SeatOrder
  let expectedSeat: Seat
  let room: String
  let name: String
  let picker: any SeatPicker
  private unowned let table: ArenaTable
  private var context: ChannelHandlerContext?
  private var runner: PlayerRunner<ArenaSeat>
  private var core: PlayerCore { runner.core }
  /// The core's timers, scheduled on the channel's event loop.
  private var timers: [PlayerTimer: Scheduled<Void>] = [:]
  private var seat: Seat?
  private var lastView: RoomView?
  /// The current match's rounds, oldest first.
  private var history: [RoundResult] = []
  /// Rounds this seat has seen end in its game.
  private var seen = 0
  private var match = 0
  private var pickedRound: (match: Int, round: Int)?
  private var askedRematch = false
  private var finishing = false
  private var closed = false

  init(
    table: ArenaTable, order: ArenaSchedule.SeatOrder, seat: Seat, room: String, name: String,
    picker: any SeatPicker
  ) {
    self.table = table
    self.order = order
    self.expectedSeat = seat
    self.room = room
    self.name = name
    self.picker = picker
    // "arena-" and the bot's name, in letters, digits and hyphens (a name nobody is likely
    // to hold on a server with identities; 24 characters at most, as the name rule says).
    let shown = String(
      name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }.prefix(18))
    self.runner = PlayerRunner(
      PlayerCore(
        configuration: PlayerConfiguration(
          name: "arena-" + shown, room: room, reconnects: false)))
  }

  func channelActive(context: ChannelHandlerContext) {
    self.context = context
    // The arena made the connection: the core's `connect` is answered at once.
    handle(.start)
    handle(.connected)
    context.fireChannelActive()
  }

  /// Milliseconds on the event loop's clock (the core's).
  var now: Int64 { Int64(NIODeadline.now().uptimeNanoseconds / 1_000_000) }

  /// Hands `input` to the core (this seat is its runner's world).
  private func handle(_ input: PlayerInput) {
    runner.handle(input, in: self)
  }

  func perform(_ output: PlayerOutput, state: PlayerState) {
    switch output {
    case .send(let message):
      guard let context else { return }
      let written = context.writeAndFlush(wrapOutboundOut(ClientPipeline.frame(message)))
      // The seat leaves once its `leave` is written.
      if case .leave = message {
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
      }
    case .close:
      context?.close(promise: nil)
    case .schedule(let timer, let at):
      timers[timer]?.cancel()
      guard let context else { return }
      timers[timer] = context.eventLoop.assumeIsolated().scheduleTask(
        deadline: .uptimeNanoseconds(UInt64(max(0, at)) * 1_000_000)
      ) { [weak self] in
        guard let self else { return }
        self.timers[timer] = nil
        self.handle(.timerFired(timer))
      }
    case .cancel(let timer):
      timers.removeValue(forKey: timer)?.cancel()
    case .show:
      changed()
    case .say(let line):
      // A frame the server refused as too fast too often: the arena's count would be off.
      table.arenaFailed("\(name) in \(room): \(line)")
    case .ended(let end):
      for timer in timers.values { timer.cancel() }
      timers = [:]
      // A connection that closed is said by ``markClosed(unexpectedly:)``.
      if !finishing, !closed { table.arenaFailed("\(name) in \(room): \(end.reason)") }
    case .connect, .makeNonce, .drawNonce, .keepSeat, .forgetSeat, .keepEvidence, .saveRecord,
      .matchReady, .lobby:
      // One connection, ordinary rooms, nothing kept: nothing to do.
      break
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    guard let message = try? frame.withUnsafeReadableBytes({ try ServerMessage.decode($0) }) else {
      table.arenaFailed("the server sent \(room) a message this client cannot read")
      return
    }
    handle(.message(message))
  }

  /// The core's match changed: the seat it was given, the rounds ended, what to ask next.
  private func changed() {
    let match = core.state.match
    if seat == nil, match.room != nil {
      guard let given = match.seat else {
        table.arenaFailed(
          "the server seated \(name) in \(room) as a spectator: is the room taken?")
        return
      }
      guard given == expectedSeat else {
        table.arenaFailed(
          "the server seated \(name) in seat \(given.rawValue) of \(room), not "
            + "\(expectedSeat.rawValue)")
        return
      }
      seat = given
      table.seated(self)
    }
    guard let view = match.view, let seat else { return }
    seen(view, seat: seat)
  }

  private func seen(_ view: RoomView, seat: Seat) {
    guard !finishing, view != lastView else { return }
    lastView = view
    // A new match starts at round 1 with no history.
    if view.history.isEmpty, view.round <= 1, match == 0 || !history.isEmpty {
      match += 1
      history = []
    }
    let lastRound = history.last?.round ?? 0
    for round in view.history where round.round > lastRound {
      history.append(round)
      let outcome: SeatOutcome =
        round.winner == nil ? .drawn : round.winner == seat ? .won : .lost
      seen += 1
      table.report(outcome, order: order, seat: seat)
      if finishing { return }
    }
    act(on: view, seat: seat)
  }

  private func act(on view: RoomView, seat: Seat) {
    guard !finishing else { return }
    // The opponent leaves after the last round this seat has read too (its frames come
    // in order), so leaving with it loses no round.
    if view.opponent?.left == true || !table.wantsRound(afterSeeing: seen) {
      finish()
      return
    }
    switch view.phase {
    case .waiting:
      break
    case .choosing:
      askedRematch = false
      guard let me = view.player(seat), !me.chosen, table.mayPick(order) else { return }
      if let picked = pickedRound, picked.match == match, picked.round == view.round { return }
      pickedRound = (match, view.round)
      picker.pick(history: history, seat: seat, view: view) { [weak self] weapon in
        guard let self, !self.finishing else { return }
        self.handle(.command(.pick(weapon)))
      }
    case .over:
      guard !askedRematch else { return }
      askedRematch = true
      picker.matchOver(history: history, seat: seat, view: view)
      handle(.command(.rematch))
    }
  }

  /// The room behind caught up: pick if this seat was waiting for it.
  func resume() {
    guard let view = lastView, let seat, !finishing else { return }
    act(on: view, seat: seat)
  }

  /// The seat's game is over: leave the room (the connection closes once the `leave` is
  /// written).
  func finish() {
    guard !finishing else { return }
    finishing = true
    guard context != nil else { return }
    handle(.command(.leave))
  }

  /// The arena failed: close without leaving.
  func abandon() {
    finishing = true
    context?.close(promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    markClosed(unexpectedly: !finishing)
    handle(.closed(nil))
    context.fireChannelInactive()
  }

  /// The connection could not be opened, or it closed.
  func markClosed(unexpectedly: Bool) {
    guard !closed else { return }
    closed = true
    for timer in timers.values { timer.cancel() }
    timers = [:]
    if unexpectedly {
      table.arenaFailed("the server closed the connection of \(name) in \(room)")
    }
    table.closed(self)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    if !finishing {
      table.arenaFailed("\(name)'s connection in \(room) failed: \(error)")
    }
    context.close(promise: nil)
  }
}

extension ArenaTable {
  /// Fails the whole arena with `message`.
  func arenaFailed(_ message: String) { arena.fail(ArenaFailure(message)) }
}
