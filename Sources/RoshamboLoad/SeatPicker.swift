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
  func pick(
    history: [RoundResult], seat: Seat, ruleset: Ruleset, answer: @escaping (Weapon) -> Void)
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
    history: [RoundResult], seat: Seat, ruleset: Ruleset, answer: @escaping (Weapon) -> Void
  ) {
    answer(player.nextPick(history: history, seat: seat, ruleset: ruleset))
  }

  var answerTimes: [Double] { [] }
  var firstAnswerTime: Double? { nil }
  func close() {}
}

/// A program that picks (`exec:COMMAND`), run with `/bin/sh -c` for one seat of one game
/// and spoken to in JSON lines on its standard input and output. This is the arena's own
/// stand-in until `roshambo bot --exec`'s seam is on main (then it picks through that).
///
/// For each pick it is sent one line, `{"round":R,"match":M,"seat":S,"ruleset":"classic",
/// "seed":N,"last":L}`, where L is null or the round before, `{"you":"rock","them":
/// "paper","winner":"you"|"them"|null}`; it answers one line, `{"weapon":"paper"}` or
/// the weapon's name alone. Its standard error is the arena's.
///
/// Invariant: a program that exits, answers what is not a weapon of the ruleset, or
/// takes longer than ``timeout`` fails the arena through `failed`, once.
final class ProgramPicker: SeatPicker {
  static let timeout = TimeAmount.seconds(10)

  private let command: String
  private let seed: UInt64
  private let loop: any EventLoop
  private let failed: (ArenaFailure) -> Void
  private var process: Process?
  private var channel: (any Channel)?
  /// Lines to write once the pipes are open.
  private var waitingLines: [String] = []
  private var pending: (asked: NIODeadline, ruleset: Ruleset, answer: (Weapon) -> Void)?
  private var deadline: Scheduled<Void>?
  private var matches = 0
  private var lastHistoryCount = 0
  private var closed = false
  private(set) var answerTimes: [Double] = []
  private(set) var firstAnswerTime: Double?

  init(
    command: String, seed: UInt64, loop: any EventLoop, failed: @escaping (ArenaFailure) -> Void
  ) {
    self.command = command
    self.seed = seed
    self.loop = loop
    self.failed = failed
    start()
  }

  private func start() {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do {
      try process.run()
    } catch {
      fail("exec:\(command) could not be started: \(error)")
      return
    }
    self.process = process
    // NIO takes copies of the two ends this process keeps; Foundation closes its own.
    let readEnd = dup(output.fileHandleForReading.fileDescriptor)
    let writeEnd = dup(input.fileHandleForWriting.fileDescriptor)
    try? output.fileHandleForReading.close()
    try? input.fileHandleForWriting.close()
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
    history: [RoundResult], seat: Seat, ruleset: Ruleset, answer: @escaping (Weapon) -> Void
  ) {
    guard !closed else { return }
    if history.count < lastHistoryCount || matches == 0 { matches += 1 }
    lastHistoryCount = history.count
    var line = "{\"round\":\(history.count + 1),\"match\":\(matches),\"seat\":\(seat.rawValue)"
    line += ",\"ruleset\":\"\(ruleset.id.rawValue)\",\"seed\":\(seed),\"last\":"
    if let last = history.last {
      let you = last.weapon(of: seat)?.rawValue
      let them = last.weapon(of: seat.opponent)?.rawValue
      let winner = last.winner.map { $0 == seat ? "\"you\"" : "\"them\"" } ?? "null"
      line += "{\"you\":\(you.map { "\"\($0)\"" } ?? "null"),"
      line += "\"them\":\(them.map { "\"\($0)\"" } ?? "null"),\"winner\":\(winner)}"
    } else {
      line += "null"
    }
    line += "}\n"
    pending = (.now(), ruleset, answer)
    deadline = loop.assumeIsolated().scheduleTask(in: Self.timeout) { [weak self] in
      guard let self, self.pending != nil else { return }
      self.fail("exec:\(self.command) gave no pick within 10 s.")
    }
    if channel == nil { waitingLines.append(line) } else { write(line) }
  }

  private func write(_ line: String) {
    channel?.writeAndFlush(ByteBuffer(string: line), promise: nil)
  }

  /// A line the program wrote.
  fileprivate func received(_ line: String) {
    guard !closed else { return }
    guard let (asked, ruleset, answer) = pending else {
      fail("exec:\(command) wrote a line nobody asked for: \(line.prefix(80))")
      return
    }
    guard let weapon = Self.weapon(in: line), ruleset.weapons.contains(weapon) else {
      fail(
        "exec:\(command) answered \(line.prefix(80)), which is not "
          + ruleset.weapons.map(\.rawValue).joined(separator: ", ") + " (nor {\"weapon\":…}).")
      return
    }
    pending = nil
    deadline?.cancel()
    let micros = Double((NIODeadline.now() - asked).nanoseconds) / 1000
    if firstAnswerTime == nil { firstAnswerTime = micros } else { answerTimes.append(micros) }
    answer(weapon)
  }

  /// The weapon a line names: `paper`, or `{"weapon":"paper"}`.
  static func weapon(in line: String) -> Weapon? {
    let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
    if let plain = Weapon(rawValue: trimmed) { return plain }
    var bytes = Array(trimmed.utf8)
    return bytes.withUnsafeMutableBytes { buffer -> Weapon? in
      var reader = JSONReader(UnsafeRawBufferPointer(buffer))
      var found: Weapon?
      do {
        try reader.object { reader, key in
          if key == "weapon" {
            found = Weapon(rawValue: try reader.string())
          } else {
            try reader.skipValue()
          }
        }
      } catch { return nil }
      return found
    }
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
    channel?.close(promise: nil)
    if let process, process.isRunning { process.terminate() }
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
