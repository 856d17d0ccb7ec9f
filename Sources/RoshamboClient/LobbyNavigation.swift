/// Where `roshambo lobby` goes next: the lobby screen, the match or room chosen there
/// (or a match left running, taken back first), a replay, and back to the lobby, until
/// the person quits. A value: what ended each screen in, the next screen (or the end)
/// out; the caller opens the screens.
///
/// Invariant: every screen that ends comes back to the lobby, except a quit, a signal,
/// a refusal of the lobby and a server that broke the protocol, which end the program.
public struct LobbyNavigation: Equatable, Sendable {
  /// What to do next.
  public enum Step: Equatable, Sendable {
    /// Play the match this person left running, if there is one.
    case takeBackSeat
    /// Open the lobby screen on a new connection; `after`: the last connection was lost
    /// for this reason, so the lobby reaches the server again under the reconnect policy,
    /// saying so on its screen. `complaint`: first say this on standard error.
    case lobby(after: String?, complaint: String? = nil)
    /// Play the match an accepted challenge (or the tournament) seated the lobby's
    /// session in, room `room`, on the lobby's driver.
    case playSeated(room: String)
    case quickMatch
    case watch(room: String)
    case replay(match: Int64)
    /// Say `complaint` (if any) on standard error, and end the program.
    case end(Exit, complaint: String?)
  }

  /// How the program ends.
  public enum Exit: Equatable, Sendable {
    case quit
    case signalled(Int32)
    /// The server refused (exit 1).
    case refused
    /// The server broke the protocol (exit 76).
    case protocolViolation
    /// The server could not be reached again (exit 69).
    case unreachable
  }

  /// How a replay ended.
  public enum ReplayEnding: Equatable, Sendable {
    /// Watched to its end or quit (or never shown: a record that cannot be replayed).
    case watched
    case signalled(Int32)
    /// The record could not be had: the sentence says why; back to the lobby.
    case unavailable(String)
    /// The server broke the protocol: the sentence says how.
    case protocolViolation(String)
  }

  public init() {}

  /// The first step.
  public func start() -> Step {
    .takeBackSeat
  }

  /// The match left running ended (nil: there was none).
  public func tookBackSeat(_ ending: Screen.Ending?) -> Step {
    switch ending {
    case .signalled(let number)?: .end(.signalled(number), complaint: nil)
    case .serverMisbehaved?: .end(.protocolViolation, complaint: nil)
    default: .lobby(after: nil)
    }
  }

  /// The lobby screen ended with `outcome`.
  public func lobbyEnded(_ outcome: LobbyScreen.Outcome) -> Step {
    switch outcome {
    case .quit: .end(.quit, complaint: nil)
    case .signalled(let number): .end(.signalled(number), complaint: nil)
    case .failed(let message): .end(.refused, complaint: message)
    // The lobby already tried to reach the server again for the policy's patience.
    case .lost(let message): .end(.unreachable, complaint: message)
    case .serverMisbehaved(let message): .end(.protocolViolation, complaint: message)
    case .seated(let room): .playSeated(room: room)
    case .replay(let match): .replay(match: match)
    case .quickMatch: .quickMatch
    case .watch(let room): .watch(room: room)
    }
  }

  /// A match, or watching a room, ended.
  public func matchEnded(_ ending: Screen.Ending) -> Step {
    switch ending {
    case .finished: .lobby(after: nil)
    case .failed: .lobby(after: "the match's connection ended")
    case .serverMisbehaved: .end(.protocolViolation, complaint: nil)
    case .signalled(let number): .end(.signalled(number), complaint: nil)
    }
  }

  /// A replay of match `match` ended.
  public func replayEnded(_ ending: ReplayEnding, match: Int64) -> Step {
    switch ending {
    case .watched: .lobby(after: nil)
    // Ctrl-C or a closed terminal during the replay ends the program, as anywhere.
    case .signalled(let number): .end(.signalled(number), complaint: nil)
    case .protocolViolation(let message): .end(.protocolViolation, complaint: message)
    case .unavailable(let why):
      .lobby(after: nil, complaint: "could not replay match \(match): \(why)")
    }
  }
}
