import Dispatch
import Foundation
import NIOConcurrencyHelpers
import RoshamboGame

#if canImport(Glibc)
  import Glibc
#endif

/// A bot program run for `roshambo bot --exec COMMAND` (or any command that plays through
/// ``Bot``): the process (`/bin/sh -c COMMAND`, in a process group of its own, its
/// standard error passed through), its lines read and written, the clock for its picks.
/// What to write, pick, give up and say is decided by ``BotProgramSession``; this shell
/// only carries it out. One program plays every match of a run.
///
/// Another command uses it as `roshambo bot` does: `BotProgram(command:name:limits:say:)`,
/// ``start()``, then ``Bot`` with `.program(program)` for each session (or ``handle(_:)``
/// with the match's events, and ``picked`` and ``gaveUp`` for what comes back), and
/// ``finish(patience:)`` at the end.
///
/// Invariant: the program's output is read within ``BotProgramSession/Limits/output``
/// bytes between two `pick` lines (past that it is stopped), and its input is written on
/// a thread of its own, so a program that neither reads nor writes never holds up the
/// main actor.
@MainActor
public final class BotProgram {
  /// The command line, as given (run by `/bin/sh -c`).
  public let command: String
  /// How the bot is called in what is said about it.
  public let name: String
  public private(set) var session: BotProgramSession
  /// Told each pick the program made: the weapon and its round.
  public var picked: ((Weapon, Int) -> Void)?
  /// Told when a match is to be given up (what was wrong has been said).
  public var gaveUp: (() -> Void)?
  private let say: (String) -> Void
  private var process: pid_t = 0
  private var input: Int32 = -1
  private let output: NIOLockedValueBox<BotProgramOutput>
  private let writer = DispatchQueue(label: "roshambo.bot-program.input")
  private var timer: Task<Void, Never>?
  private var timerDeadline: ContinuousClock.Instant?
  private var events: Task<Void, Never>?
  /// Set once the process has been waited for.
  private let ended = AsyncStream<Void>.makeStream()
  private var hasEnded = false
  /// Those waiting in ``exited()``.
  private var exitWaiters: [CheckedContinuation<Void, Never>] = []

  /// A program not started yet: `say` is given each sentence about it, already prefixed
  /// with the bot's name and command.
  public init(
    command: String, name: String, limits: BotProgramSession.Limits = .init(),
    say: @escaping (String) -> Void
  ) {
    self.command = command
    self.name = name
    self.session = BotProgramSession(limits: limits)
    self.output = NIOLockedValueBox(BotProgramOutput(allowance: limits.output))
    self.say = say
  }

  /// Starts the program (``ProgramProcess``).
  public func start() throws {
    let started = try ProgramProcess.spawn(command)
    process = started.pid
    input = started.input
    let stream = AsyncStream<ProgramEvent>.makeStream()
    let read = DispatchSemaphore(value: 0)
    Self.readLines(from: started.output, into: output, events: stream.continuation, done: read)
    Self.wait(for: started.pid, afterReading: read, events: stream.continuation)
    events = Task { @MainActor [weak self] in
      for await event in stream.stream {
        guard let self else { return }
        switch event {
        case .line(let line): self.handle(.lineRead(line, at: .now))
        case .flooded: self.handle(.flooded)
        case .exited(let exit):
          self.hasEnded = true
          self.handle(.exited(exit))
          self.closeInput()
          self.ended.continuation.finish()
          for waiter in self.exitWaiters { waiter.resume() }
          self.exitWaiters = []
        }
      }
    }
  }

  /// Hands `event` to the machine and carries out what it calls for.
  public func handle(_ event: BotProgramSession.Event) {
    for action in session.handle(event) {
      switch action {
      case .write(let line):
        if case .pick = line { output.withLockedValue { $0.renew() } }
        send(Array((line.text + "\n").utf8))
      case .choose(let weapon, let round):
        picked?(weapon, round)
      case .giveUp:
        gaveUp?()
      case .say(let sentence):
        say("bot \(name) (\(command)) \(sentence)")
      case .stop:
        stop()
      case .closeInput:
        closeInput()
      }
    }
    schedule()
  }

  /// Returns once the program has exited (at once if it has, or never started).
  public func exited() async {
    guard process > 0, !hasEnded else { return }
    await withCheckedContinuation { exitWaiters.append($0) }
  }

  /// Says `bye`, closes the program's input and waits up to `patience` for it to exit;
  /// then stops it.
  public func finish(patience: Duration = .seconds(2)) async {
    handle(.finished)
    guard process > 0, !hasEnded else { return }
    let ended = self.ended.stream
    let waited = Task {
      for await _ in ended {}
    }
    let late = Task {
      try? await Task.sleep(for: patience)
      waited.cancel()
    }
    await waited.value
    late.cancel()
    if !hasEnded { stop() }
  }

  /// Stops the program and everything it started (its process group), at once.
  public func stop() {
    guard process > 0, !hasEnded else { return }
    kill(-process, SIGKILL)
    kill(process, SIGKILL)
  }

  private func closeInput() {
    let fd = input
    input = -1
    if fd >= 0 { writer.async { close(fd) } }
  }

  private func send(_ bytes: [UInt8]) {
    let fd = input
    guard fd >= 0 else { return }
    writer.async {
      var sent = 0
      while sent < bytes.count {
        let count = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        // A program that closed its input (or exited) misses the line; its exit says why.
        guard count > 0 else { return }
        sent += count
      }
    }
  }

  /// Asks the clock for the machine's deadline, if it has one.
  private func schedule() {
    guard session.deadline != timerDeadline else { return }
    timer?.cancel()
    timerDeadline = session.deadline
    guard let deadline = timerDeadline else { return }
    timer = Task { @MainActor [weak self] in
      try? await Task.sleep(until: deadline, clock: .continuous)
      guard !Task.isCancelled, let self else { return }
      self.timerDeadline = nil
      self.handle(.clock(.now))
    }
  }

  enum ProgramEvent: Sendable {
    case line(String)
    case flooded
    case exited(BotProgramSession.Exit)
  }

  /// Reads the program's output on a thread of its own until it ends or floods.
  private nonisolated static func readLines(
    from fd: Int32, into output: NIOLockedValueBox<BotProgramOutput>,
    events: AsyncStream<ProgramEvent>.Continuation, done: DispatchSemaphore
  ) {
    let thread = Thread {
      defer {
        close(fd)
        done.signal()
      }
      var buffer = [UInt8](repeating: 0, count: 16 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return }
        let (lines, flooded) = output.withLockedValue { $0.take(buffer[..<count]) }
        for line in lines { events.yield(.line(line)) }
        if flooded {
          events.yield(.flooded)
          return
        }
      }
    }
    thread.name = "roshambo bot program output"
    thread.start()
  }

  /// Waits for the program's exit on a thread of its own, then (once its output is read
  /// to the end, or 200 ms later if something it started still holds it) says so.
  private nonisolated static func wait(
    for pid: pid_t, afterReading read: DispatchSemaphore,
    events: AsyncStream<ProgramEvent>.Continuation
  ) {
    let thread = Thread {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0, errno == EINTR {}
      _ = read.wait(timeout: .now() + .milliseconds(200))
      let exit: BotProgramSession.Exit =
        status & 0x7F == 0 ? .status((status >> 8) & 0xFF) : .signal(status & 0x7F)
      events.yield(.exited(exit))
      events.finish()
    }
    thread.name = "roshambo bot program exit"
    thread.start()
  }
}
