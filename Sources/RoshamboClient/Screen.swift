import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The player's screen over a session: renders the props whenever they change (and only
/// then), turns keys into actions, and restores the terminal on every way out. When
/// standard output is not a terminal it prints one plain line per change instead.
///
/// Invariant: the terminal is restored before `play` returns, whatever ended it.
@MainActor
public final class Screen {
  private let session: ClientSession
  private let terminal = TerminalSession()
  private var subscription: Subscription?
  private var ticker: Task<Void, Never>?
  private var lastProps: ScreenProps?
  private var color = false

  public init(session: ClientSession) {
    self.session = session
  }

  /// How a session on the screen ended (the executable turns it into an exit status).
  public enum Ending: Equatable, Sendable {
    /// The match or the watching ended, or the player quit.
    case finished
    /// The server refused, or the connection was lost (said on standard error).
    case failed
    /// The server broke the protocol or was caught cheating (said on standard error).
    case serverMisbehaved
    /// A signal ended the program: its number.
    case signalled(Int32)
  }

  /// Joins (taking back the seat `resume` holds, if given) and plays until the connection
  /// ends or the player quits.
  public func play(
    name: String, room: String?, role: ClientMessage.Role, fair: Bool = false,
    resume: String? = nil
  ) async -> Ending {
    await run { session.join(name: name, room: room, role: role, resume: resume, fair: fair) }
  }

  /// Plays on a session already seated (``ClientSession/init(seatedFrom:)``: an accepted
  /// challenge) until the connection ends or the player quits.
  public func playSeated() async -> Ending {
    await run {}
  }

  private func run(start: () -> Void) async -> Ending {
    if returnsToLobby {
      session.matchReady = { [weak self] in
        // A spectator, or a player looking at a finished match: the lobby seats them.
        guard let self,
          self.session.store.state.seat == nil || self.session.store.state.view?.phase == .over
        else { return }
        self.quit()
      }
    }
    let interactive = Terminal.isInteractive
    color = interactive && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    if interactive {
      // Keys arrive on a thread of their own (``KeyInput``) and are handled on the main
      // actor until the session ends.
      terminal.begin(
        onKey: { [weak self] key in self?.handle(key) },
        onSignal: { [weak self] number in self?.received(signal: number) })
    }
    subscription = session.store.subscribe(select: \.props) { [weak self] props in
      self?.show(props, interactive: interactive)
    }
    ticker = Task { @MainActor [weak self] in
      while !Task.isCancelled {
        self?.session.store.dispatch(.tick(now: Int64(Date().timeIntervalSince1970 * 1000)))
        try? await Task.sleep(for: .milliseconds(500))
      }
    }
    start()
    let (error, fatal) = await session.run()
    ticker?.cancel()
    terminal.end()
    subscription = nil
    if let props = lastProps, interactive, !returnsToLobby {
      // Leave a finished match's result on the main screen, wrapped between words; never
      // keys or a match's state that mean nothing once the screen is gone.
      let renderer = ScreenRenderer(width: Terminal.size.columns, color: false)
      for line in props.lastWords {
        for part in renderer.wrap(line) { print(part) }
      }
    }
    if let signalled { return .signalled(signalled) }
    if let violation = error as? ProtocolViolation {
      Self.complain(violation.description)
      return .serverMisbehaved
    }
    if let cheated = error as? ServerCheated {
      Self.complain(cheated.message)
      return .serverMisbehaved
    }
    if let fatal {
      Self.complain(fatal.message)
      return .failed
    }
    if let error, !quitting {
      Self.complain(ConnectionFailure.ended(error))
      return .failed
    }
    return .finished
  }

  /// Whether the lobby comes back after this screen. Then a finished match's result does
  /// not stay on the terminal (it is in the lobby's recent matches, and words left under
  /// the lobby's screen pile up all evening, to show when it goes), and a spectator called
  /// to their own tournament match goes back to the lobby, which seats them.
  public var returnsToLobby = false

  private var quitting = false
  /// The signal that ends the program, if one did.
  private var signalled: Int32?
  /// The question before a running match is given up.
  private var question = GiveUpQuestion()

  /// Passes `asking` (nil: any other key) to the question and says what it asks or
  /// clears it; returns what to do.
  private func answer(_ asking: GiveUpQuestion.Asking?) -> GiveUpQuestion.Outcome {
    let outcome = question.pressed(
      asking, inRunningMatch: session.store.state.isInRunningMatch)
    switch outcome {
    case .ask:
      let opponent = session.store.state.view?.opponent?.name ?? "your opponent"
      session.store.dispatch(.notice(question.notice(opponent: opponent)))
    case .playOn:
      session.store.dispatch(.notice(GiveUpQuestion.playingOn))
    case .quit, .command:
      break
    }
    return outcome
  }

  private func quit(signal: Int32? = nil) {
    signalled = signal
    quitting = true
    session.store.dispatch(.quit)
    Task { await session.connection?.close() }
  }

  /// One line on standard error; nothing from the network reaches the terminal raw.
  static func complain(_ line: String) {
    let paragraph = Paragraph.forStandardError("roshambo: \(TerminalText.sanitized(line))")
    FileHandle.standardError.write(Data((paragraph + "\n").utf8))
  }

  private func show(_ props: ScreenProps, interactive: Bool) {
    defer { lastProps = props }
    if interactive {
      draw(props)
    } else if props.status != lastProps?.status || props.reveal != lastProps?.reveal
      || props.notice != lastProps?.notice
    {
      // One plain line per change, for pipes and scripts.
      let parts = [props.reveal, props.banner, props.status, props.notice.map { "! " + $0 }]
      print(parts.compactMap { $0 }.joined(separator: " | "))
      fflush(nil)
    }
  }

  /// Draws `props` at the terminal's current width.
  private func draw(_ props: ScreenProps) {
    let size = Terminal.size
    terminal.draw(
      ScreenRenderer(width: size.columns, height: size.rows, color: color).lines(for: props))
  }

  private func handle(_ byte: UInt8) {
    let state = session.store.state
    let ruleset = state.view.map { Ruleset.named($0.ruleset) } ?? .classic
    let command = KeyBindings.matchCommand(for: byte, ruleset: ruleset)
    switch answer(command == .quit ? .quitKey : nil) {
    case .quit: return quit()
    case .ask, .playOn: return
    case .command: break
    }
    switch command {
    case .rematch?:
      session.store.dispatch(.rematch)
    case .pick(let weapon)?:
      pick(weapon)
    case .quit?, nil:
      // (q was answered by the question above.)
      break
    }
  }

  private func pick(_ weapon: Weapon) {
    if session.store.state.canPick(weapon) {
      session.store.dispatch(.choose(weapon))
    }
  }

  /// Ctrl-C in a running match asks first, then gives the match up; SIGTERM and SIGHUP
  /// (the terminal closed) drop the connection without giving the seat up, so the player
  /// can come back within the grace period. Either way the terminal is put back and the
  /// program exits with 128 + the signal's number (130 for Ctrl-C). A resize redraws.
  private func received(signal number: Int32) {
    switch number {
    case SIGWINCH:
      if let props = lastProps { draw(props) }
    case SIGINT:
      guard answer(.interrupt) == .quit else { return }
      terminal.terminal.restore()
      quit(signal: SIGINT)
    default:
      terminal.terminal.restore()
      signalled = number
      quitting = true
      session.hangUp()
    }
  }

}
