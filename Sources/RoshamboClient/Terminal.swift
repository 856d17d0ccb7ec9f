import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal as a full-screen program uses it: raw keys, the alternate screen,
/// drawing whole frames, and putting everything back.
///
/// Invariant: `restore()` (called on every exit path) leaves the terminal as it was, and
/// no frame is drawn after it: a frame belongs to the alternate screen, and drawn on the
/// main one it would stay in the shell as stale text.
public final class Terminal: @unchecked Sendable {
  // `@unchecked Sendable`: `saved` is written once in `enterFullScreen` before any other
  // thread can call `restore`, and `restore` is idempotent: `hold` is behind its lock.
  private var saved = termios()
  private let hold = NIOLockedValueBox(Hold.none)
  private let output: @Sendable ([UInt8]) -> Void

  /// Whether this program holds the terminal: not yet (or no longer), full screen, or
  /// given back while the program is stopped, to be taken again.
  private enum Hold {
    case none
    case fullScreen
    case suspended
  }

  /// `output` takes what would be written to standard output (tests read it).
  public init(output: @escaping @Sendable ([UInt8]) -> Void = Terminal.standardOutput) {
    self.output = output
  }

  /// Whether standard output is a terminal.
  public static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1 }

  /// Columns and rows, or 80×24 when unknown.
  public static var size: (columns: Int, rows: Int) {
    var size = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
      return (80, 24)
    }
    return (Int(size.ws_col), Int(size.ws_row))
  }

  /// Raw keys (no echo, no line buffering), the alternate screen, the cursor hidden.
  public func enterFullScreen() {
    tcgetattr(STDIN_FILENO, &saved)
    takeAgain()
  }

  /// Raw keys from the settings kept, the alternate screen, the cursor hidden.
  private func takeAgain() {
    crashRestoreTermios = saved
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
    raw.c_cc.6 = 1  // VMIN
    raw.c_cc.5 = 0  // VTIME
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
    write("\u{1B}[?1049h\u{1B}[?25l")
    hold.withLockedValue { $0 = .fullScreen }
  }

  /// Puts the terminal back: cooked keys, the main screen, the cursor shown.
  public func restore() {
    let was = hold.withLockedValue { hold in
      defer { hold = .none }
      return hold
    }
    guard was == .fullScreen else { return }
    giveBack()
  }

  /// Puts the terminal back for a stop (as ``restore()`` does), keeping it to be taken
  /// again by ``resume()``; nothing is drawn meanwhile.
  public func suspend() {
    let was = hold.withLockedValue { hold in
      defer { if hold == .fullScreen { hold = .suspended } }
      return hold
    }
    guard was == .fullScreen else { return }
    giveBack()
  }

  /// Takes the terminal again after a stop: raw keys (from the settings kept when it was
  /// first taken, whatever the shell left), the alternate screen, the cursor hidden. Also
  /// after a stop it did not see (SIGSTOP): then it was never given back, and is taken
  /// anew all the same. Nothing before ``enterFullScreen()`` or after ``restore()``.
  public func resume() {
    guard hold.withLockedValue({ $0 }) != .none else { return }
    takeAgain()
  }

  private func giveBack() {
    write("\u{1B}[?25h\u{1B}[?1049l")
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    crashRestoreTermios = nil
  }

  /// On a crash (SIGABRT, SIGILL, SIGSEGV, SIGBUS, SIGTRAP, SIGFPE) the terminal is put
  /// back before the process dies with the same signal, so a bug never leaves a shell in
  /// raw mode on the alternate screen. The handler calls only async-signal-safe
  /// functions (write, tcsetattr, signal, raise).
  public static func restoreOnCrash() {
    for number in [SIGABRT, SIGILL, SIGSEGV, SIGBUS, SIGTRAP, SIGFPE] {
      signal(number, crashHandler)
    }
  }

  /// Draws a whole frame: home, each line cleared to its end, the rest cleared. No line
  /// break follows the last line, so a frame as tall as the terminal does not scroll it.
  /// Draws a whole frame; nothing once the terminal is put back (or before it is taken).
  public func draw(_ lines: [String]) {
    guard hold.withLockedValue({ $0 }) == .fullScreen else { return }
    let frame = "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    write(frame)
  }

  public func write(_ text: String) {
    output(Array(text.utf8))
  }

  /// Writes `bytes` to standard output, all of them unless it fails.
  public static let standardOutput: @Sendable ([UInt8]) -> Void = { bytes in
    bytes.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        let n = Glibc.write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
        if n <= 0 { return }
        offset += n
      }
    }
  }

  /// Blocks until a key is pressed; nil at end of input. A read interrupted by a signal
  /// (a stop and a continue) reads again.
  public static func readKey() -> UInt8? {
    var byte: UInt8 = 0
    while true {
      let count = read(STDIN_FILENO, &byte, 1)
      if count == 1 { return byte }
      if count < 0, errno == EINTR { continue }
      return nil
    }
  }
}

/// The terminal's settings to put back if the process crashes while it is raw (read by
/// the signal handler, which may run on any thread at any moment: written only while no
/// crash is in progress).
nonisolated(unsafe) private var crashRestoreTermios: termios?

private let crashHandler: @convention(c) (Int32) -> Void = { number in
  if var saved = crashRestoreTermios {
    let reset: StaticString = "\u{1B}[?25h\u{1B}[?1049l"
    _ = reset.withUTF8Buffer { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
  }
  signal(number, SIG_DFL)
  raise(number)
}
