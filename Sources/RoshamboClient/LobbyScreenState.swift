import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

/// What the lobby screen shows and remembers: the latest lobby view, the challenges to
/// and from this person, which person or room is selected, the last notice.
///
/// Invariants: `incoming` and `outgoing` hold only pending challenges of this person's
/// (a notice that ends one removes it); a selection names someone or a room of the
/// latest view, or is nil only when its list is empty.
public struct LobbyScreenState: Equatable, Sendable {
  /// Which list the arrow keys move in.
  public enum Pane: Equatable, Sendable {
    case people
    case rooms
    /// The matches finished lately (to replay).
    case recent
  }

  /// This person's name, as the server shows it.
  public var me: String
  public var view: LobbyView?
  /// Challenges waiting for this person's answer, oldest first.
  public var incoming: [ChallengeNotice] = []
  /// Challenges this person made that wait for an answer.
  public var outgoing: [ChallengeNotice] = []
  public var pane = Pane.people
  public var selectedPerson: String?
  /// The person selected when they went from the list (for a moment, as one going from a
  /// match's connection to the lobby's is): the selection comes back to them when they
  /// are back, unless this person moved it meanwhile.
  public var personAway: String?
  public var selectedRoom: String?
  /// The recent match selected, by its number.
  public var selectedMatch: Int64?
  /// The last thing to tell the person (a challenge declined, a refusal).
  public var notice: String?
  /// When the lobby's tick first saw `notice`: it clears ``LobbyScreenReducer/noticeLifetime``
  /// later (a new notice starts again).
  public var noticeSince: Int64?
  /// How many challenges to this person have arrived: the screen rings the terminal's
  /// bell once for each (when this rises).
  public var bells = 0
  /// Now, ms since 1970 (for the time left on challenges).
  public var now: Int64 = 0
  /// When the server said it closes (ms since 1970 by this client's clock), once it has.
  public var closesAt: Int64?
  /// The rules this person's next challenge asks for (nil: the server's).
  public var challengeRuleset: Ruleset.ID?
  /// Whether this person's next challenge asks for a fair (commit–reveal) match.
  public var challengeFair = false
  /// Whose challenges this person declines for the evening (key b), by name as shown.
  public var declinedForTheEvening: Set<String> = []
  /// Matches older than the view's recent ones, asked of the server (their records) as
  /// this person paged past the last: newest first, at most ``olderLimit``.
  public var older: [LobbyView.Recent] = []
  /// The older matches asked for and not answered yet, by number.
  public var olderAsked: Set<Int64> = []
  /// This person moved past the last of the recent matches: the screen asks for older ones
  /// (``olderToAsk``).
  public var wantsOlder = false
  /// The match selected when older ones were asked for: once they are in, the selection
  /// moves on from it, as the move asked.
  public var pagedFrom: Int64?
  /// The server has no match of this number (nor, it is taken, any older).
  public var olderEnd: Int64 = 0

  /// How many older matches the lobby pages back to; the rest are for
  /// `roshambo-server history` and `roshambo replay NUMBER`.
  public static let olderLimit = 60
  /// How many are asked at a time (the server reads at most 8 records at once).
  public static let olderPage = 6

  /// The view's recent matches, then the older ones this person paged back to: newest
  /// first, each once.
  public var recentMatches: [LobbyView.Recent] {
    let recent = view?.recent ?? []
    let oldest = recent.map(\.id).min() ?? .max
    return recent + older.filter { $0.id < oldest }
  }

  /// The matches to ask the server for now: the page before the oldest listed, when this
  /// person moved past it and nothing asked is still on its way.
  public var olderToAsk: [Int64] {
    guard wantsOlder, olderAsked.isEmpty, older.count < Self.olderLimit,
      let oldest = recentMatches.last?.id
    else { return [] }
    let floor = max(olderEnd, oldest - Int64(Self.olderPage) - 1, 0)
    return Array(stride(from: oldest - 1, to: floor, by: -1))
  }
  /// This person pressed q while entered in a tournament not finished, and was asked
  /// whether to leave: a second q leaves (withdrawing), any other key stays.
  public var leaveAsked = false

  public init(me: String) {
    self.me = me
  }

  /// How many of this person's tournament matches in `view` were forfeited because they
  /// did not come back in time (0 without a view).
  func lostAway(in view: LobbyView?) -> Int {
    view?.tournament?.standings.first { $0.name == me }?.lostAway ?? 0
  }

