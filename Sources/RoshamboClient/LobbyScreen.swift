import Foundation
import Redux
import RoshamboGame
import RoshamboProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The lobby on a terminal: follows the lobby (taking challenges), re-renders its store
/// whenever the state changes, and turns keys into challenges, answers and choices of
/// what to do next. It ends when the person chooses a match, a room to watch or to quit,
/// or when an accepted challenge seats them (the connection is then theirs to play on).
///
/// Invariant: the terminal is put back and the keys released before `run` returns,
/// whatever ended it.
@MainActor
public final class LobbyScreen {
  /// What the person chose, or what ended the lobby.
  public enum Outcome: Equatable, Sendable {
    case quit
    /// An accepted challenge seated this connection: play on it.
    case seated(LobbyClient.Seated)
    case quickMatch
    case watch(room: String)
    /// Replay the finished match of this number.
    case replay(match: Int64)
    /// A signal ended the program: its number.
    case signalled(Int32)
    /// The server refused: the sentence says why.
    case failed(String)
    /// The connection ended without a refusal (the network, a restart, a drain): the
    /// sentence says how; coming back is worth trying.
    case lost(String)
    /// The server broke the protocol: the sentence says how.
    case serverMisbehaved(String)
  }

  public let store: Store<LobbyScreenState, LobbyScreenAction>
  private let lobby: LobbyClient
  private let terminal = TerminalSession()
  private var subscription: Subscription?
  private var outcome: Outcome?
  private var keys = KeyDecoder()
  private let color: Bool
  private let keepalive: Duration

  /// `keepalive`: how often the lobby pings the server while nobody presses a key.
  /// `notice`: a line to show first (what a first run made, say).
  public init(
    connection: ServerConnection, name: String, keepalive: Duration = .seconds(15),
    notice: String? = nil
  ) {
    self.lobby = LobbyClient(connection, name: name, takesChallenges: true)
    self.keepalive = keepalive
    self.store = Store(initialState: LobbyScreenState(me: name), reducer: LobbyScreenReducer())
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
    do {
      let seated = try await lobby.follow(keepalive: keepalive) { [weak self] event in
        guard let self else { return false }
        switch event {
        case .view(_, let view): self.store.dispatch(.viewed(view))
        case .challenge(let notice): self.store.dispatch(.challenge(notice))
        case .refused(let error, _) where error.code == .closing:
          let now = Int64(Date().timeIntervalSince1970 * 1000)
          self.store.dispatch(.serverClosing(closesAt: now + Int64(error.seconds ?? 0) * 1_000))
        case .refused(let error, _): self.store.dispatch(.refused(error.message))
        }
        return self.outcome == nil
      }
      if let seated, outcome == nil { outcome = .seated(seated) }
    } catch let refused as LobbyClient.Refused {
      if outcome == nil { outcome = .failed(refused.description) }
    } catch let violation as ProtocolViolation {
      if outcome == nil { outcome = .serverMisbehaved(violation.description) }
    } catch {
      if outcome == nil { outcome = .lost(ConnectionFailure.ended(error)) }
    }
    ticker.cancel()
    subscription = nil
    terminal.end()
    return outcome ?? .lost("the server closed the connection")
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

  /// The challenges the bell has rung for.
  private var bellsRung = 0

  /// Ends the lobby with `outcome`: the connection is closed, so following stops.
  private func finish(_ chosen: Outcome) {
    guard outcome == nil else { return }
    outcome = chosen
    let lobby = self.lobby
    Task { await lobby.close() }
  }

  private func handle(_ raw: UInt8) {
    guard let key = keys.feed(raw), let command = KeyBindings.lobbyCommand(for: key) else {
      return
    }
    let state = store.state
    if let refusal = state.refusalWhileClosing(command) {
      store.dispatch(.notice(refusal))
      return
    }
    switch command {
    case .quit: finish(.quit)
    case .move(let step): store.dispatch(.move(step))
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
      lobby.challenge(person.name, fair: false)
    case .accept:
      guard let challenge = state.incoming.first else {
        store.dispatch(.notice("Nobody has challenged you."))
        return
      }
      lobby.accept(challenge.id)
    case .decline:
      guard let challenge = state.incoming.first else { return }
      lobby.decline(challenge.id)
    case .declineForTheEvening:
      // Declines this challenge and every later one from the same person (their identity,
      // or their address without one) until the server restarts.
      guard let challenge = state.incoming.first else { return }
      store.dispatch(.declineForTheEvening(challenge.from))
      lobby.decline(challenge.id, forTheEvening: true)
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
      lobby.enterTournament()
      store.dispatch(.notice("You entered the tournament: your matches start by themselves."))
    }
  }

  /// Ctrl-C quits the lobby (exit 130); SIGTERM and SIGHUP likewise with their numbers.
  /// A resize redraws.
  private func received(signal number: Int32) {
    if number == SIGWINCH {
      draw(store.state)
    } else {
      finish(.signalled(number))
    }
  }

}
