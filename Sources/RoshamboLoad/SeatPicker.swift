import Foundation
import NIOCore
import NIOPosix
import RoshamboClient
import RoshamboGame
import RoshamboJSON

#if canImport(Glibc)
  import Glibc
#endif

/// What picks for one seat of one arena game: asked once per round with the match's
/// rounds so far (all of them, oldest first; fewer than last time means a new match),
/// it answers on the event loop it was made on, now or later.
///
/// Invariant: it answers each question at most once, and never after ``close()``.
protocol SeatPicker: AnyObject {
  /// `view`: the room as the seat sees it now (its best-of, its players' names).
  func pick(
    history: [RoundResult], seat: Seat, view: RoomView, answer: @escaping (Weapon) -> Void)
  /// The match is over: `history` holds all its rounds, its last one too.
  func matchOver(history: [RoundResult], seat: Seat, view: RoomView)
  /// How long its answers took, µs, but the first (a program's; none for a built-in
  /// strategy).
  var answerTimes: [Double] { get }
  /// How long its first answer took, µs, the program's start included (nil: none).
  var firstAnswerTime: Double? { get }
  func close()
}

/// A built-in strategy: answers at once.
final class StrategyPicker: SeatPicker {
  private var player: StrategyPlayer

  init(_ player: StrategyPlayer) { self.player = player }

  func pick(
    history: [RoundResult], seat: Seat, view: RoomView, answer: @escaping (Weapon) -> Void
  ) {
    answer(player.nextPick(history: history, seat: seat, ruleset: Ruleset.named(view.ruleset)))
  }

  func matchOver(history: [RoundResult], seat: Seat, view: RoomView) {
    player.matchOver(history: history, seat: seat, ruleset: Ruleset.named(view.ruleset))
  }

  var answerTimes: [Double] { [] }
  var firstAnswerTime: Double? { nil }
  func close() {}
}

/// A program that picks (`exec:COMMAND`), run with `/bin/sh -c` for one seat of one game
/// and spoken to in the lines of docs/BOTS.md (``BotProgramLine``: `start` at each match,
/// `result` after each round, `pick`, `end` when the match is over, `bye`), so a bot
/// written for `roshambo bot --exec` plays in the arena as it is. Its answers are read as
/// `roshambo bot --exec` reads them (``BotProgramAnswer``). Its standard error is the
/// arena's.
///
/// Invariant: a program that exits, answers what is not a weapon of the ruleset, or
/// takes longer than ``timeout`` over a pick fails the arena through `failed`, once (an
/// arena measures bots: one that cannot play is not given matches up, as `roshambo bot`
/// does, but named).
final class ProgramPicker: SeatPicker {
  static let timeout = TimeAmount.seconds(10)
  /// How long a program has to leave after `bye` before its group is killed.
  static let patience = TimeAmount.seconds(1)

  private let command: String
  private let loop: any EventLoop
  private let failed: (ArenaFailure) -> Void
  /// The arena run's program groups: this program's is stopped with them.
  private let groups: ProgramGroups
  private var process: ProgramProcess?
  private var channel: (any Channel)?
  /// Lines to write once the pipes are open.
  private var waitingLines: [String] = []
  private var pending: (asked: NIODeadline, ruleset: Ruleset, answer: (Weapon) -> Void)?
  private var deadline: Scheduled<Void>?
  private var matches = 0
  /// Whether a match was started (its `start` sent) and not yet ended, and how many of
  /// its rounds were sent as `result` lines.
  private var inMatch = false
  private var reported = 0
  /// What `pick` and `start` lines say the program has per pick: the arena's own limit.
  private let limits = BotProgramSession.Limits(pick: .seconds(10), bank: .zero)
  private var closed = false
  private(set) var answerTimes: [Double] = []
  private(set) var firstAnswerTime: Double?

  init(
    command: String, loop: any EventLoop, groups: ProgramGroups,
    failed: @escaping (ArenaFailure) -> Void
  ) {
    self.command = command
    self.loop = loop
    self.groups = groups
    self.failed = failed
    start()
  }

