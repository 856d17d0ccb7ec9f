import Redux
import RoshamboGame

/// The hub's reducer: applies each lobby action the ``Gatekeeper`` let through, in
/// place, without running the rules a second time; the journal replays through it too.
///
/// Invariant: a `.lobby` action reaching it is one `LobbyState.refusal(for:)` accepted
/// on this same state.
struct HubReducer: Reducer {
  func reduce(into lobby: inout LobbyState, action: HubAction) {
    switch action {
    case .lobby(let action, _): lobby.applyAccepted(action)
    case .restore(let saved): lobby = saved
    }
  }
}
