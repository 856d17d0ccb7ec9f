import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The lobby on a terminal: a lobby follower's ``PlayerDriver`` (taking challenges), its
/// news re-rendered through the screen's store, and keys turned into the core's commands
/// and choices of what to do next. A lost connection is taken back by the core, the screen
/// staying up and saying so. It ends when the person chooses a match, a room to watch or
/// to quit, when the server seats them (the driver's session then plays that match), or
/// when the session ends.
///
/// Invariant: the terminal is put back and the keys released before `run` returns,
/// whatever ended it; nothing here sends to the server but through the driver's commands.
@MainActor
public final class LobbyScreen {
  /// What the person chose, or what ended the lobby.
  public enum Outcome: Equatable, Sendable {
    case quit
    /// The server seated this person in `room` (an accepted challenge, a tournament's
    /// match): the lobby's driver plays it on.
    case seated(room: String)
    case quickMatch
    case watch(room: String)
    /// Replay the finished match of this number.
    case replay(match: Int64)
    /// A signal ended the program: its number.
    case signalled(Int32)
    /// The server refused: the sentence says why.
    case failed(String)
    /// The server could not be reached again within the reconnect policy's patience: the
    /// sentence says how.
    case lost(String)
    /// The server broke the protocol: the sentence says how.
    case serverMisbehaved(String)
  }

  public let store: Store<LobbyScreenState, LobbyScreenAction>
  /// The lobby follower's session; seated, it plays the match on.
  public let driver: PlayerDriver
  private let terminal = TerminalSession()
  private var subscription: Subscription?
  private var outcome: Outcome?
  private var keys = KeyDecoder()
  private let color: Bool
  private let afterLoss: Bool
  private var reconnecting = false

  /// `driver`: a lobby follower's (``PlayerConfiguration/role`` `.lobby`, taking
  /// challenges), not yet started. `afterLoss`: the last lobby's connection was lost, so
  /// the first connection is tried under the reconnect policy. `notice`: a line to show
  /// first (what a first run made, say).
  public init(driver: PlayerDriver, afterLoss: Bool = false, notice: String? = nil) {
    self.driver = driver
    self.afterLoss = afterLoss
    self.store = Store(
      initialState: LobbyScreenState(me: driver.core.configuration.name),
      reducer: LobbyScreenReducer())
    self.color = ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    if let notice { store.dispatch(.notice(notice)) }
  }

  public func run() async -> Outcome {
    terminal.begin(
      onKey: { [weak self] key in self?.handle(key) },
      onSignal: { [weak self] number in self?.received(signal: number) })
    subscription = store.subscribe { [weak self] state in self?.draw(state) }
    let ticker = Task { @MainActor [weak self] in
      while !Task.isCancelled {
        self?.store.dispatch(.tick(now: Int64(Date().timeIntervalSince1970 * 1000)))
        try? await Task.sleep(for: .seconds(1))
      }
    }
    driver.lobbyNews = { [weak self] news in self?.received(news) }
    let end = await driver.follow(afterLoss: afterLoss)
    driver.lobbyNews = nil
    ticker.cancel()
    subscription = nil
    terminal.end()
    if let outcome { return outcome }
    guard let end else {
      if case .seated = driver.core.state.phase, let room = driver.core.state.match.room {
        return .seated(room: room)
      }
      return .lost("the server closed the connection")
    }
    switch end {
    case .left: return .quit
    case .refused(let error): return .failed(error.message)
    case .brokeProtocol, .cheated: return .serverMisbehaved(end.reason)
    case .gaveUp, .closed, .couldNotConnect: return .lost(end.reason)
    }
  }

  private func received(_ news: LobbyNews) {
    switch news {
    case .view(_, let view):
      if reconnecting {
        reconnecting = false
        // Records asked on the lost connection will not come: they may be asked again.
        for id in store.state.olderAsked { store.dispatch(.olderMissing(id, noMore: false)) }
        store.dispatch(.followingAgain)
      }
      store.dispatch(.viewed(view))
    case .challenge(let notice): store.dispatch(.challenge(notice))
    case .refused(let error): store.dispatch(.refused(error.message))
    case .closing(_, let closesAt): store.dispatch(.serverClosing(closesAt: closesAt))
    case .reconnecting(let attempt):
      reconnecting = true
      store.dispatch(
        .notice("Lost the connection to the server; reconnecting (try \(attempt), Ctrl-C leaves)…"))
    case .record(let match):
      // An older match this screen asked for, paging back.
      if let recent = LobbyView.Recent(match) { store.dispatch(.olderMatch(recent)) }
    case .recordRefused(let match, let error):
      store.dispatch(.olderMissing(Int64(match), noMore: error.code == .noSuchMatch))
    case .seated:
      // The screen's session is seated for the match.
      break
    }
  }

