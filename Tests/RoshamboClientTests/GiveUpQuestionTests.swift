import Testing

@testable import RoshamboClient

/// The match screen's question before a running match is given up.
@Suite("The match screen: giving a match up")
struct GiveUpQuestionTests {
  @Test("q asks, q again quits; Ctrl-C the same; asking names the key and the opponent")
  func asksThenQuits() {
    for asking in [GiveUpQuestion.Asking.quitKey, .interrupt] {
      var question = GiveUpQuestion()
      #expect(question.pressed(asking, inRunningMatch: true) == .ask)
      #expect(
        question.notice(opponent: "Bob")
          == "Give up the match? Press \(asking.name) again to quit (Bob wins by forfeit); "
          + "any other key plays on.")
      #expect(question.pressed(asking, inRunningMatch: true) == .quit)
      #expect(question.open == nil)
    }
  }

  @Test("any other key after the question only plays on: a weapon's key picks nothing")
  func otherKeyOnlyAnswers() {
    var question = GiveUpQuestion()
    _ = question.pressed(.quitKey, inRunningMatch: true)
    #expect(question.pressed(nil, inRunningMatch: true) == .playOn)
    #expect(question.notice(opponent: "Bob") == nil)
    // The next key is a command again, and the next q asks again.
    #expect(question.pressed(nil, inRunningMatch: true) == .command)
    #expect(question.pressed(.quitKey, inRunningMatch: true) == .ask)
  }

  @Test("q, then Ctrl-C: each asks for itself")
  func eachAsksForItself() {
    var question = GiveUpQuestion()
    _ = question.pressed(.quitKey, inRunningMatch: true)
    #expect(question.pressed(.interrupt, inRunningMatch: true) == .ask)
    #expect(question.open == .interrupt)
    #expect(question.pressed(.interrupt, inRunningMatch: true) == .quit)
  }

  @Test("no match running (waiting, over, watching): q quits at once, asked or not")
  func noMatchQuitsAtOnce() {
    var question = GiveUpQuestion()
    #expect(question.pressed(.quitKey, inRunningMatch: false) == .quit)
    // Asked while it ran; the match ended before the second q.
    _ = question.pressed(.quitKey, inRunningMatch: true)
    #expect(question.pressed(.interrupt, inRunningMatch: false) == .quit)
    #expect(question.open == nil)
  }
}
