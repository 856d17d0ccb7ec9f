/// One screen's hold on the terminal, for as long as it shows (the match, the lobby, a
/// replay): raw keys, the alternate screen and the cursor hidden, the crash handler that
/// puts them back, the keys handed to the screen and the signals routed to it; and, on
/// ``end()``, all of it given back in the reverse order.
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

    public init(
      takeKeys: @escaping @MainActor (@escaping (UInt8) -> Void) -> Void,
      releaseKeys: @escaping @MainActor () -> Void,
      routeSignals: @escaping @MainActor (@escaping (Int32) -> Void) -> () -> Void
    ) {
      self.takeKeys = takeKeys
      self.releaseKeys = releaseKeys
      self.routeSignals = routeSignals
    }

    /// The process's one key reader and its signals.
    public static var process: Inputs {
      Inputs(
        takeKeys: { KeyInput.take($0) }, releaseKeys: { KeyInput.release() },
        routeSignals: { handle in
          let route = ProcessSignals.shared.route(handle)
          return { ProcessSignals.shared.release(route) }
        })
    }
  }

  public let terminal: Terminal
  private let inputs: Inputs
  private var releaseSignals: (() -> Void)?
  private var holdsKeys = false

  public init(terminal: Terminal = Terminal(), inputs: Inputs = .process) {
    self.terminal = terminal
    self.inputs = inputs
  }

  /// Takes the terminal: the full screen (restored on a crash too), then `onSignal` for
  /// SIGINT, SIGTERM, SIGHUP and SIGWINCH, then `onKey` for each key.
  public func begin(onKey: @escaping (UInt8) -> Void, onSignal: @escaping (Int32) -> Void) {
    terminal.enterFullScreen()
    Terminal.restoreOnCrash()
    releaseSignals = inputs.routeSignals(onSignal)
    inputs.takeKeys(onKey)
    holdsKeys = true
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
    terminal.restore()
  }
}
