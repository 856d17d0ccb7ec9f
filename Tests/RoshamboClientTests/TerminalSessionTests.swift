import NIOConcurrencyHelpers
import RoshamboClient
import Testing

/// One screen's hold on the terminal, with a recording terminal and a test's keys and
/// signals (no key reader, no signal handler installed).
@MainActor
@Suite("The terminal session")
struct TerminalSessionTests {
  /// What was written, and the calls on the keys and signals, in order.
  final class Record {
    var calls: [String] = []
    var onKey: ((UInt8) -> Void)?
    var onSignal: ((Int32) -> Void)?
  }

  static func session() -> (TerminalSession, Record) {
    let record = Record()
    let terminal = Terminal { _ in }
    let inputs = TerminalSession.Inputs(
      takeKeys: { handle in
        record.calls.append("take keys")
        record.onKey = handle
      },
      releaseKeys: {
        record.calls.append("release keys")
        record.onKey = nil
      },
      routeSignals: { handle in
        record.calls.append("route signals")
        record.onSignal = handle
        return {
          record.calls.append("release signals")
          record.onSignal = nil
        }
      })
    let session = TerminalSession(terminal: terminal, inputs: inputs)
    return (session, record)
  }

  @Test("begin takes the screen, the signals and the keys; end gives them back in reverse, once")
  func beginAndEnd() {
    let (session, record) = Self.session()
    var keys: [UInt8] = []
    var signals: [Int32] = []
    session.begin(onKey: { keys.append($0) }, onSignal: { signals.append($0) })
    #expect(record.calls == ["route signals", "take keys"])
    record.onKey?(UInt8(ascii: "r"))
    record.onSignal?(28)
    #expect(keys == [UInt8(ascii: "r")] && signals == [28])
    session.draw(["Choose your weapon"])
    session.end()
    #expect(record.calls == ["route signals", "take keys", "release keys", "release signals"])
    #expect(record.onKey == nil && record.onSignal == nil)
    session.end()
    #expect(record.calls.count == 4, "ending twice gives nothing back twice")
  }

  @Test("the terminal is put back on end, and nothing is drawn after it")
  func terminalPutBack() {
    let written = NIOLockedValueBox("")
    let terminal = Terminal { bytes in
      written.withLockedValue { $0 += String(decoding: bytes, as: UTF8.self) }
    }
    let inputs = TerminalSession.Inputs(
      takeKeys: { _ in }, releaseKeys: {}, routeSignals: { _ in {} })
    let session = TerminalSession(terminal: terminal, inputs: inputs)
    session.begin(onKey: { _ in }, onSignal: { _ in })
    #expect(written.withLockedValue { $0 }.hasPrefix("\u{1B}[?1049h\u{1B}[?25l"))
    session.draw(["a frame"])
    session.end()
    let ended = written.withLockedValue { $0 }
    #expect(ended.contains("a frame"))
    #expect(ended.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
    session.draw(["after the end"])
    #expect(written.withLockedValue { $0 } == ended)
  }
}
