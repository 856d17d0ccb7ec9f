import RoshamboGame
import RoshamboProtocol

/// A `state` the server sent that breaks the protocol's contract: the client closes the
/// connection, says what was wrong, and exits with EX_PROTOCOL (76).
///
/// Invariant: `message` names the field that was wrong.
public struct ProtocolViolation: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String

  public init(message: String) {
    self.message = message
  }

  public var description: String {
    "the server broke the protocol: \(message); closing (is this a Roshambo server?)"
  }
}

extension RoomView {
  /// What in this view breaks the contract, for a client welcomed to `seat` (nil: a
  /// spectator); nil if nothing does.
  public func contractViolation(seat: Seat?, welcomed: Bool) -> String? {
    let ruleset = Ruleset.named(self.ruleset)
    guard (1...99).contains(bestOf), bestOf % 2 == 1 else {
      return "bestOf is \(bestOf), not an odd number from 1 to 99"
    }
    guard round >= 1 else { return "round is \(round), not at least 1" }
    if welcomed, you != seat {
      return "the view is for seat \(you.map { "\($0.rawValue)" } ?? "null"), "
        + "but this client was welcomed to seat \(seat.map { "\($0.rawValue)" } ?? "null")"
    }
    guard players.count <= 2 else { return "\(players.count) players, at most 2" }
    if Set(players.map(\.seat)).count != players.count {
      return "two players in the same seat"
    }
    let winsNeeded = bestOf / 2 + 1
    for player in players {
      guard (0...winsNeeded).contains(player.score) else {
        return "seat \(player.seat.rawValue) has score \(player.score), not 0 to \(winsNeeded)"
      }
      if let weapon = player.weapon {
        guard ruleset.allows(weapon) else {
          return "\(weapon.rawValue) is not a weapon in the \(self.ruleset.rawValue) ruleset"
        }
        guard player.seat == you else {
          return "the view shows the opponent's pick before the round resolved"
        }
      }
    }
    guard history.count <= RoomView.historyLimit else {
      return "\(history.count) rounds of history, at most \(RoomView.historyLimit)"
    }
    for entry in history {
      guard entry.weapons.count == 2 else {
        return "round \(entry.round) has \(entry.weapons.count) weapons, not 2"
      }
      for case let weapon? in entry.weapons where !ruleset.allows(weapon) {
        return "round \(entry.round) has \(weapon.rawValue), not a weapon in the "
          + "\(self.ruleset.rawValue) ruleset"
      }
      guard entry.round >= 1, entry.round <= round else {
        return "a history round numbered \(entry.round) in round \(round)"
      }
    }
    if phase == .over, winner == nil { return "the match is over with no winner" }
    return nil
  }
}