  private func draw(_ state: LobbyScreenState) {
    let size = Terminal.size
    // Countdowns read the clock as the frame is drawn: the state's is the last tick's, up
    // to a second old, which showed a 60 s wait as "61 s".
    var shown = state
    shown.now = max(state.now, Int64(Date().timeIntervalSince1970 * 1000))
    terminal.draw(
      LobbyScreenRenderer(width: size.columns, height: size.rows, color: color).lines(for: shown))
    // The bell, once for each challenge to this person.
    if state.bells > bellsRung {
      bellsRung = state.bells
      terminal.terminal.write("\u{07}")
    }
  }

  /// Asks the server for the records of the older matches the person paged back to.
  private func askForOlderMatches() {
    let ids = store.state.olderToAsk
    // While the server is away nothing can be asked: the next move past the last asks.
    guard !ids.isEmpty, !reconnecting else { return }
    for id in ids { driver.command(.askRecord(Int(id))) }
    store.dispatch(.askedOlder(ids))
  }

  /// The challenges the bell has rung for.
  private var bellsRung = 0

  /// Ends the lobby with `outcome`: the follower leaves, so following stops.
  private func finish(_ chosen: Outcome) {
    guard outcome == nil else { return }
    outcome = chosen
    driver.command(.leave)
  }

  private func handle(_ raw: UInt8) {
    guard let key = keys.feed(raw) else { return }
    let command = KeyBindings.lobbyCommand(for: key)
    let state = store.state
    // Asked whether to leave the tournament: any key but q is "stay", and only that.
    if state.leaveAsked, command != .quit {
      store.dispatch(.stay)
      return
    }
    guard let command else { return }
    if let refusal = state.refusalWhileClosing(command) {
      store.dispatch(.notice(refusal))
      return
    }
    switch command {
    case .quit, .move, .switchPane, .cycleRuleset, .toggleFair:
      break
    default:
      // Nothing new starts while the server is away: a match, watching or a replay would
      // need it, and a challenge or an answer would not reach it.
      guard !reconnecting else {
        store.dispatch(
          .notice(
            "The server is not answering: this lobby is reconnecting by itself (q or Ctrl-C "
              + "leaves)."))
        return
      }
    }
    switch command {
    case .quit:
      switch state.quitStep {
      case .leave: finish(.quit)
      case .ask: store.dispatch(.askToLeave)
      case .withdrawAndLeave:
        // Sent before the connection closes, so the tournament's next matches of this
        // person's go to their opponents at once (while the server is away, there is
        // nobody to tell: its grace decides them).
        driver.command(.withdrawFromTournament)
        finish(.quit)
      }
    case .move(let step):
      store.dispatch(.move(step))
      askForOlderMatches()
    case .switchPane: store.dispatch(.switchPane)
    case .quickMatch: finish(.quickMatch)
    case .watch, .open:
      if state.pane == .recent, command == .open {
        if let match = state.selectedMatch { finish(.replay(match: match)) }
        return
      }
      guard let room = state.selectedRoom else {
        store.dispatch(.notice("No room to watch yet."))
        return
      }
      if state.pane == .rooms || command == .watch {
        finish(.watch(room: room))
      }
    case .challenge:
      guard let person = state.challengeable else {
        store.dispatch(
          .notice("Select someone in the lobby (not playing or watching) to challenge."))
        return
      }
      driver.command(
        .challenge(person.name, ruleset: state.challengeRuleset, fair: state.challengeFair))
    case .accept:
      guard let challenge = state.incoming.first else {
        store.dispatch(.notice("Nobody has challenged you."))
        return
      }
      driver.command(.accept(challenge.id))
    case .decline:
      guard let challenge = state.incoming.first else { return }
      driver.command(.decline(challenge.id, forTheEvening: false))
    case .declineForTheEvening:
      // Declines this challenge and every later one from the same person (their identity,
      // or their address without one) until the server restarts.
      guard let challenge = state.incoming.first else { return }
      store.dispatch(.declineForTheEvening(challenge.from))
      driver.command(.decline(challenge.id, forTheEvening: true))
    case .replay:
      guard let match = state.selectedMatch else {
        store.dispatch(.notice("No match has finished here yet."))
        return
      }
      finish(.replay(match: match))
    case .enterTournament:
      guard state.view?.tournament?.phase == .entry else {
        store.dispatch(.notice("No tournament is taking entries now."))
        return
      }
      driver.command(.enterTournament)
      store.dispatch(.notice("You entered the tournament: your matches start by themselves."))
    case .cycleRuleset: store.dispatch(.cycleRuleset)
    case .toggleFair: store.dispatch(.toggleFair)
    }
  }

  /// Ctrl-C quits the lobby (exit 130); SIGTERM and SIGHUP (a terminal closed) likewise
  /// with their numbers. Someone in a tournament who presses Ctrl-C is going home: they
  /// are withdrawn first, as with q twice, so that nobody waits out a grace for them; a
  /// closed terminal keeps the entry for the grace (``LobbyScreenState/withdrawsWhenSignalled(_:)``).
  /// A resize redraws.
  private func received(signal number: Int32) {
    if number == SIGWINCH {
      draw(store.state)
    } else {
      if store.state.withdrawsWhenSignalled(number), !reconnecting {
        driver.command(.withdrawFromTournament)
      }
      finish(.signalled(number))
    }
  }

}
