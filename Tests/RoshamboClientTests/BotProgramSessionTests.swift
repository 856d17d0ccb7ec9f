import Foundation
import RoshamboClient
import RoshamboGame
import Testing

/// The bot program's contract (docs/BOTS.md) as values: the lines, the answers, the
/// output allowance and the machine, with time passed in (no process, no sleep).
@Suite("Bot programs: lines and the machine")
struct BotProgramSessionTests {
  let t0 = ContinuousClock.now
  let limits = BotProgramSession.Limits(pick: .seconds(2), bank: .seconds(30))

  func start(match: Int = 1, ruleset: Ruleset = .classic) -> BotProgramLine.Start {
    .init(
      match: match, ruleset: ruleset, bestOf: 3, seat: .two, name: "mybot", opponent: "Alice",
      room: "duel", limits: limits)
  }

  let zero = BotProgramLine.Score(you: 0, them: 0)

  /// A machine in match 1, asked for round 1 at `t0`.
  func asked() -> BotProgramSession {
    var session = BotProgramSession(limits: limits)
    _ = session.handle(.matchStarted(start()))
    _ = session.handle(.pickWanted(round: 1, history: [], score: zero, at: t0))
    return session
  }

  func said(_ actions: [BotProgramSession.Action]) -> [String] {
    actions.compactMap {
      if case .say(let sentence) = $0 { return sentence }
      return nil
    }
  }

  // MARK: - Lines

