import Foundation
import RoshamboGame
import RoshamboProtocol

/// The shell of a ``PlayerCore``: it owns the connection (a ``ServerConnection``, made by
/// `connect`), one table of timers keyed by ``PlayerTimer``, and the files the core asks
/// for; it turns what happens into ``PlayerInput`` values and carries out every
/// ``PlayerOutput`` in order. It decides nothing about the session or the match.
///
/// Invariants: the core is handled on the main actor by a ``PlayerRunner`` (this driver
/// is its world), one input at a time; the events of a connection the core closed, or one
/// replaced, never reach it.
@MainActor
public final class PlayerDriver: @MainActor PlayerWorld {
  /// The core and everything it holds; read it freely.
  public var core: PlayerCore { runner.core }
  private var runner: PlayerRunner<PlayerDriver>
  private let connect: @Sendable () async throws -> ServerConnection
  /// A connection made before the driver, used for the first `connect`.
  private var initial: ServerConnection?
  /// The connection the core has now, if any.
  public private(set) var connection: ServerConnection?
  /// Counts connections made and dropped: a connection's events are the core's only while
  /// its number is the current one.
  private var generation = 0
  private var pending: Task<Void, Never>?
  private var timers: [PlayerTimer: Task<Void, Never>] = [:]
  private var waiting: [CheckedContinuation<PlayerEnd, Never>] = []
  /// Those waiting until a lobby follower is seated, or the session ends (nil).
  private var waitingForSeat: [CheckedContinuation<PlayerEnd?, Never>] = []
  /// Closes under way, which the end waits for.
  private var closing: [Task<Void, Never>] = []

  /// Told when the match changed (``PlayerOutput/show``).
  public var changed: (@MainActor (PlayerState) -> Void)?
  /// Told a line for the player outside the screen.
  public var said: (@MainActor (String) -> Void)?
  /// Told when the server calls this spectator to their own tournament match.
  public var matchReady: (@MainActor () -> Void)?
  /// Told what a lobby follower hears (``PlayerOutput/lobby(_:)``).
  public var lobbyNews: (@MainActor (LobbyNews) -> Void)?
  /// Where the seat is kept while a match runs; nil: nowhere.
  public var seats: SeatMemory?
  /// Where this player's own record of each match it sees end is saved; nil: nowhere.
  public var recordDirectory: String?
  /// Where evidence of a cheating server is written.
  public var evidenceDirectory: @Sendable () -> String = { EvidenceFile.defaultDirectory() }

  /// A driver whose connections `connect` makes; `connection`, when given, is the first.
  public init(
    configuration: PlayerConfiguration, connection: ServerConnection? = nil,
    connect: @escaping @Sendable () async throws -> ServerConnection
  ) {
    self.runner = PlayerRunner(PlayerCore(configuration: configuration))
    self.initial = connection
    self.connect = connect
  }

  /// Starts the session and returns once it has ended, with why.
  public func run() async -> PlayerEnd {
    handle(.start)
    return await ended()
  }

  /// Starts a lobby follower's session and returns once the server seated it (nil: the
  /// session runs on, in its match; ``ended()`` waits for its end) or the session ended,
  /// with why.
  /// `afterLoss`: the last session's connection was lost, so the first connection is
  /// tried under the reconnect policy (``PlayerInput/startAfterLoss``).
  public func follow(afterLoss: Bool = false) async -> PlayerEnd? {
    handle(afterLoss ? .startAfterLoss : .start)
    if let end = core.state.end { return end }
    if case .seated = core.state.phase { return nil }
    return await withCheckedContinuation { waitingForSeat.append($0) }
  }

  /// Waits for the end of a session already started, and returns why it ended.
  public func ended() async -> PlayerEnd {
    if let end = core.state.end { return end }
    return await withCheckedContinuation { waiting.append($0) }
  }

  /// The player (or the bot) asks for something.
  public func command(_ command: PlayerCommand) {
    handle(.command(command))
  }

  /// The screen's clock moved on (its countdown).
  public func tick() {
    handle(.tick)
  }

  /// A line for the player on the screen, or nil to clear it.
  public func notice(_ text: String?) {
    handle(.notice(text))
  }

  /// Milliseconds since 1970 on a clock that only rises: the wall clock read once, moved
  /// on by the monotonic clock.
  static func now() -> Int64 {
    clockStart.wall + (ContinuousClock.now - clockStart.instant).milliseconds
  }
  private static let clockStart = (
    wall: Int64(Date().timeIntervalSince1970 * 1_000), instant: ContinuousClock.now
  )

