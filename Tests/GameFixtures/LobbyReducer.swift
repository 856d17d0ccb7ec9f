import Redux
import RoshamboGame

/// The lobby's rules as a reducer, for tests and tools: ``LobbyState/apply(_:)``, which
/// applies each action to its room, creates rooms on join, pairs quick-match players and
/// removes rooms that empty.
///
/// Invariant: a refused action changes nothing in the lobby.
public struct LobbyReducer: Reducer {
  public init() {}

  public func reduce(into state: inout LobbyState, action: LobbyAction) {
    _ = state.apply(action)
  }
}
