#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a full-screen program does when it is stopped and continued (Ctrl-Z, then `fg`;
/// or SIGSTOP and SIGCONT from elsewhere), as a value: a signal in, the terminal's
/// actions out, carried out by ``TerminalSession``.
///
/// Stopped, the program gives the terminal back as it found it (cooked keys, the cursor
/// shown, the main screen) before it really stops, so the shell is usable. Continued, it
/// takes the terminal again and draws the whole screen, for the shell may have drawn over
/// it, put the keys back to cooked, or the window may have been resized meanwhile. A
/// continue that no stop of its own came before (a SIGSTOP, which cannot be caught) is
/// taken the same way: the shell had the terminal.
///
/// Invariant: the terminal is given back before every stop, and taken again (then the
/// screen drawn whole) after every continue; any other signal calls for nothing.
public struct TerminalSuspension: Equatable, Sendable {
  public enum Action: Equatable, Sendable {
    /// Cooked keys, the cursor shown, the main screen (the settings kept for later).
    case giveTerminalBack
    /// Stop the process as SIGTSTP's default action does (returns once continued).
    case stop
    /// Raw keys, the alternate screen, the cursor hidden, again.
    case takeTerminalAgain
    /// Draw the whole screen at the terminal's size now.
    case redraw
  }

  /// Whether the terminal was given back for a stop and not yet taken again.
  public private(set) var stopped = false

  public init() {}

  /// What `signal` calls for.
  public mutating func received(_ signal: Int32) -> [Action] {
    switch signal {
    case SIGTSTP:
      // Stopped again before a continue came through: the terminal is already given back.
      defer { stopped = true }
      return stopped ? [.stop] : [.giveTerminalBack, .stop]
    case SIGCONT:
      stopped = false
      return [.takeTerminalAgain, .redraw]
    default:
      return []
    }
  }
}
