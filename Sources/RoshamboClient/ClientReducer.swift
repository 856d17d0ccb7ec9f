import Redux
import RoshamboGame
import RoshamboProtocol

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
      if error.code == .alreadyChosen || error.code == .wrongRound {
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
