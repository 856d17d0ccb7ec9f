import RoshamboGame

/// How a bot program (`roshambo bot --exec`) is spoken to over a whole run, as a value:
/// what the match does and what the program writes go in as ``Event``s, the lines to
/// write, the picks to make, the matches to give up and the sentences to say come out as
/// ``Action``s. ``BotProgram`` is the shell that runs the process and the clock;
/// docs/BOTS.md is the contract this machine keeps.
///
/// Invariant: at most one pick is asked for at a time, and it is answered at most once:
/// by the program's first line (a weapon of the ruleset becomes ``Action/choose(_:round:)``,
/// anything else gives the match up), by the clock (past ``deadline`` the match is given
/// up), or by the room (the round resolved without it). Every other line is discarded.
public struct BotProgramSession: Equatable, Sendable {
  /// The time and output a program is allowed.
  public struct Limits: Equatable, Sendable {
    /// How long a program has for each pick before its bank is drawn on.
    public var pick: Duration
    /// Time a program may overrun its picks by, in all, in one match.
    public var bank: Duration
    /// Bytes a program may write after a `pick` line before the next one (and before the
    /// first): past that it is stopped, so no program can fill roshambo's memory.
    public var output: Int

    public init(
      pick: Duration = .seconds(2), bank: Duration = .seconds(30), output: Int = 64 * 1024
    ) {
      self.pick = pick
      self.bank = bank
      self.output = output
    }
  }

  /// How a program's process ended.
  public enum Exit: Equatable, Sendable, CustomStringConvertible {
    case status(Int32)
    case signal(Int32)

    /// "exited with status 1", "was killed by signal 9".
    public var description: String {
      switch self {
      case .status(let status): "exited with status \(status)"
      case .signal(let signal): "was killed by signal \(signal)"
      }
    }
  }

  /// What happens, to the match or to the program.
  public enum Event: Equatable, Sendable {
    /// A match starts (the bot is seated and both players are there).
    case matchStarted(BotProgramLine.Start)
    /// The bot's pick for `round` is wanted (said again while it is wanted: no effect).
    case pickWanted(
      round: Int, history: [BotProgramLine.Round], score: BotProgramLine.Score,
      at: ContinuousClock.Instant)
    /// A round of the match resolved.
    case roundResolved(BotProgramLine.Round, score: BotProgramLine.Score)
    /// The match ended.
    case matchEnded(BotProgramLine.Ending, score: BotProgramLine.Score)
    /// The match ended without being played (the opponent left before its first round
    /// was resolved): the program is told `end`, `unfinished`, with `why`.
    case matchCalledOff(why: String)
    /// The program wrote a line (without its newline).
    case lineRead(String, at: ContinuousClock.Instant)
    /// The program wrote more than ``Limits/output`` bytes since the last `pick` line.
    case flooded
    /// The program's process ended.
    case exited(Exit)
    /// The time is now this (the shell says so once ``deadline`` has passed).
    case clock(ContinuousClock.Instant)
    /// The run is over: the program is told `bye`.
    case finished
  }

  /// What the shell does.
  public enum Action: Equatable, Sendable {
    /// Write this line to the program's standard input (a `pick` line renews its output
    /// allowance).
    case write(BotProgramLine)
    /// Pick this weapon for this round of the match.
    case choose(Weapon, round: Int)
    /// Give the match up (the bot leaves its room; the opponent wins by forfeit).
    case giveUp
    /// Say this about the program on standard error (after its name and command).
    case say(String)
    /// Stop the program now.
    case stop
    /// Close the program's standard input (after `bye`).
    case closeInput
  }

  enum State: Equatable, Sendable {
    /// Between matches.
    case idle
    case playing(Match)
    /// The program is gone or was stopped: why, as a sentence's end.
    case gone(String)
    /// `bye` was written.
    case finished
  }

  struct Match: Equatable, Sendable {
    var start: BotProgramLine.Start
    var bank: Duration
    var score = BotProgramLine.Score(you: 0, them: 0)
    /// The round a pick is asked for, and when it was asked.
    var asked: (round: Int, at: ContinuousClock.Instant)?

    static func == (lhs: Match, rhs: Match) -> Bool {
      lhs.start == rhs.start && lhs.bank == rhs.bank && lhs.score == rhs.score
        && lhs.asked?.round == rhs.asked?.round && lhs.asked?.at == rhs.asked?.at
    }
  }

  /// How many lines written when no pick was asked for are said in one match; later
  /// ones are discarded without a word.
  public static let strayLinesSaid = 3

  public let limits: BotProgramSession.Limits
  private(set) var state = State.idle
  /// Lines written when no pick was asked for, since the last match started.
  private var strays = 0

  public init(limits: Limits = Limits()) {
    self.limits = limits
  }

  /// When the pick asked for runs out of time (its own and the bank's), if one is asked.
  public var deadline: ContinuousClock.Instant? {
    guard case .playing(let match) = state, let asked = match.asked else { return nil }
    return asked.at + limits.pick + match.bank
  }

  /// Why the program can play no more (it exited or was stopped), as a sentence's end
  /// ("exited with status 1"); nil while it can.
  public var gone: String? {
    if case .gone(let why) = state { return why }
    return nil
  }

