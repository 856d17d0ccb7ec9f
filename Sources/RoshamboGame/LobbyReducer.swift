import Redux

/// The lobby's rules: routes each action to its room (through ``RoomReducer``), creates
/// rooms on join, pairs quick-match players, and removes rooms that empty.
///
/// Invariant: a refused action changes nothing in the lobby.
public struct LobbyReducer: Reducer {
  public init() {}

  public func reduce(into state: inout LobbyState, action: LobbyAction) {
    _ = state.apply(action)
  }
}
