import RoshamboGame
import RoshamboPlayer
import RoshamboProtocol
import Testing

/// Coming back after a long absence (issue 51, item 2): the server's words for a silent
/// connection are for programs; a person at a terminal is told what happened in theirs.
@Suite("Words for a person after an absence")
struct AbsenceWordsTests {
  @Test("a connection closed for silence is explained to a person, not a program")
  func silenceInPeoplesWords() {
    let server = ProtocolError(
      code: .timeout,
      message: "Nothing came from your program for 9 s, so the server closed the connection; "
        + "start it again to come back (programs written for Roshambo send a ping while they "
        + "wait).", fatal: true)
    guard case .error(let shown, _) = ServerMessage.error(server, re: nil).sanitized() else {
      Issue.record("not an error")
      return
    }
    #expect(!shown.message.contains("program"))
    #expect(!shown.message.contains("ping"))
    #expect(shown.message.contains("Run roshambo again to come back"))
    #expect(shown.code == .timeout && shown.fatal)
    // Other refusals keep the server's words.
    let full = ProtocolError(code: .roomFull, message: "The room is full.", fatal: false)
    guard case .error(let kept, _) = ServerMessage.error(full, re: nil).sanitized() else {
      Issue.record("not an error")
      return
    }
    #expect(kept.message == "The room is full.")
  }
}