  /// What `event` calls for.
  public mutating func handle(_ event: Event) -> [Action] {
    switch event {
    case .matchStarted(let start):
      return matchStarted(start)
    case .pickWanted(let round, let history, let score, let at):
      guard case .playing(var match) = state, match.asked?.round != round else { return [] }
      match.asked = (round, at)
      match.score = score
      state = .playing(match)
      return [
        .write(
          .pick(
            .init(
              round: round, history: history, score: score, pick: limits.pick, bank: match.bank)))
      ]
    case .roundResolved(let round, let score):
      guard case .playing(var match) = state else { return [] }
      var actions: [Action] = []
      if match.asked?.round == round.round {
        match.asked = nil
        actions.append(
          .say("did not pick round \(round.round) before the room's deadline: the round is lost."))
      }
      match.score = score
      state = .playing(match)
      return actions + [.write(.result(round, score: score))]
    case .matchEnded(let ending, let score):
      guard case .playing = state else { return [] }
      state = .idle
      return [.write(.end(ending, score: score, why: nil))]
    case .matchCalledOff(let why):
      guard case .playing(let match) = state else { return [] }
      state = .idle
      return [.write(.end(.unfinished, score: match.score, why: why))]
    case .lineRead(let line, let at):
      return lineRead(line, at: at)
    case .flooded:
      if case .gone = state { return [] }
      if case .finished = state { return [.stop] }
      let kiB = limits.output / 1024
      return goneWith(
        "was stopped: it wrote more than \(kiB) KiB without being asked for a pick",
        actions: [.stop])
    case .exited(let exit):
      switch state {
      case .gone:
        return []
      case .finished:
        return exit == .status(0) ? [] : [.say("\(exit) after bye.")]
      case .idle, .playing:
        return goneWith(exit.description, actions: [])
      }
    case .clock(let now):
      guard case .playing(let match) = state, let asked = match.asked, let deadline,
        now >= deadline
      else { return [] }
      return giveUp(
        match,
        why: "did not pick round \(asked.round) in time (\(Self.seconds(limits.pick)) for the pick"
          + " and \(Self.seconds(match.bank)) left in its bank)")
    case .finished:
      var actions: [Action] = []
      switch state {
      case .gone, .finished:
        return []
      case .playing(let match):
        actions.append(.write(.end(.unfinished, score: match.score, why: nil)))
      case .idle:
        break
      }
      state = .finished
      return actions + [.write(.bye), .closeInput]
    }
  }

  private mutating func matchStarted(_ start: BotProgramLine.Start) -> [Action] {
    var actions: [Action] = []
    switch state {
    case .gone(let why):
      return [
        .say("\(why): gave up match \(start.match) against \(start.opponent) at its start."),
        .giveUp,
      ]
    case .finished:
      return []
    case .playing(let match):
      actions.append(.write(.end(.unfinished, score: match.score, why: nil)))
    case .idle:
      break
    }
    strays = 0
    state = .playing(Match(start: start, bank: limits.bank))
    return actions + [.write(.start(start))]
  }

  private mutating func lineRead(_ line: String, at: ContinuousClock.Instant) -> [Action] {
    switch state {
    case .gone, .finished:
      return []
    case .playing(var match):
      guard let asked = match.asked else { break }
      let answer = BotProgramAnswer(line, ruleset: match.start.ruleset)
      let weapons = match.start.ruleset.weapons.map(\.rawValue).joined(separator: ", ")
      switch answer {
      case .blank:
        return []
      case .garbage(let shown):
        return giveUp(
          match, why: "answered \(shown) for round \(asked.round), which is not a pick (\(weapons))"
        )
      case .notInRuleset(let weapon, let shown):
        return giveUp(
          match,
          why: "answered \(shown) for round \(asked.round), but \(weapon.rawValue) is not a"
            + " weapon of \(match.start.ruleset.id.rawValue) (\(weapons))")
      case .pick(let weapon):
        let overrun = at - asked.at - limits.pick
        guard overrun <= match.bank else {
          return giveUp(
            match,
            why: "did not pick round \(asked.round) in time (\(Self.seconds(limits.pick)) for the"
              + " pick and \(Self.seconds(match.bank)) left in its bank)")
        }
        var actions: [Action] = []
        if overrun > .zero {
          match.bank -= overrun
          actions.append(
            .say(
              "took \(Self.seconds(at - asked.at)) to pick round \(asked.round): "
                + "\(Self.seconds(overrun)) from its bank, \(Self.seconds(match.bank)) left "
                + "for this match."))
        }
        match.asked = nil
        state = .playing(match)
        return actions + [.choose(weapon, round: asked.round)]
      }
    case .idle:
      break
    }
    guard !BotProgramAnswer.isBlank(line) else { return [] }
    strays += 1
    guard strays <= Self.strayLinesSaid else { return [] }
    let more =
      strays == Self.strayLinesSaid ? " Later lines like it in this match are not said." : ""
    return [
      .say("wrote \(BotProgramAnswer.shown(line)) when no pick was asked for: discarded.\(more)")
    ]
  }

  /// The match is given up for `why` (the program is still there and is told why).
  private mutating func giveUp(_ match: Match, why: String) -> [Action] {
    state = .idle
    let sentence = "\(why): gave up match \(match.start.match) against \(match.start.opponent)."
    return [
      .say(sentence), .giveUp, .write(.end(.lost, score: match.score, why: sentence)),
    ]
  }

  /// The program can play no more, for `why`: a match being played is given up.
  private mutating func goneWith(_ why: String, actions: [Action]) -> [Action] {
    let before = state
    state = .gone(why)
    guard case .playing(let match) = before else { return [.say("\(why).")] + actions }
    return [
      .say("\(why): gave up match \(match.start.match) against \(match.start.opponent)."),
      .giveUp,
    ] + actions
  }

  /// "2.45 s".
  static func seconds(_ duration: Duration) -> String {
    let hundredths = BotProgramLine.millis(duration) / 10
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
  }
}
