import Redux
import RoshamboGame

/// The rules of a room as a reducer: checks an action, then changes the room in place.
///
/// Invariant: a refused action changes nothing; an accepted one raises `version` by
/// exactly one.
public struct RoomReducer: Reducer {
  public init() {}

  public func reduce(into state: inout RoomState, action: RoomAction) {
    _ = state.apply(action)
  }
}
