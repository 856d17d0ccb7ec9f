import RoshamboClient
import Sysexits

extension ExitStatus {
  /// The status for how a session on the screen ended; a signal is 128 + its number, as
  /// shells report it.
  static func of(_ ending: Screen.Ending) -> Int32 {
    switch ending {
    case .finished: success
    case .failed: failure
    case .serverMisbehaved: protocolViolation
    case .signalled(let number): 128 + number
    }
  }
}
