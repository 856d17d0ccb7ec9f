import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The lobby's leaderboard through the core alone: whatever order a reading comes in
/// (the journal's, the shared history's), the followers are shown it ranked by rating.
@Suite("Hub: the leaderboard, ranked by rating")
struct HubLeaderboardTests {
  typealias H = HubHarness

  /// Five players as a reading might list them: in no order.
  static let board: [LobbyView.Leader] = [
    .init(
      name: "Newcomer", won: 1, lost: 0, rating: .init(points: 1_662.310894, deviation: 290.318964)),
    .init(name: "Bob", won: 9, lost: 7, rating: .init(points: 1_540.5, deviation: 61.25)),
    .init(
      name: "Alice", won: 12, lost: 3, wonByForfeit: 2,
      rating: .init(points: 1_623.418207, deviation: 57.902114)),
    .init(name: "Carol", won: 9, lost: 7, rating: .init(points: 1_540.5, deviation: 70)),
    .init(name: "Dave", won: 2, lost: 1, rating: .init(points: 1_590, deviation: 180)),
  ]

  /// The flush the reading asked for, which spaces the views (250 ms), then the view's
  /// timer and its flush: the outputs that deliver the view.
  static func nextView(_ hub: inout HubHarness) -> [HubOutput] {
    #expect(hub.flush() == ["schedule lobby-view +250"])
    hub.now += 250
    #expect(hub.handle(.timerFired(.lobbyView)) == ["schedule flush +0"])
    return hub.raw(.timerFired(.flush))
  }

  /// The leaders of the lobby views delivered to Alice in `outputs`, as their wire text.
  static func leaders(in outputs: [HubOutput]) -> [String] {
    H.messages(to: H.alice, in: outputs).compactMap { message in
      guard case .lobby = message else { return nil }
      let text = String(decoding: message.encoded(), as: UTF8.self)
      guard let start = text.range(of: #""leaders":["#),
        let end = text.range(of: #"],"tournament""#)
      else { return nil }
      return String(text[start.upperBound..<end.lowerBound])
    }
  }

  static let ranked =
    #"{"name":"Alice","won":12,"lost":3,"wonByForfeit":2,"rating":1623.418207,"deviation":57.902114,"provisional":false},"#
    + #"{"name":"Bob","won":9,"lost":7,"rating":1540.5,"deviation":61.25,"provisional":false},"#
    + #"{"name":"Carol","won":9,"lost":7,"rating":1540.5,"deviation":70,"provisional":false},"#
    + #"{"name":"Newcomer","won":1,"lost":0,"rating":1662.310894,"deviation":290.318964,"provisional":true},"#
    + #"{"name":"Dave","won":2,"lost":1,"rating":1590,"deviation":180,"provisional":true}"#

  @Test("the journal's reading: shown ranked, settled first, by rating, the surer first")
  func journalReading() {
    var hub = H.following()
    #expect(hub.handle(.standingsRead(.success((Self.board, [])))) == ["schedule flush +0"])
    let outputs = Self.nextView(&hub)
    #expect(outputs.flatMap(hub.describe) == ["→1,2 lobby #2"])
    #expect(Self.leaders(in: outputs) == [Self.ranked])
    #expect(hub.state.feed.leaders.map(\.name) == ["Alice", "Bob", "Carol", "Newcomer", "Dave"])
  }

  @Test("the fleet's reading: shown ranked the same, and kept over the journal's")
  func sharedReading() {
    var hub = H.following()
    #expect(hub.handle(.sharedLeadersRead(Self.board.reversed())) == ["schedule flush +0"])
    let outputs = Self.nextView(&hub)
    #expect(Self.leaders(in: outputs) == [Self.ranked])
    // The journal's own board is read again later: the fleet's stays shown.
    let own = [LobbyView.Leader(name: "Zed", won: 1, lost: 0, rating: .init(.unrated))]
    _ = hub.handle(.standingsRead(.success((own, []))))
    #expect(hub.state.feed.leaders.map(\.name) == ["Alice", "Bob", "Carol", "Newcomer", "Dave"])
  }
}
