#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One screen's hold on the terminal, for as long as it shows (the match, the lobby, a
/// replay): raw keys, the alternate screen and the cursor hidden, the crash handler that
/// puts them back, the keys handed to the screen and the signals routed to it; and, on
/// ``end()``, all of it given back in the reverse order. Stopped (Ctrl-Z) it gives the
/// terminal back before the process stops, and continued (`fg`) takes it again and has the
/// screen drawn whole, as after a resize (``TerminalSuspension``).
///
/// Invariant: after ``end()`` this screen hears no key and no signal, the terminal is as
/// it was, and nothing more is drawn; ending twice does nothing more.
@MainActor
public final class TerminalSession {
  /// Where keys and signals come from: the process's (``KeyInput``, ``ProcessSignals``),
  /// or a test's.
  public struct Inputs {
    /// Hands every key to the given function, until `releaseKeys`.
    public var takeKeys: @MainActor (@escaping (UInt8) -> Void) -> Void
    public var releaseKeys: @MainActor () -> Void
    /// Routes every watched signal to the given function; returns what releases it.
    public var routeSignals: @MainActor (@escaping (Int32) -> Void) -> () -> Void
    /// Routes SIGTSTP and SIGCONT to the given function; returns what releases it.
    public var routeSuspension: @MainActor (@escaping (Int32) -> Void) -> () -> Void
    /// Stops the process until it is continued.
    public var stop: @MainActor () -> Void

    public init(
      takeKeys: @escaping @MainActor (@escaping (UInt8) -> Void) -> Void,
      releaseKeys: @escaping @MainActor () -> Void,
      routeSignals: @escaping @MainActor (@escaping (Int32) -> Void) -> () -> Void,
      routeSuspension: @escaping @MainActor (@escaping (Int32) -> Void) -> () -> Void = { _ in
        {}
      },
      stop: @escaping @MainActor () -> Void = {}
    ) {
      self.takeKeys = takeKeys
      self.releaseKeys = releaseKeys
      self.routeSignals = routeSignals
      self.routeSuspension = routeSuspension
      self.stop = stop
    }

    /// The process's one key reader and its signals.
    public static var process: Inputs {
      Inputs(
        takeKeys: { KeyInput.take($0) }, releaseKeys: { KeyInput.release() },
        routeSignals: { handle in
          let route = ProcessSignals.shared.route(handle)
          return { ProcessSignals.shared.release(route) }
        },
        routeSuspension: { handle in
          let route = ProcessSignals.shared.routeSuspension(handle)
          return { ProcessSignals.shared.release(route) }
        },
        stop: { ProcessSignals.stopAsByDefault() })
    }
  }

  public let terminal: Terminal
  private let inputs: Inputs
  private var releaseSignals: (() -> Void)?
  private var releaseSuspension: (() -> Void)?
  private var holdsKeys = false
  private var suspension = TerminalSuspension()
  /// The screen's signal handler, told SIGWINCH to draw the whole screen after a continue.
  private var onSignal: ((Int32) -> Void)?

  public init(terminal: Terminal = Terminal(), inputs: Inputs = .process) {
    self.terminal = terminal
    self.inputs = inputs
  }

  /// Takes the terminal: the full screen (restored on a crash too), then `onSignal` for
  /// SIGINT, SIGTERM, SIGHUP and SIGWINCH, then `onKey` for each key.
  public func begin(onKey: @escaping (UInt8) -> Void, onSignal: @escaping (Int32) -> Void) {
    terminal.enterFullScreen()
    Terminal.restoreOnCrash()
    self.onSignal = onSignal
    releaseSignals = inputs.routeSignals(onSignal)
    releaseSuspension = inputs.routeSuspension { [weak self] number in
      self?.suspensionSignal(number)
    }
    inputs.takeKeys(onKey)
    holdsKeys = true
  }

  /// Carries out what stopping or continuing calls for.
  private func suspensionSignal(_ number: Int32) {
    for action in suspension.received(number) {
      switch action {
      case .giveTerminalBack: terminal.suspend()
      case .stop: inputs.stop()
      case .takeTerminalAgain: terminal.resume()
      // The screens draw themselves whole, at the size now, on SIGWINCH.
      case .redraw: onSignal?(SIGWINCH)
      }
    }
  }

  /// Draws a whole frame (nothing once ended).
  public func draw(_ lines: [String]) {
    terminal.draw(lines)
  }

  /// Gives the keys and the signals back and puts the terminal back.
  public func end() {
    if holdsKeys {
      holdsKeys = false
      inputs.releaseKeys()
    }
    releaseSignals?()
    releaseSignals = nil
    releaseSuspension?()
    releaseSuspension = nil
    onSignal = nil
    terminal.restore()
  }
}
