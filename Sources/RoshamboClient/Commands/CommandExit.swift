import RoshamboGame
import RoshamboProtocol
import Sysexits

/// The end of a `roshambo` command that did not go as asked: the status the program exits
/// with. What went wrong has been said on standard error before it is thrown; only the
/// executable turns it into an exit.
///
/// Invariant: `status` is one of ``ExitStatus``'s (or 128 + a signal's number), never 0.
public struct CommandExit: Error, Equatable, Sendable {
  public var status: Int32

  public init(_ status: Int32) {
    self.status = status
  }

  /// The exit for a resolution of the server that stopped (its reason already said).
  public init(_ failure: ResolutionFailure) {
    switch failure.kind {
    case .usage: self.init(ExitStatus.usage)
    case .noInput: self.init(ExitStatus.noInput)
    case .dataError: self.init(ExitStatus.dataError)
    case .untrusted: self.init(ExitStatus.untrusted)
    case .unavailable: self.init(ExitStatus.unavailable)
    case .declined: self.init(ExitStatus.failure)
    }
  }

  /// What to say about `error`, which ended a conversation with the server, and the exit
  /// for it: 76 for a server that broke the protocol, 1 for a refusal, a silence or a lost
  /// connection; an exit already decided is kept, with nothing more to say.
  public static func reason(after error: any Error) -> (message: String?, exit: CommandExit) {
    switch error {
    case let exit as CommandExit:
      (nil, exit)
    case let violation as ProtocolViolation:
      (violation.description, CommandExit(ExitStatus.protocolViolation))
    case let silent as NoAnswer:
      (silent.description, CommandExit(ExitStatus.failure))
    default:
      (ConnectionFailure.ended(error), CommandExit(ExitStatus.failure))
    }
  }

  /// Says what ended a conversation with the server (``reason(after:)``) and returns the
  /// exit for it.
  public static func after(_ error: any Error) -> CommandExit {
    let (message, exit) = reason(after: error)
    if let message { StandardError.complain(message) }
    return exit
  }

  /// What to say when following the lobby ended as `end` (nil: the follower stopped it),
  /// and the exit for it; nil when the program ends well.
  public static func reason(afterFollowing end: PlayerEnd?) -> (message: String, exit: CommandExit)?
  {
    switch end {
    case .refused(let error)?:
      (error.message, CommandExit(ExitStatus.failure))
    case .brokeProtocol?, .cheated?:
      (end?.reason ?? "", CommandExit(ExitStatus.protocolViolation))
    case .left?, .closed(nil)?, nil:
      nil
    case .closed?, .gaveUp?, .couldNotConnect?:
      (end?.reason ?? "", CommandExit(ExitStatus.failure))
    }
  }

  /// The exit when the lobby ended before it seated this program (the reason is
  /// `end.reason`): 76 for a broken protocol, 69 for a server not reached again, else 1.
  public init(seatingEndedBy end: PlayerEnd) {
    switch end {
    case .brokeProtocol, .cheated: self.init(ExitStatus.protocolViolation)
    case .gaveUp, .couldNotConnect: self.init(ExitStatus.unavailable)
    case .left, .refused, .closed: self.init(ExitStatus.failure)
    }
  }

  /// Throws the exit for `status` unless it is 0.
  public static func unlessSuccess(_ status: Int32) throws(CommandExit) {
    if status != ExitStatus.success { throw CommandExit(status) }
  }
}

extension ExitStatus {
  /// The status for how a session on the screen ended; a signal is 128 + its number, as
  /// shells report it.
  public static func of(_ ending: Screen.Ending) -> Int32 {
    switch ending {
    case .finished: success
    case .failed: failure
    case .serverMisbehaved: protocolViolation
    case .signalled(let number): 128 + number
    }
  }

  /// The status for how the lobby's evening on the screen ended.
  public static func of(_ exit: LobbyNavigation.Exit) -> Int32 {
    switch exit {
    case .quit: success
    case .signalled(let number): 128 + number
    case .refused: failure
    case .protocolViolation: protocolViolation
    case .unreachable: unavailable
    }
  }

  /// The status for how a bot's run ended: 70 for a program of the person's that failed.
  public static func of(_ ending: BotPlay.Ending) -> Int32 {
    switch ending {
    case .finished: success
    case .failed(let violated): violated ? protocolViolation : failure
    case .programFailed: botProgram
    case .unreachable: unavailable
    }
  }
}