  /// What a q does now.
  public enum QuitStep: Equatable, Sendable {
    /// Leave the lobby.
    case leave
    /// Ask first: leaving withdraws this person from the tournament they are in.
    case ask
    /// Asked already: withdraw from the tournament, then leave.
    case withdrawAndLeave
  }

  /// Whether this person is entered in the lobby's tournament, it is not finished, and
  /// they have not withdrawn: leaving would leave their opponents waiting.
  public var isInTournament: Bool {
    guard let tournament = view?.tournament, tournament.phase != .finished else { return false }
    return tournament.standings.contains { $0.name == me && !$0.withdrawn }
  }

  /// What q does: leaves at once, unless this person is in a tournament (then it asks
  /// first, and the second q withdraws them and leaves).
  public var quitStep: QuitStep {
    guard isInTournament else { return .leave }
    return leaveAsked ? .withdrawAndLeave : .ask
  }

  /// Whether signal `number` ending the program withdraws this person from their
  /// tournament first: Ctrl-C (SIGINT) is someone going home, as q twice is; a closed
  /// terminal (SIGHUP) or SIGTERM is a drop, like a lost connection, and the server keeps
  /// the entry (or the seat) for its grace, so that running `roshambo` again in time finds
  /// it.
  public func withdrawsWhenSignalled(_ number: Int32) -> Bool {
    isInTournament && number == SIGINT
  }

  /// What this person is told when q asks first.
  public static let leaveQuestion =
    "Leaving withdraws you from the tournament: press q again to leave, any other key stays."

  /// Why `command` is not taken now, when the server has said it is closing: nothing that
  /// would start something new leaves the lobby (a quick match, a watch or a replay would
  /// need a new connection, which a closing server no longer takes, and end the
  /// program), and no challenge or entry is made; nil otherwise.
  public func refusalWhileClosing(_ command: KeyBindings.LobbyCommand) -> String? {
    guard closesAt != nil else { return nil }
    switch command {
    case .quickMatch, .watch, .open, .replay:
      return "The server is closing: matches, watching and replays wait until it is back. "
        + "This lobby stays and comes back with it."
    case .challenge, .accept, .enterTournament:
      return "The server is closing: no new match starts until it is back."
    case .quit, .move, .switchPane, .decline, .declineForTheEvening, .cycleRuleset, .toggleFair:
      return nil
    }
  }

  /// What this person's next challenge asks for, in their words.
  public var challengeTermsLine: String {
    "Your challenges ask for "
      + (challengeRuleset.map { "\($0.rawValue) rules" } ?? "the server's rules")
      + (challengeFair ? ", fair (commit–reveal)" : ", not fair") + " · o rules, f fairness."
  }

  /// The person selected, if they can be challenged now (not this person).
  public var challengeable: LobbyView.Person? {
    guard let name = selectedPerson, name != me else { return nil }
    return view?.people.first { $0.name == name && $0.takesChallenges && $0.status == .idle }
  }
}

/// What can happen on the lobby screen: the server's views and notices, keys, time.
public enum LobbyScreenAction: Equatable, Sendable {
  case viewed(LobbyView)
  case challenge(ChallengeNotice)
  /// The server refused something this person asked; the sentence is for them.
  case refused(String)
  /// Move the selection by this many lines in the current pane.
  case move(Int)
  case switchPane
  case notice(String?)
  case tick(now: Int64)
  /// The server said it is closing, at this moment (ms since 1970).
  case serverClosing(closesAt: Int64)
  /// The lobby follows the server again on a new connection: what the last one said of
  /// its closing is over.
  case followingAgain
  /// This person declined all challenges from `name` for the evening (key b).
  case declineForTheEvening(String)
  /// The next challenge asks for the next rules (the server's, then each ruleset).
  case cycleRuleset
  /// The next challenge asks for a fair match, or not.
  case toggleFair
  /// The screen asked the server for the records of these older matches.
  case askedOlder([Int64])
  /// An older match asked for came.
  case olderMatch(LobbyView.Recent)
  /// An older match asked for did not come; `noMore`: the server has none of that number
  /// (none older is asked for again).
  case olderMissing(Int64, noMore: Bool)
  /// This person pressed q while in a tournament: asked whether to leave.
  case askToLeave
  /// This person answered the question with another key than q: they stay.
  case stay
}