  private func handle(_ input: PlayerInput) {
    runner.handle(input, in: self)
  }

  /// The core's clock (``now()``).
  package var now: Int64 { Self.now() }

  package func perform(_ output: PlayerOutput, state: PlayerState) {
    switch output {
    case .connect:
      if let initial {
        self.initial = nil
        attach(initial)
        handle(.connected)
        return
      }
      let connect = self.connect
      pending = Task { [weak self] in
        do {
          let connection = try await connect()
          guard let self, !Task.isCancelled else {
            await connection.close()
            return
          }
          self.attach(connection)
          self.handle(.connected)
        } catch {
          self?.handle(.connectFailed(ConnectionFailure.ended(error)))
        }
      }
    case .send(let message):
      connection?.send(message)
    case .close:
      detach()
    case .schedule(let timer, let at):
      timers[timer]?.cancel()
      let delay = Duration.milliseconds(max(0, at - Self.now()))
      timers[timer] = Task { [weak self] in
        try? await Task.sleep(for: delay)
        guard !Task.isCancelled, let self else { return }
        self.timers[timer] = nil
        self.handle(.timerFired(timer))
      }
    case .cancel(let timer):
      timers.removeValue(forKey: timer)?.cancel()
    case .makeNonce(let weapon):
      // 32 bytes from RAND_bytes, outside the core.
      handle(.nonce(Commitment.hex(Commitment.makeNonce()), for: weapon))
    case .drawNonce:
      // The next commitment's nonce, drawn while the player waits.
      handle(.nonceDrawn(Commitment.hex(Commitment.makeNonce())))
    case .keepSeat(let room, let token):
      seats?.keep(room: room, token: token)
    case .forgetSeat:
      seats?.forget()
    case .keepEvidence(let evidence):
      let path: String
      do {
        path = try EvidenceFile.write(evidence, in: evidenceDirectory())
      } catch {
        path = "(not saved: \(error.localizedDescription))"
      }
      handle(.evidenceSaved(path: path))
    case .saveRecord(let record):
      guard let recordDirectory else { return }
      do {
        let path = try RecordFile.write(record, in: recordDirectory)
        handle(.notice("Your record of this match is in \(path)."))
      } catch {
        handle(.notice("Could not save your record of this match: \(error.localizedDescription)"))
      }
    case .matchReady:
      matchReady?()
    case .say(let line):
      said?(line)
    case .lobby(let news):
      lobbyNews?(news)
      if case .seated = news {
        let waiting = waitingForSeat
        waitingForSeat = []
        for continuation in waiting { continuation.resume(returning: nil) }
      }
    case .show:
      changed?(state)
    case .ended(let end):
      generation += 1
      let open = [connection, initial].compactMap { $0 }
      connection = nil
      initial = nil
      pending?.cancel()
      for timer in timers.values { timer.cancel() }
      timers = [:]
      let waiting = self.waiting
      self.waiting = []
      let waitingForSeat = self.waitingForSeat
      self.waitingForSeat = []
      let closing = self.closing + open.map { connection in Task { await connection.close() } }
      self.closing = []
      // The run ends once what was sent (a `leave`) has gone and every connection is
      // closed: a program that exits after it loses nothing it sent.
      Task {
        for close in closing { await close.value }
        for continuation in waiting { continuation.resume(returning: end) }
        for continuation in waitingForSeat { continuation.resume(returning: end) }
      }
    }
  }

  /// `connection` is the core's now: its events go to the core until it is dropped.
  private func attach(_ connection: ServerConnection) {
    generation += 1
    let mine = generation
    self.connection = connection
    Task { [weak self] in
      for await event in connection.events {
        guard let self, self.generation == mine else { return }
        switch event {
        case .message(let message):
          self.handle(.message(message))
        case .closed(let error):
          self.generation += 1
          self.connection = nil
          if let violation = error as? ProtocolViolation {
            self.handle(.brokeProtocol(violation.message))
          } else {
            self.handle(.closed(error.map(ConnectionFailure.ended)))
          }
          return
        }
      }
      guard let self, self.generation == mine else { return }
      self.generation += 1
      self.connection = nil
      self.handle(.closed(nil))
    }
  }

  /// The connection is no longer the core's: closed, its events ignored.
  private func detach() {
    generation += 1
    guard let connection else { return }
    self.connection = nil
    closing.append(Task { await connection.close() })
  }

  /// Closes the connection as a network drop would: the core hears it as lost.
  func cutConnection() async {
    await connection?.close()
  }
}
