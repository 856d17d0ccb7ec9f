import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The party's board gets the view every follower gets, and the tournament's earlier
/// rounds with it (a page opened late draws them all); followers never get those.
@Suite("Hub: the board's view")
struct HubBoardViewTests {
  typealias H = HubHarness

  @Test("in round 2 the board's view carries round 1's pairings; a follower's does not")
  func earlierRoundsToTheBoardOnly() throws {
    var (hub, peers) = HubTournamentEndTests.started(3) { $0.feedsBoard = true }
    for match in HubTournamentEndTests.matches(hub) {
      _ = HubTournamentEndTests.play(match, &hub, peers)
    }
    // Round 2 is paired; the views that follow, and a follower who comes now.
    if let at = hub.state.timers[.tournament]?.at { hub.now = max(hub.now, at) }
    var outputs = HubWithdrawalTests.settled(&hub, .timerFired(.tournament))
    let roundOne = try #require(hub.state.lobby.tournament?.rounds.first)
    try #require(hub.state.lobby.tournament?.rounds.count == 2)
    let dan = Peer(id: 9, identity: "key-Dan")
    outputs += HubWithdrawalTests.settled(
      &hub, .received(H.hello("Dan", role: .lobby, challenges: true), from: dan))
    while let at = hub.state.timers[.lobbyView]?.at {
      hub.now = max(hub.now, at)
      outputs += HubWithdrawalTests.settled(&hub, .timerFired(.lobbyView))
    }
    let deliveries = outputs.flatMap { output -> [Delivery] in
      if case .deliver(let deliveries) = output { return deliveries }
      return []
    }
    let toBoard = deliveries.filter { $0.to == [Delivery.boardID] }.compactMap(\.payload)
    let board = try #require(toBoard.last.map { try ServerMessage.decode($0) })
    guard case .lobby(_, let view) = board else {
      Issue.record("the board got \(board)")
      return
    }
    #expect(view.tournament?.earlier == [LobbyView.TournamentView.listed(roundOne)])
    let followers = deliveries.filter { $0.to != [Delivery.boardID] }.compactMap(\.payload)
    #expect(!followers.isEmpty)
    for payload in followers {
      #expect(!String(decoding: payload, as: UTF8.self).contains("\"earlier\""))
    }
  }
}
