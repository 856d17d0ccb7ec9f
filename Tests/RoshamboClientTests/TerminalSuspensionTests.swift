import Glibc
import NIOConcurrencyHelpers
import RoshamboClient
import Testing

/// Stopping and continuing a full screen: the decisions alone, then carried out by a
/// terminal session with a recording terminal and a test's signals.
@MainActor
@Suite("Terminal: stopped and continued")
struct TerminalSuspensionTests {
  @Test("Ctrl-Z gives the terminal back, then stops; fg takes it again and redraws")
  func decisions() {
    var suspension = TerminalSuspension()
    #expect(suspension.received(SIGTSTP) == [.giveTerminalBack, .stop])
    #expect(suspension.stopped)
    #expect(suspension.received(SIGCONT) == [.takeTerminalAgain, .redraw])
    #expect(!suspension.stopped)
    // A second Ctrl-Z before the continue came through: the terminal is already back.
    _ = suspension.received(SIGTSTP)
    #expect(suspension.received(SIGTSTP) == [.stop])
    // Continued after a SIGSTOP it never saw: the shell had the terminal all the same.
    var unseen = TerminalSuspension()
    #expect(unseen.received(SIGCONT) == [.takeTerminalAgain, .redraw])
    for other in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
      #expect(unseen.received(other) == [])
    }
  }

  @Test("a session stopped and continued: the terminal back before the stop, then the screen whole")
  func session() {
    let written = NIOLockedValueBox("")
    let terminal = Terminal { bytes in
      written.withLockedValue { $0 += String(decoding: bytes, as: UTF8.self) }
    }
    var suspension: ((Int32) -> Void)?
    var events: [String] = []
    let inputs = TerminalSession.Inputs(
      takeKeys: { _ in }, releaseKeys: {}, routeSignals: { _ in {} },
      routeSuspension: { handle in
        suspension = handle
        return { suspension = nil }
      },
      stop: {
        // What the terminal was told last before the stop.
        events.append(String(written.withLockedValue { $0 }.suffix(16)))
      })
    let session = TerminalSession(terminal: terminal, inputs: inputs)
    var drawn = 0
    session.begin(onKey: { _ in }) { number in
      guard number == SIGWINCH else { return }
      drawn += 1
      session.draw(["the lobby, whole"])
    }
    session.draw(["the lobby"])
    written.withLockedValue { $0 = "" }
    suspension?(SIGTSTP)
    // The cursor shown and the main screen before the stop; nothing drawn while stopped.
    #expect(events == ["\u{1B}[?25h\u{1B}[?1049l"])
    session.draw(["drawn while stopped"])
    #expect(written.withLockedValue { $0 } == "\u{1B}[?25h\u{1B}[?1049l")
    suspension?(SIGCONT)
    let after = written.withLockedValue { $0 }
    #expect(after.hasPrefix("\u{1B}[?25h\u{1B}[?1049l\u{1B}[?1049h\u{1B}[?25l"))
    #expect(after.contains("the lobby, whole"))
    #expect(drawn == 1)
    session.end()
    #expect(suspension == nil, "the route is given back at the end")
    #expect(written.withLockedValue { $0 }.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
  }
}
