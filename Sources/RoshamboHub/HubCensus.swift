import RoshamboGame

/// What the hub holds, counted for a scrape and for a fleet's allocator: who is seated,
/// watching and following, the rooms by phase, the quick-match player waiting, and the
/// rooms players named.
///
/// Invariant: a pure reading of ``HubState``; taking it changes nothing.
package struct HubCensus: Equatable, Sendable {
  package var playersSeated = 0
  package var spectators = 0
  package var lobbyFollowers = 0
  package var roomsByPhase: [String: Int] = [:]
  package var rooms = 0
  /// Whether a quick-match player waits for an opponent.
  package var waiting = false
  /// Every room a player named (not the quick-match or tournament ones).
  package var namedRooms: Set<String> = []
}

extension HubState {
  package var census: HubCensus {
    var census = HubCensus()
    for member in sessions.members.values {
      if member.seat == nil { census.spectators += 1 } else { census.playersSeated += 1 }
    }
    census.lobbyFollowers = sessions.followers.count
    for room in lobby.rooms.values { census.roomsByPhase[room.phase.rawValue, default: 0] += 1 }
    census.rooms = lobby.rooms.count
    census.namedRooms = Set(lobby.rooms.keys.lazy.filter { !LobbyState.isReservedRoomName($0) })
    census.waiting =
      lobby.quickMatchRoom.map { lobby.rooms[$0]?.hasPlayerWaiting ?? false } ?? false
    return census
  }
}

extension HubState {
  /// Whether everything accepted is committed and nothing waits to be: the live lobby is
  /// then exactly what the journal replays to.
  package var isSettled: Bool { batch.isEmpty && !commits.isBusy && commits.acceptsActions }

  /// Everyone here under a name that acts (followers of the lobby and seated players),
  /// with the identity each presented.
  package var namedPeople: [(name: String, identity: String?)] {
    sessions.followers.values.map { ($0.name, $0.identity) }
      + sessions.members.values.filter { $0.seat != nil }.map { ($0.name, $0.identity) }
  }
}
