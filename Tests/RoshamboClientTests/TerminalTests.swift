import NIOConcurrencyHelpers
import RoshamboClient
import Testing

@Suite("The terminal's frames")
struct TerminalTests {
  /// A terminal whose output is kept, as text.
  func recording() -> (Terminal, NIOLockedValueBox<String>) {
    let written = NIOLockedValueBox("")
    let terminal = Terminal { bytes in
      written.withLockedValue { $0 += String(decoding: bytes, as: UTF8.self) }
    }
    return (terminal, written)
  }

  @Test("a frame drawn after the terminal is put back is not written (it would stay in the shell)")
  func noFrameAfterRestore() {
    let (terminal, written) = recording()
    terminal.draw(["before the screen"])
    #expect(written.withLockedValue { $0 }.isEmpty)
    terminal.enterFullScreen()
    terminal.draw(["Choose your weapon"])
    #expect(written.withLockedValue { $0 }.contains("Choose your weapon"))
    terminal.restore()
    let restored = written.withLockedValue { $0 }
    #expect(restored.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"), "the main screen and the cursor back")
    // Ctrl-C puts the terminal back at once, and the screen then draws its last state.
    terminal.draw(["you left the game", "[r/p/s] or [1-3] choose · [q]uit"])
    #expect(written.withLockedValue { $0 } == restored)
  }
}