/// The lobby screen's rules: pure, so the screen is tested without a terminal.
public struct LobbyScreenReducer: Reducer {
  public init() {}

  public func reduce(into state: inout LobbyScreenState, action: LobbyScreenAction) {
    switch action {
    case .challenge, .refused, .notice:
      // A notice set again stays its whole time again.
      state.noticeSince = nil
    default:
      break
    }
    switch action {
    case .viewed(let view):
      let lostAway = (state.lostAway(in: state.view), state.lostAway(in: view))
      if lostAway.1 > lostAway.0 {
        // Back after an absence (or the first view of it): what it cost them.
        let count = lostAway.1 - lostAway.0
        let matches = count == 1 ? "a tournament match" : "\(count) tournament matches"
        state.notice = "While you were away, you lost \(matches) by not coming back in time."
        state.noticeSince = nil
      }
      let before = state.view?.people.map(\.name) ?? []
      state.view = view
      selectPerson(in: view.people.map(\.name), before: before, &state)
      let rooms = view.rooms.map(\.name)
      if state.selectedRoom.map(rooms.contains) != true { state.selectedRoom = rooms.first }
      let matches = state.recentMatches.map(\.id)
      if state.selectedMatch.map(matches.contains) != true { state.selectedMatch = matches.first }
      if state.pane == .recent, matches.isEmpty { state.pane = .people }
    case .challenge(let notice):
      let wasIncoming = state.incoming.contains { $0.id == notice.id }
      state.incoming.removeAll { $0.id == notice.id }
      state.outgoing.removeAll { $0.id == notice.id }
      let mine = notice.from == state.me
      switch notice.status {
      case .pending:
        // Its own line says it while it waits; one to this person rings the bell once.
        if mine {
          state.outgoing.append(notice)
        } else {
          if !wasIncoming { state.bells += 1 }
          state.incoming.append(notice)
        }
        state.notice = nil
      case .accepted:
        state.notice = mine ? "\(notice.to) accepted: the match starts." : nil
      case .declined:
        state.notice =
          mine
          ? notice.forTheEvening
            ? "\(notice.to) declined your challenge, and declines your challenges for the rest "
              + "of the evening: you cannot challenge \(notice.to) again tonight."
            : "\(notice.to) declined your challenge."
          : notice.forTheEvening || state.declinedForTheEvening.contains(notice.from)
            ? "You decline \(notice.from)'s challenges for the rest of the evening." : nil
      case .expired:
        state.notice =
          mine
          ? "\(notice.to) did not answer your challenge in time."
          : "\(notice.from)'s challenge expired."
      case .withdrawn:
        state.notice =
          mine
          ? "Your challenge to \(notice.to) is off: \(notice.to) left the lobby."
          : "\(notice.from) withdrew the challenge."
      }
    case .refused(let message):
      state.notice = message
    case .move(let step):
      guard let view = state.view else { return }
      switch state.pane {
      case .people:
        state.personAway = nil
        state.selectedPerson = moved(
          state.selectedPerson, by: step, in: view.people.map(\.name))
      case .rooms:
        state.selectedRoom = moved(state.selectedRoom, by: step, in: view.rooms.map(\.name))
      case .recent:
        let ids = state.recentMatches.map(\.id)
        let index = state.selectedMatch.flatMap(ids.firstIndex(of:)) ?? 0
        state.selectedMatch = ids.isEmpty ? nil : ids[min(max(index + step, 0), ids.count - 1)]
        // Down from the last: the page before it is asked for, unless there is none.
        if step > 0, !ids.isEmpty, index == ids.count - 1 {
          state.wantsOlder = true
          state.pagedFrom = state.selectedMatch
          if state.olderToAsk.isEmpty, state.olderAsked.isEmpty {
            state.wantsOlder = false
            state.pagedFrom = nil
            state.notice =
              state.older.count >= LobbyScreenState.olderLimit
              ? "The lobby lists \(LobbyScreenState.olderLimit) older matches at most: "
                + "roshambo replay NUMBER replays any."
              : "No older matches on this server."
          }
        }
      }
    case .switchPane:
      // People, rooms, then the recent matches when there are any.
      switch state.pane {
      case .people: state.pane = .rooms
      case .rooms: state.pane = state.view?.recent.isEmpty == false ? .recent : .people
      case .recent: state.pane = .people
      }
    case .notice(let notice):
      state.notice = notice
    case .tick(let now):
      state.now = now
      // A notice stays ``LobbyScreenRenderer/noticeLifetime``, counted from the first tick
      // that saw it.
      if state.notice == nil {
        state.noticeSince = nil
      } else if let since = state.noticeSince {
        if now - since >= LobbyScreenRenderer.noticeLifetime {
          state.notice = nil
          state.noticeSince = nil
        }
      } else {
        state.noticeSince = now
      }
    case .serverClosing(let closesAt):
      state.closesAt = closesAt
    case .followingAgain:
      state.closesAt = nil
      state.notice = "Back in the lobby: the server answers again."
    case .declineForTheEvening(let name):
      state.declinedForTheEvening.insert(name)
    case .cycleRuleset:
      let rulesets = Ruleset.ID.allCases
      if let current = state.challengeRuleset, let index = rulesets.firstIndex(of: current) {
        let next = rulesets.index(after: index)
        state.challengeRuleset = next < rulesets.endIndex ? rulesets[next] : nil
      } else {
        state.challengeRuleset = rulesets.first
      }
      state.notice = state.challengeTermsLine
    case .toggleFair:
      state.challengeFair.toggle()
      state.notice = state.challengeTermsLine
    case .askedOlder(let ids):
      state.olderAsked.formUnion(ids)
      state.wantsOlder = false
    case .olderMatch(let match):
      guard state.olderAsked.remove(match.id) != nil else { return }
      if !state.older.contains(where: { $0.id == match.id }) {
        state.older.append(match)
        state.older.sort { $0.id > $1.id }
        state.older = Array(state.older.prefix(LobbyScreenState.olderLimit))
      }
      olderAnswered(&state)
    case .olderMissing(let id, let noMore):
      guard state.olderAsked.remove(id) != nil else { return }
      if noMore { state.olderEnd = max(state.olderEnd, id) }
      olderAnswered(&state)
    case .askToLeave:
      state.leaveAsked = true
      state.notice = LobbyScreenState.leaveQuestion
      state.noticeSince = nil
    case .stay:
      state.leaveAsked = false
      if state.notice == LobbyScreenState.leaveQuestion {
        state.notice = "You stay in the lobby and in the tournament."
        state.noticeSince = nil
      }
    }
  }