  private func start() {
    let process: ProgramProcess
    do {
      process = try ProgramProcess.spawn(command)
    } catch {
      fail("exec:\(command) could not be started: \(error)")
      return
    }
    self.process = process
    // In a process group of its own, numbered as the process: the arena stops the whole
    // group, whatever the program started; and it is reaped once it exits.
    groups.started(process.pid)
    Task { _ = await process.exitStatus() }
    // NIO takes the two ends this process keeps.
    let readEnd = process.output
    let writeEnd = process.input
    let bound = NIOLoopBound(self, eventLoop: loop)
    NIOPipeBootstrap(group: loop)
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(
            ProgramLineHandler(picker: bound.value))
        }
      }
      .takingOwnershipOfDescriptors(input: readEnd, output: writeEnd)
      .hop(to: loop)
      .assumeIsolated()
      .whenComplete { result in
        let picker = bound.value
        switch result {
        case .success(let channel):
          picker.channel = channel
          if picker.closed {
            channel.close(promise: nil)
            return
          }
          for line in picker.waitingLines { picker.write(line) }
          picker.waitingLines = []
        case .failure(let error):
          _ = Glibc.close(readEnd)
          _ = Glibc.close(writeEnd)
          picker.fail("exec:\(picker.command): its pipes could not be opened: \(error)")
        }
      }
  }

  func pick(
    history: [RoundResult], seat: Seat, view: RoomView, answer: @escaping (Weapon) -> Void
  ) {
    guard !closed else { return }
    let ruleset = Ruleset.named(view.ruleset)
    if !inMatch || history.count < reported {
      matches += 1
      inMatch = true
      reported = 0
      send(
        .start(
          .init(
            match: matches, ruleset: ruleset, bestOf: view.bestOf, seat: seat,
            name: view.player(seat)?.name ?? "", opponent: view.opponent?.name ?? "",
            room: view.room, limits: limits)))
    }
    report(history, seat: seat)
    let shown = history.suffix(100).map { BotProgramLine.Round($0, seat: seat) }
    send(
      .pick(
        .init(
          round: history.count + 1, history: shown, score: Self.score(history, seat: seat),
          pick: limits.pick, bank: limits.bank)))
    pending = (.now(), ruleset, answer)
    deadline = loop.assumeIsolated().scheduleTask(in: Self.timeout) { [weak self] in
      guard let self, self.pending != nil else { return }
      self.fail("exec:\(self.command) gave no pick within 10 s.")
    }
  }

  func matchOver(history: [RoundResult], seat: Seat, view: RoomView) {
    guard !closed, inMatch else { return }
    report(history, seat: seat)
    inMatch = false
    send(.end(view.winner == seat ? .won : .lost, score: Self.score(history, seat: seat), why: nil))
  }

  /// `result` lines for the match's rounds not sent yet.
  private func report(_ history: [RoundResult], seat: Seat) {
    guard history.count > reported else { return }
    for index in reported..<history.count {
      send(
        .result(
          BotProgramLine.Round(history[index], seat: seat),
          score: Self.score(history[...index], seat: seat)))
    }
    reported = history.count
  }

  /// Rounds won by each side in `rounds`.
  private static func score(_ rounds: some Collection<RoundResult>, seat: Seat)
    -> BotProgramLine.Score
  {
    BotProgramLine.Score(
      you: rounds.count { $0.winner == seat }, them: rounds.count { $0.winner == seat.opponent })
  }

  private func send(_ line: BotProgramLine) {
    let text = line.text + "\n"
    if channel == nil { waitingLines.append(text) } else { write(text) }
  }

  private func write(_ line: String) {
    channel?.writeAndFlush(ByteBuffer(string: line), promise: nil)
  }

  /// A line the program wrote.
  fileprivate func received(_ line: String) {
    guard !closed else { return }
    guard let (asked, ruleset, answer) = pending else {
      if BotProgramAnswer.isBlank(line) { return }
      fail("exec:\(command) wrote a line nobody asked for: \(BotProgramAnswer.shown(line))")
      return
    }
    let weapon: Weapon
    switch BotProgramAnswer(line, ruleset: ruleset) {
    case .pick(let picked):
      weapon = picked
    case .blank:
      return
    case .notInRuleset(_, let shown), .garbage(let shown):
      fail(
        "exec:\(command) answered \(shown), which is not "
          + ruleset.weapons.map(\.rawValue).joined(separator: ", ") + " (nor {\"pick\":…}).")
      return
    }
    pending = nil
    deadline?.cancel()
    let micros = Double((NIODeadline.now() - asked).nanoseconds) / 1000
    if firstAnswerTime == nil { firstAnswerTime = micros } else { answerTimes.append(micros) }
    answer(weapon)
  }

  /// The program's output ended.
  fileprivate func ended() {
    guard !closed else { return }
    fail("exec:\(command) stopped (its output ended) in the middle of a game.")
  }

  private func fail(_ message: String) {
    guard !closed else { return }
    close()
    failed(ArenaFailure(message))
  }

  func close() {
    guard !closed else { return }
    closed = true
    deadline?.cancel()
    pending = nil
    if let channel {
      // `bye`, then its input ends: the program may leave of itself.
      channel.writeAndFlush(ByteBuffer(string: BotProgramLine.bye.text + "\n"))
        .assumeIsolated().whenComplete { _ in channel.close(promise: nil) }
    }
    if let process {
      let (group, groups) = (process.pid, self.groups)
      loop.assumeIsolated().scheduleTask(in: Self.patience) { groups.kill(group) }
    }
  }
}

/// Cuts a program's output into lines for its ``ProgramPicker``.
private final class ProgramLineHandler: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private let picker: ProgramPicker
  private var buffer: [UInt8] = []

  init(picker: ProgramPicker) { self.picker = picker }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var bytes = unwrapInboundIn(data)
    buffer += bytes.readBytes(length: bytes.readableBytes) ?? []
    while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
      let line = String(decoding: buffer[..<newline], as: UTF8.self)
      buffer.removeSubrange(...newline)
      picker.received(line)
    }
    if buffer.count > 65_536 { buffer.removeAll() }
  }

  func channelInactive(context: ChannelHandlerContext) {
    picker.ended()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
