import Logging
import Redux
import RoshamboGame

/// The game's log lines, written as accepted actions change the lobby: rounds resolved
/// (the picks are public by then), matches over, graces run out.
///
/// Invariant: it reads the state after the action only for what the action made
/// public; no pick is logged before its round resolves.
struct EventLog {
  let logger: Logger

  var middleware: Middleware<LobbyState, HubAction> {
    Middleware { context, action, next in
      guard case .lobby(let lobbyAction, _) = action else { return next(action) }
      let name = context.state.room(of: lobbyAction)
      // Two values, not the room: a copy held across `next` would make the reducer copy
      // the room's storage instead of changing it in place.
      let lastRound = context.state.rooms[name]?.history.last?.round
      let wasOver = context.state.rooms[name]?.phase == .over
      next(action)
      guard let room = context.state.rooms[name] else { return }
      if let result = room.history.last, result.round != lastRound {
        logger.info(
          "round",
          metadata: [
            "room": "\(name)", "round": "\(result.round)",
            "weapons": "\(result.weapons.map { $0?.rawValue ?? "none" })",
            "winner": "\(result.winner?.rawValue ?? 0)",
          ])
      }
      if room.phase == .over, !wasOver {
        let winner = room.winner.flatMap { room.seats[$0]?.name } ?? "?"
        logger.info(
          "match over",
          metadata: [
            "room": "\(name)", "winner": "\(winner)",
            "score": "\(Seat.allCases.map { room.seats[$0]?.score ?? 0 })",
          ])
      }
      if case .room(_, .graceExpired(let seat, _)) = lobbyAction {
        logger.info("grace expired", metadata: ["room": "\(name)", "seat": "\(seat.rawValue)"])
      }
    }
  }
}