  /// An older match asked for was answered: once all are, the selection moves on from
  /// where this person paged (when it is still there).
  private func olderAnswered(_ state: inout LobbyScreenState) {
    guard state.olderAsked.isEmpty, let from = state.pagedFrom else { return }
    state.pagedFrom = nil
    let ids = state.recentMatches.map(\.id)
    guard state.selectedMatch == from, let index = ids.firstIndex(of: from),
      index + 1 < ids.count
    else { return }
    state.selectedMatch = ids[index + 1]
  }

  /// The selection in the people's new list `names` (`before`, the last one): it stays on
  /// whom it was on wherever the list moved them (those entering a match go to the top),
  /// or comes back to one who was away. When they went, it goes to whoever followed them
  /// in the list before (or else preceded them), not to the top; when it was on this
  /// person alone until now, to the first other (on this person among others, it stays).
  private func selectPerson(in names: [String], before: [String], _ state: inout LobbyScreenState) {
    if let away = state.personAway, names.contains(away) {
      state.selectedPerson = away
      state.personAway = nil
    }
    let others = names.first { $0 != state.me }
    if let selected = state.selectedPerson, !names.contains(selected) {
      if selected != state.me { state.personAway = state.personAway ?? selected }
      let neighbours = before.firstIndex(of: selected).map { index in
        Array(before[(index + 1)...]) + before[..<index].reversed()
      }
      state.selectedPerson =
        neighbours?.first { $0 != state.me && names.contains($0) } ?? others ?? names.first
    } else if state.selectedPerson == nil
      || (state.selectedPerson == state.me && others != nil
        && before.allSatisfy { $0 == state.me })
    {
      state.selectedPerson = others ?? names.first
    }
  }

  /// The name `step` lines from `current` in `names`, kept within the list.
  private func moved(_ current: String?, by step: Int, in names: [String]) -> String? {
    guard !names.isEmpty else { return nil }
    let index = current.flatMap(names.firstIndex(of:)) ?? 0
    return names[min(max(index + step, 0), names.count - 1)]
  }
}
