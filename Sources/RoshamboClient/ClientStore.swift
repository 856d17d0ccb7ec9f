import Redux
import RoshamboGame
import RoshamboProtocol

/// What a client holds: the latest view the server sent this seat (a replica, never
/// more than the server lets it see), the welcome, and its own context.
///
/// Invariant: `view` only ever comes from the server; local actions change `context`
/// (a pending pick, a notice, the clock), never the view.
public struct ClientState: Equatable, Sendable {
  public var view: RoomView?
  public var seq = -1
  public var room: String?
  public var seat: Seat?
  public var token: String?
  public var context = ClientContext()
  /// Rounds this client has sent a pick for in the current match (sent once each).
  public var pickedRounds: Set<Int> = []

  public init() {}

  /// The screen for this state.
  public var props: ScreenProps { makeProps(view: view, context: context) }
}

/// Everything that happens to a client: from the server, from the keys, from the clock.
public enum ClientAction: Equatable, Sendable {
  case connection(ClientContext.Connection)
  case welcome(room: String, seat: Seat?, token: String?)
  case synced(view: RoomView, seq: Int)
  case serverError(ProtocolError)
  /// The player picks (sent by middleware; shown as pending at once).
  case choose(Weapon)
  case rematch
  case quit
  case tick(now: Int64)
  /// A `pong` came back this long after its `ping`.
  case roundTrip(millis: Double)
}

/// The client's reducer: pure, like the server's.
public struct ClientReducer: Reducer {
  public init() {}

  public func reduce(into state: inout ClientState, action: ClientAction) {
    switch action {
    case .connection(let status):
      state.context.connection = status
    case .welcome(let room, let seat, let token):
      state.room = room
      state.seat = seat
      state.token = token ?? state.token
      state.context.notice = nil
    case .synced(let view, let seq):
      guard seq > state.seq || view.room != state.view?.room else { return }
      let previousRound = state.view?.round
      if view.phase != .choosing || previousRound.map({ view.round < $0 }) == true {
        state.pickedRounds = []  // a new match (or none running): no round picked yet
      }
      state.view = view
      state.seq = seq
      // Pending ends when the server shows the pick, or the round has moved on.
      if let you = view.you,
        view.player(you)?.chosen == true || view.round != previousRound || view.phase != .choosing
      {
        state.context.pendingPick = nil
      }
    case .serverError(let error):
      state.context.notice = error.message
      if error.code == "already_chosen" || error.code == "wrong_round" {
        state.context.pendingPick = nil
      }
    case .choose(let weapon):
      guard let view = state.view, state.canPick(weapon) else { return }
      state.pickedRounds.insert(view.round)
      state.context.pendingPick = weapon
      state.context.notice = nil
    case .rematch, .quit:
      state.context.notice = nil
    case .tick(let now):
      state.context.now = now
    case .roundTrip(let millis):
      state.context.roundTripMillis = millis
    }
  }
}

extension ClientState {
  /// Whether a pick of `weapon` now makes sense: a seated player, the round open, this
  /// seat not chosen yet, the weapon in the ruleset.
  public func canPick(_ weapon: Weapon) -> Bool {
    guard isMyMove, let view else { return false }
    return Ruleset.named(view.ruleset).allows(weapon)
  }

  /// Whether this client is a seated player whose pick for the open round is still to
  /// be made (and not already sent).
  public var isMyMove: Bool {
    guard let view, let you = view.you, view.phase == .choosing else { return false }
    return view.player(you)?.chosen == false && !pickedRounds.contains(view.round)
  }
}
