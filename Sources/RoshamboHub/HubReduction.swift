import RoshamboGame

/// The hub's reduction: the rules applied to the lobby once, and what the hub must do
/// about what they decided, as ``HubEffect`` values derived from the rules' events
/// alone (never from comparing the lobby before and after). The journal replays
/// through it too, so a replay is the game again.
///
/// Invariant: a refused action changes nothing and yields no effect; an accepted one
/// yields `.journal(action)` first, then a `.sendState` for each room it touched.
package enum HubReduction {
  package static func reduce(
    _ lobby: inout LobbyState, _ action: LobbyAction
  ) -> Result<[HubEffect], Refusal> {
    lobby.reduce(action).map { effects(of: action, $0) }
  }

  /// What the hub does for `action`, accepted with `events`.
  package static func effects(of action: LobbyAction, _ events: [LobbyEvent]) -> [HubEffect] {
    var effects: [HubEffect] = [.journal(action)]
    var rooms: [String] = []
    func send(_ room: String) {
      if !rooms.contains(room) { rooms.append(room) }
    }
    for event in events {
      switch event {
      case .room(let room, let event):
        send(room)
        switch event {
        case .roundResolved(let result):
          effects.append(.log(.round(room: room, result)))
        case .matchEnded(let match):
          effects.append(.recordMatch(match))
          effects.append(.log(.matchOver(match)))
        case .deadlineSet(let round, let at):
          effects.append(.startDeadline(room: room, round: round, at: at))
        case .deadlineCleared:
          effects.append(.cancelTimer(.deadline(room: room)))
        case .graceStarted(let seat, let ends):
          effects.append(.startGrace(room: room, seat: seat, at: ends))
        case .graceEnded(let seat):
          effects.append(.cancelTimer(.grace(room: room, seat: seat)))
        case .gaveUp(let seat):
          effects.append(.cancelTimer(.grace(room: room, seat: seat)))
          if case .room(_, .graceExpired) = action {
            effects.append(.log(.graceExpired(room: room, seat: seat)))
          }
        case .seated, .spectatorJoined, .spectatorLeft, .matchStarted, .picked, .committed,
          .revealed, .rematchAsked, .released, .tournamentMovedOn:
          break
        }
      case .moved(let move):
        send(move.from)
        send(move.to)
        effects.append(.follow(move))
      case .opened:
        break
      case .tournament(let event):
        effects.append(.tournament(event))
      case .closed(let room):
        effects.append(.cancelTimer(.deadline(room: room)))
        for seat in Seat.allCases { effects.append(.cancelTimer(.grace(room: room, seat: seat))) }
        effects.append(.forgetRoom(room))
      }
    }
    for room in rooms { effects.append(.sendState(room: room)) }
    return effects
  }
}