  @Test("each line is one JSON object, exactly as docs/BOTS.md shows it")
  func lines() throws {
    #expect(
      BotProgramLine.start(start()).text
        == #"{"type":"start","protocol":1,"match":1,"ruleset":"classic","weapons":["rock","paper","scissors"],"beats":{"rock":["scissors"],"paper":["rock"],"scissors":["paper"]},"bestOf":3,"seat":2,"name":"mybot","opponent":"Alice","room":"duel","pickMs":2000,"bankMs":30000}"#
    )
    let history = [
      BotProgramLine.Round(
        round: 1, you: .rock, them: .paper, winner: .them, reason: "paper covers rock"),
      BotProgramLine.Round(round: 2, you: nil, them: .rock, winner: .them, reason: nil),
    ]
    #expect(
      BotProgramLine.pick(
        .init(
          round: 3, history: history, score: .init(you: 0, them: 2), pick: .seconds(2),
          bank: .milliseconds(29_500))
      ).text
        == #"{"type":"pick","round":3,"pickMs":2000,"bankMs":29500,"score":{"you":0,"them":2},"history":[{"round":1,"you":"rock","them":"paper","winner":"them","reason":"paper covers rock"},{"round":2,"you":null,"them":"rock","winner":"them","reason":null}]}"#
    )
    #expect(
      BotProgramLine.result(history[0], score: .init(you: 0, them: 1)).text
        == #"{"type":"result","round":1,"you":"rock","them":"paper","winner":"them","reason":"paper covers rock","score":{"you":0,"them":1}}"#
    )
    #expect(
      BotProgramLine.end(.won, score: .init(you: 2, them: 1), why: nil).text
        == #"{"type":"end","result":"won","score":{"you":2,"them":1}}"#)
    #expect(BotProgramLine.bye.text == #"{"type":"bye"}"#)
    // A name with quotes and a newline stays on one line of valid JSON.
    var odd = start()
    odd.opponent = "Al\"ice\nx"
    let text = BotProgramLine.start(odd).text
    #expect(!text.contains("\n"))
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    #expect(object?["opponent"] as? String == "Al\"ice\nx")
    // lizard–Spock: each weapon beats two.
    let lizard = BotProgramLine.start(start(ruleset: .lizardSpock)).text
    let beats =
      try JSONSerialization.jsonObject(with: Data(lizard.utf8)) as? [String: Any]
    #expect((beats?["beats"] as? [String: [String]])?["spock"]?.sorted() == ["rock", "scissors"])
  }

  @Test("a round in the seat's terms: its weapon, the other's, who won")
  func roundInSeatTerms() {
    let result = RoundResult(
      round: 4, weapons: [.rock, .paper], winner: .two, reason: "paper covers rock")
    #expect(
      BotProgramLine.Round(result, seat: .two)
        == .init(round: 4, you: .paper, them: .rock, winner: .you, reason: "paper covers rock"))
    #expect(BotProgramLine.Round(result, seat: .one).winner == .them)
    let draw = RoundResult(round: 5, weapons: [.rock, .rock], winner: nil, reason: nil)
    #expect(BotProgramLine.Round(draw, seat: .one).winner == .draw)
  }

  @Test("answers: a weapon's name or {\"pick\": …}; anything else is said as sent")
  func answers() {
    #expect(BotProgramAnswer("rock", ruleset: .classic) == .pick(.rock))
    #expect(BotProgramAnswer("  Paper \r", ruleset: .classic) == .pick(.paper))
    #expect(
      BotProgramAnswer(#"{"why":"hunch","pick":"scissors","n":[1]}"#, ruleset: .classic)
        == .pick(.scissors))
    #expect(BotProgramAnswer("", ruleset: .classic) == .blank)
    #expect(BotProgramAnswer(" \t", ruleset: .classic) == .blank)
    #expect(BotProgramAnswer("banana", ruleset: .classic) == .garbage(shown: #""banana""#))
    #expect(
      BotProgramAnswer(#"{"pick":3}"#, ruleset: .classic) == .garbage(shown: #""{"pick":3}""#))
    #expect(BotProgramAnswer("{\"pick\":\"rock\"", ruleset: .classic).isGarbage)
    #expect(BotProgramAnswer("rock paper", ruleset: .classic).isGarbage)
    #expect(
      BotProgramAnswer("lizard", ruleset: .classic) == .notInRuleset(.lizard, shown: #""lizard""#))
    #expect(BotProgramAnswer("lizard", ruleset: .lizardSpock) == .pick(.lizard))
    // What is said is cut, and safe to print.
    let long = String(repeating: "x", count: 500)
    #expect(
      BotProgramAnswer(long, ruleset: .classic)
        == .garbage(shown: "\"" + String(repeating: "x", count: 80) + "…\""))
    #expect(BotProgramAnswer("\u{1B}[2J", ruleset: .classic) == .garbage(shown: #""^[[2J""#))
  }

  // MARK: - Output

  @Test("output is cut into lines across reads, within the allowance between picks")
  func output() {
    var output = BotProgramOutput(allowance: 16)
    #expect(output.take(Array("ro".utf8)) == ([], false))
    #expect(output.take(Array("ck\npap".utf8)) == (["rock"], false))
    #expect(output.take(Array("er\n".utf8)) == (["paper"], false))
    // 5 + 6 bytes spent; 5 more fit exactly, the sixth floods.
    #expect(output.take(Array("abcd\n".utf8)) == (["abcd"], false))
    #expect(output.take(Array("x".utf8)) == ([], true))
    #expect(output.flooded)
    #expect(output.take(Array("more\n".utf8)) == ([], false))

    var renewed = BotProgramOutput(allowance: 8)
    #expect(renewed.take(Array("rock\nro".utf8)) == (["rock"], false))
    renewed.renew()  // the begun line "ro" counts from here: 2 + 3 + 3 bytes fit
    #expect(renewed.take(Array("ck\n123".utf8)) == (["rock"], false))
    #expect(!renewed.flooded)
    #expect(renewed.take(Array("4".utf8)) == ([], true))

    // A line that never ends floods at the allowance, with the lines before it returned.
    var endless = BotProgramOutput(allowance: 64 * 1024)
    let flood = endless.take(Array("rock\n".utf8) + [UInt8](repeating: 0x61, count: 70_000))
    #expect(flood == (["rock"], true))
  }

  // MARK: - The machine

  @Test("a match: start, a pick answered in time, the result, the end")
  func match() {
    var session = BotProgramSession(limits: limits)
    #expect(session.handle(.matchStarted(start())) == [.write(.start(start()))])
    #expect(session.deadline == nil)
    #expect(
      session.handle(.pickWanted(round: 1, history: [], score: zero, at: t0))
        == [
          .write(
            .pick(.init(round: 1, history: [], score: zero, pick: .seconds(2), bank: .seconds(30))))
        ])
    #expect(session.deadline == t0 + .seconds(32))
    // Asked again while it is wanted (another view of the same round): nothing.
    #expect(session.handle(.pickWanted(round: 1, history: [], score: zero, at: t0)) == [])
    #expect(
      session.handle(.lineRead("paper", at: t0 + .milliseconds(1_999)))
        == [.choose(.paper, round: 1)])
    #expect(session.deadline == nil)
    let round = BotProgramLine.Round(
      round: 1, you: .paper, them: .rock, winner: .you, reason: "paper covers rock")
    let score = BotProgramLine.Score(you: 1, them: 0)
    #expect(
      session.handle(.roundResolved(round, score: score))
        == [.write(.result(round, score: score))])
    #expect(
      session.handle(.matchEnded(.won, score: score))
        == [.write(.end(.won, score: score, why: nil))])
    #expect(session.handle(.finished) == [.write(.bye), .closeInput])
    #expect(session.gone == nil)
  }

  @Test("late within the bank: the pick counts, the overrun comes off the bank, said")
  func lateWithinBank() {
    var session = asked()
    let actions = session.handle(.lineRead("rock", at: t0 + .milliseconds(2_500)))
    #expect(
      actions == [
        .say("took 2.50 s to pick round 1: 0.50 s from its bank, 29.50 s left for this match."),
        .choose(.rock, round: 1),
      ])
    // The next pick line carries the bank left, and its deadline is shorter.
    let at = t0 + .seconds(10)
    #expect(
      session.handle(.pickWanted(round: 2, history: [], score: zero, at: at))
        == [
          .write(
            .pick(
              .init(
                round: 2, history: [], score: zero, pick: .seconds(2),
                bank: .milliseconds(29_500))))
        ])
    #expect(session.deadline == at + .milliseconds(31_500))
    // A new match fills the bank again.
    _ = session.handle(.lineRead("rock", at: at))
    _ = session.handle(.matchEnded(.lost, score: zero))
    _ = session.handle(.matchStarted(start(match: 2)))
    _ = session.handle(.pickWanted(round: 1, history: [], score: zero, at: at))
    #expect(session.deadline == at + .seconds(32))
  }

  @Test("late past the pick and the bank: the match is given up, the answer discarded")
  func lateBeyondBank() {
    var session = asked()
    #expect(session.handle(.clock(t0 + .milliseconds(31_999))) == [])
    let why =
      "did not pick round 1 in time (2.00 s for the pick and 30.00 s left in its bank): gave up"
      + " match 1 against Alice."
    #expect(
      session.handle(.clock(t0 + .seconds(32)))
        == [.say(why), .giveUp, .write(.end(.lost, score: zero, why: why))])
    #expect(session.deadline == nil)
    // The answer that comes later is one nobody asked for.
    #expect(
      said(session.handle(.lineRead("rock", at: t0 + .seconds(33))))
        == [#"wrote "rock" when no pick was asked for: discarded."#])
  }

  @Test("a match called off before its first round: end, unfinished, saying why; no pick wanted")
  func calledOff() {
    var session = asked()
    let why = "Dora left before the first round; no match was played"
    #expect(
      session.handle(.matchCalledOff(why: why))
        == [.write(.end(.unfinished, score: zero, why: why))])
    #expect(session.deadline == nil)
    #expect(
      said(session.handle(.lineRead("rock", at: t0 + .seconds(1))))
        == [#"wrote "rock" when no pick was asked for: discarded."#])
    // Said once: the match is over for the program.
    #expect(session.handle(.matchCalledOff(why: why)) == [])
    #expect(session.handle(.matchStarted(start())) == [.write(.start(start()))])
    #expect(
      BotProgramLine.end(.unfinished, score: zero, why: why).text
        == #"{"type":"end","result":"unfinished","score":{"you":0,"them":0},"why":"\#(why)"}"#)
  }

  @Test("an answer read after the deadline, before the clock says so, is late too")
  func answerAfterDeadline() {
    var session = asked()
    let actions = session.handle(.lineRead("rock", at: t0 + .milliseconds(32_001)))
    #expect(actions.contains(.giveUp))
    #expect(!actions.contains(.choose(.rock, round: 1)))
  }

  @Test("garbage, or a weapon the ruleset lacks, gives the match up and says what was sent")
  func garbage() {
    var session = asked()
    let why =
      #"answered "I pick rock!" for round 1, which is not a pick (rock, paper, scissors): gave up"#
      + " match 1 against Alice."
    #expect(
      session.handle(.lineRead("I pick rock!", at: t0))
        == [.say(why), .giveUp, .write(.end(.lost, score: zero, why: why))])
    var lizard = asked()
    #expect(
      said(lizard.handle(.lineRead("lizard", at: t0)))
        == [
          #"answered "lizard" for round 1, but lizard is not a weapon of classic (rock, paper,"#
            + " scissors): gave up match 1 against Alice."
        ])
    // A blank line is no answer: the pick is still wanted.
    var blank = asked()
    #expect(blank.handle(.lineRead("", at: t0)) == [])
    #expect(blank.handle(.lineRead("rock", at: t0)) == [.choose(.rock, round: 1)])
  }

  @Test("a second answer, or a line when no pick is wanted, is said and discarded")
  func twice() {
    var session = asked()
    #expect(session.handle(.lineRead("rock", at: t0)) == [.choose(.rock, round: 1)])
    #expect(
      session.handle(.lineRead("paper", at: t0))
        == [.say(#"wrote "paper" when no pick was asked for: discarded."#)])
    #expect(said(session.handle(.lineRead("x", at: t0))).count == 1)
    #expect(
      said(session.handle(.lineRead("y", at: t0)))
        == [
          #"wrote "y" when no pick was asked for: discarded. Later lines like it in this match"#
            + " are not said."
        ])
    #expect(session.handle(.lineRead("z", at: t0)) == [])
    // The match goes on: the next pick is taken.
    _ = session.handle(.pickWanted(round: 2, history: [], score: zero, at: t0))
    #expect(session.handle(.lineRead("rock", at: t0)) == [.choose(.rock, round: 2)])
    // A new match says stray lines again.
    _ = session.handle(.matchEnded(.won, score: zero))
    _ = session.handle(.matchStarted(start(match: 2)))
    #expect(said(session.handle(.lineRead("early", at: t0))).count == 1)
  }

  @Test("megabytes of output: the program is stopped and the match given up")
  func flooded() {
    var session = asked()
    let why =
      "was stopped: it wrote more than 64 KiB without being asked for a pick: gave up match 1"
      + " against Alice."
    #expect(session.handle(.flooded) == [.say(why), .giveUp, .stop])
    #expect(session.gone == "was stopped: it wrote more than 64 KiB without being asked for a pick")
    // Its exit (the stop) says nothing more; the next match is given up at its start.
    #expect(session.handle(.exited(.signal(9))) == [])
    #expect(
      session.handle(.matchStarted(start(match: 2)))
        == [
          .say(
            "was stopped: it wrote more than 64 KiB without being asked for a pick: gave up"
              + " match 2 against Alice at its start."),
          .giveUp,
        ])
  }

  @Test("a program that exits during a match: its status said, the match given up")
  func exits() {
    var session = asked()
    #expect(
      session.handle(.exited(.status(3)))
        == [.say("exited with status 3: gave up match 1 against Alice."), .giveUp])
    #expect(session.gone == "exited with status 3")
    #expect(session.deadline == nil)
    #expect(session.handle(.lineRead("rock", at: t0)) == [])
    #expect(session.handle(.finished) == [])
    // Between matches: said, and the next match is given up at its start.
    var idle = BotProgramSession(limits: limits)
    #expect(idle.handle(.exited(.signal(9))) == [.say("was killed by signal 9.")])
    #expect(idle.handle(.matchStarted(start())).contains(.giveUp))
    // After bye, exiting is what it was asked to do.
    var done = BotProgramSession(limits: limits)
    _ = done.handle(.finished)
    #expect(done.handle(.exited(.status(0))) == [])
  }

  @Test("a round the room decided without the pick (its deadline): said, the answer discarded")
  func roomDeadline() {
    var session = asked()
    let round = BotProgramLine.Round(round: 1, you: nil, them: .rock, winner: .them, reason: nil)
    let score = BotProgramLine.Score(you: 0, them: 1)
    #expect(
      session.handle(.roundResolved(round, score: score))
        == [
          .say("did not pick round 1 before the room's deadline: the round is lost."),
          .write(.result(round, score: score)),
        ])
    #expect(session.deadline == nil)
    #expect(said(session.handle(.lineRead("rock", at: t0))).count == 1)
  }

  @Test("bye mid-match ends the match for the program first; a new match ends an old one")
  func unfinished() {
    var session = asked()
    #expect(
      session.handle(.finished)
        == [.write(.end(.unfinished, score: zero, why: nil)), .write(.bye), .closeInput])
    var again = asked()
    #expect(
      again.handle(.matchStarted(start(match: 2)))
        == [.write(.end(.unfinished, score: zero, why: nil)), .write(.start(start(match: 2)))])
  }

  // MARK: - From session to session

  @Test("a match given up is played: in a room a new session joins again; from the lobby the next")
  func runAfterGivingUp() {
    var room = BotRun(matches: 3, fromLobby: false)
    #expect(room.start() == .play(until: 3, tally: Bot.Tally()))
    var one = Bot.Tally()
    one.matchesLost = 1
    #expect(
      room.ended(.init(tally: one, closing: nil, violated: false, stopped: false, gaveUp: true))
        == .play(until: 3, tally: one))
    var three = one
    three.matchesWon = 2
    #expect(
      room.ended(.init(tally: three, closing: nil, violated: false, stopped: false))
        == .programFailed(
          summary: three.summary,
          complaint: "the bot program failed 1 of 3 matches (said above): it was given up."))

    var lobby = BotRun(matches: 2, fromLobby: true)
    _ = lobby.start()
    #expect(
      lobby.ended(.init(tally: one, closing: nil, violated: false, stopped: false, gaveUp: true))
        == .play(until: 2, tally: one))
  }

  @Test("a program gone ends the run with 70's step, unless every match was played")
  func runAfterProgramGone() {
    var run = BotRun(matches: 3, fromLobby: false)
    _ = run.start()
    var one = Bot.Tally()
    one.matchesLost = 1
    #expect(
      run.ended(
        .init(
          tally: one, closing: nil, violated: false, stopped: false, gaveUp: true,
          programGone: "exited with status 3"))
        == .programFailed(
          summary: one.summary,
          complaint: "the bot program exited with status 3; played 1 of 3 matches."))
    // Gone after its last match (it did not wait for bye): nothing was lost.
    var done = BotRun(matches: 1, fromLobby: false)
    _ = done.start()
    var won = Bot.Tally()
    won.matchesWon = 1
    #expect(
      done.ended(
        .init(
          tally: won, closing: nil, violated: false, stopped: false,
          programGone: "exited with status 0"))
        == .finish(summary: won.summary))
  }
}

extension BotProgramAnswer {
  var isGarbage: Bool {
    if case .garbage = self { return true }
    return false
  }
}
