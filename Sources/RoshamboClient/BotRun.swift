import RoshamboGame

/// How `roshambo bot` goes from match to match: in a room one session plays every match;
/// from the lobby each challenge seats a session of its own that plays one. A value:
/// each session's outcome in, the next step out; the caller runs the sessions.
///
/// Invariant: it asks for another session only while every session so far played the
/// matches it was started for (a match the bot's program made it give up counts as
/// played), none caught the server lying, and the bot's program is there; it ends by
/// saying the tally once.
public struct BotRun: Equatable, Sendable {
  /// How a session ended.
  public struct Outcome: Equatable, Sendable {
    public var tally: Bot.Tally
    /// Why the connection ended, if it was not the bot's own doing.
    public var closing: String?
    /// The server broke the protocol or lied.
    public var violated: Bool
    /// Whether a signal stopped it.
    public var stopped: Bool
    /// Whether the bot gave its last match up, its program having failed it (late,
    /// garbage, gone): it left the room, so a next match needs a new session.
    public var gaveUp: Bool
    /// Why the bot's program can play no more (it exited or was stopped), if so.
    public var programGone: String?

    public init(
      tally: Bot.Tally, closing: String?, violated: Bool, stopped: Bool, gaveUp: Bool = false,
      programGone: String? = nil
    ) {
      self.tally = tally
      self.closing = closing
      self.violated = violated
      self.stopped = stopped
      self.gaveUp = gaveUp
      self.programGone = programGone
    }
  }

  /// What to do next.
  public enum Step: Equatable, Sendable {
    /// Run a session whose bot starts counting from `tally` and leaves once it counts
    /// `until` matches.
    case play(until: Int, tally: Bot.Tally)
    /// Say `summary`: every match was played.
    case finish(summary: String)
    /// Say `summary`, then `complaint` on standard error, and exit non-zero (76 when
    /// `violated`, else 1).
    case fail(summary: String, complaint: String, violated: Bool)
    /// Say `summary`, then `complaint` on standard error, and exit 70: the bot's program
    /// failed a match (it was given up), or is gone while there was a match to play.
    case programFailed(summary: String, complaint: String)
  }

  public let matches: Int
  public let fromLobby: Bool
  public private(set) var tally = Bot.Tally()
  private var sessions = 0
  /// Matches given up because the bot's program failed them.
  private var givenUp = 0

  public init(matches: Int, fromLobby: Bool) {
    self.matches = matches
    self.fromLobby = fromLobby
  }

  /// The first session.
  public mutating func start() -> Step {
    next()
  }

  /// A session ended with `outcome`: the next step.
  public mutating func ended(_ outcome: Outcome) -> Step {
    let before = tally
    tally = outcome.tally
    if outcome.gaveUp { givenUp += 1 }
    if outcome.violated {
      // Even after the last match: a lie in its deciding round makes its result worthless.
      return .fail(
        summary: tally.summary, complaint: outcome.closing ?? "the server broke the protocol",
        violated: true)
    }
    if let gone = outcome.programGone, outcome.gaveUp || tally.matches < matches {
      return .programFailed(
        summary: tally.summary,
        complaint: "the bot program \(gone); played \(tally.matches) of \(matches) matches.")
    }
    if outcome.gaveUp, !fromLobby, tally.matches < matches {
      // The match given up was left: the next one is played from a new session.
      return .play(until: matches, tally: tally)
    }
    let wanted = fromLobby ? before.matches + 1 : matches
    guard tally.matches >= wanted else {
      let complaint =
        outcome.stopped
        ? "stopped by a signal after \(tally.matches) of \(matches) matches; left the room."
        : "played \(tally.matches) of \(matches) matches before the connection ended"
          + (outcome.closing.map { ": \($0)" } ?? ".")
      return .fail(summary: tally.summary, complaint: complaint, violated: false)
    }
    return next()
  }

  private mutating func next() -> Step {
    guard sessions < (fromLobby ? matches : 1) else {
      guard givenUp == 0 else {
        return .programFailed(
          summary: tally.summary,
          complaint: "the bot program failed \(givenUp) of \(matches) matches (said above):"
            + " \(givenUp == 1 ? "it was" : "they were") given up.")
      }
      return .finish(summary: tally.summary)
    }
    sessions += 1
    // From the lobby each session plays one more match, counted after the last.
    return .play(until: fromLobby ? tally.matches + 1 : matches, tally: tally)
  }
}

/// How `roshambo bot --tournament` knows the tournament is over: a second session follows
/// the lobby (reached again after a restart, under the player's reconnect policy) until a
/// view shows it finished.
///
/// Invariant: ``champion`` is set once, from the first view of the finished tournament.
public struct TournamentWatch: Equatable, Sendable {
  public private(set) var champion: String?

  public init() {}

  /// A lobby view: whether to go on following.
  public mutating func viewed(_ view: LobbyView) -> Bool {
    guard champion == nil else { return false }
    guard let tournament = view.tournament, tournament.phase == .finished else { return true }
    champion = tournament.champion
    return false
  }
}
