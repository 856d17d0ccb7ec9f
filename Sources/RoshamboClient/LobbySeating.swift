import RoshamboGame
import RoshamboProtocol

/// What a program without a screen does in the lobby until a challenge or the tournament
/// seats it (`roshambo bot --lobby`, `--challenge`, `--tournament`, `roshambo
/// challenge`): accept the first challenge to it, challenge someone as soon as the lobby
/// shows them free, or enter the tournament. A value: each lobby event in, what to send
/// and say out; the caller carries the actions out as commands to its ``PlayerDriver``.
///
/// Invariant: it asks at most once (one challenge, or one entry), and once it stops
/// following, ``problem`` says why (nil: the connection ended by itself, worth coming
/// back to).
public struct LobbySeating: Equatable, Sendable {
  /// What it waits in the lobby for.
  public enum Goal: Equatable, Sendable {
    /// Accept the first challenge to this person.
    case accept
    /// Challenge this person as soon as they are free, under `ruleset` (nil: the
    /// server's), fair or not.
    case challenge(String, ruleset: Ruleset.ID? = nil, fair: Bool)
    /// Enter the tournament taking entries (or wait, already an entrant, to be seated).
    case enterTournament
  }

  /// What to do for an event.
  public enum Action: Equatable, Sendable {
    /// A line for the person running the program.
    case say(String)
    case challenge(String, ruleset: Ruleset.ID? = nil, fair: Bool)
    case accept(challenge: Int)
    case enterTournament
    /// Stop following (``problem`` says why).
    case stop
  }

  public let goal: Goal
  /// The name as the server writes it (normalized), to find this person in notices.
  public let me: String
  /// How long a person challenged is waited for to be free.
  public let wait: Duration
  /// Whether it asked (challenged, or entered).
  public private(set) var asked = false
  /// Why it stopped without a seat, when that was not the connection's doing.
  public private(set) var problem: String?
  private var comingBack: Bool
  private var closingSaid = false
  private var gaveUp = false

  /// `comingBack`: the first view says "back in the lobby" (a lost connection followed
  /// again).
  public init(name: String, goal: Goal, wait: Duration = .seconds(10), comingBack: Bool = false) {
    self.me = (try? PlayerName.normalize(name).get()) ?? name
    self.goal = goal
    self.wait = wait
    self.comingBack = comingBack
  }

  /// What to do on `news`.
  public mutating func handle(_ news: LobbyNews) -> [Action] {
    var actions: [Action] = []
    if comingBack, case .view = news {
      comingBack = false
      actions.append(.say("back in the lobby"))
    }
    switch news {
    case .closing(let seconds, _):
      // A drain: the connection ends soon; the program comes back once the server does.
      if !closingSaid {
        closingSaid = true
        actions.append(
          .say("the server is closing in \(seconds) s; back in the lobby when it is"))
      }
    case .reconnecting:
      // Said once for each loss; the first view after it says it is over.
      if !comingBack { actions.append(.say("lost the connection; reconnecting…")) }
      comingBack = true
    case .seated(let room):
      return seated(in: room)
    case .view(_, let view) where goal == .enterTournament:
      guard !asked else { break }
      asked = true
      let entered = view.tournament?.standings.contains { $0.name == me } == true
      switch view.tournament?.phase {
      case .entry? where !entered:
        actions.append(.enterTournament)
        actions.append(.say("entered the \(view.tournament!.kind.rawValue) tournament"))
      case .entry? where entered, .running? where entered:
        actions.append(.say("in the tournament: waiting to be seated"))
      default:
        return stop(actions, "no tournament is taking entries on this server")
      }
    case .view(_, let view):
      guard case .challenge(let target, let ruleset, let fair) = goal, !asked,
        view.people.contains(where: {
          $0.name == target && $0.takesChallenges && $0.status == .idle
        })
      else { break }
      asked = true
      actions.append(.challenge(target, ruleset: ruleset, fair: fair))
    case .challenge(let notice):
      switch notice.status {
      case .pending where goal == .accept && notice.to == me:
        actions.append(
          .say(
            "accepting \(notice.from)'s challenge: best of \(notice.bestOf), "
              + notice.ruleset.rawValue))
        actions.append(.accept(challenge: notice.id))
      case .pending where notice.from == me:
        actions.append(
          .say("challenged \(notice.to): best of \(notice.bestOf), \(notice.ruleset.rawValue)"))
      case .declined, .expired, .withdrawn:
        if notice.from == me {
          let why =
            notice.forTheEvening
            ? "declined, and \(notice.to) declines your challenges for the rest of the evening"
            : notice.status.rawValue
          return stop(actions, "the challenge to \(notice.to) ended: \(why)")
        }
      default:
        break
      }
    case .refused(let error):
      return stop(actions, "the server refused: \(error.message)")
    case .record, .recordRefused:
      // Never asked for here.
      break
    }
    return actions
  }

  private mutating func stop(_ actions: [Action], _ why: String) -> [Action] {
    problem = why
    return actions + [.stop]
  }

  /// `wait` has passed: whether to close the connection, because the person to
  /// challenge was never free.
  public mutating func waitedTooLong() -> Bool {
    guard case .challenge = goal, !asked else { return false }
    gaveUp = true
    return true
  }

  /// The connection ended without a seat: why, when it was not the connection's doing.
  public mutating func endedWithoutSeat() -> String? {
    if case .challenge(let target, _, _) = goal, !asked, gaveUp {
      problem = "\(target) was not in the lobby free to take a challenge within \(wait)."
    }
    return problem
  }

  /// The server seated this connection in `room`: what to say.
  public mutating func seated(in room: String) -> [Action] {
    guard comingBack else { return [] }
    return [.say("back in the tournament: seated in \(room)")]
  }
}
