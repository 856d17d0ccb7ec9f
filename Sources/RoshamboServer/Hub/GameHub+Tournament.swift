import NIOCore
import RoshamboGame
import RoshamboProtocol

extension GameHub {
  func tournamentChanged(_ event: LobbyEvent.TournamentEvent) {
  }
}
