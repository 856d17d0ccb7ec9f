import RoshamboClient
import RoshamboGame
import Testing

/// Paging back through the evening's matches from the lobby (issue 51, item 13): the
/// view lists the newest 6; moving past the last asks the server for the records of the
/// 6 before them, which join the list, until the server has none older.
@Suite("The lobby screen: older matches")
struct LobbyOlderMatchesTests {
  static func recent(_ id: Int64) -> LobbyView.Recent {
    .init(
      id: id, room: "duel-\(id)", players: ["Ann", "Bob"], scores: [2, 1], winner: .one,
      fair: false)
  }

  /// A lobby whose view lists matches 20 down to 15, on the recent pane, the last one
  /// (15) selected.
  func atTheLast() -> LobbyScreenState {
    var state = LobbyScreenState(me: "Ann")
    let reducer = LobbyScreenReducer()
    var view = LobbyView(
      people: [.init(name: "Ann", status: .idle, room: nil, takesChallenges: true)],
      peopleCount: 1, rooms: [], roomCount: 0, leaders: [])
    view.recent = (15...20 as ClosedRange<Int64>).reversed().map(Self.recent)
    reducer.reduce(into: &state, action: .viewed(view))
    reducer.reduce(into: &state, action: .switchPane)
    reducer.reduce(into: &state, action: .switchPane)
    reducer.reduce(into: &state, action: .move(10))
    return state
  }

  @Test("moving past the last asks for the 6 before it; their answers join the list")
  func pagesBack() {
    var state = atTheLast()
    let reducer = LobbyScreenReducer()
    #expect(state.pane == .recent && state.selectedMatch == 15)
    #expect(state.olderToAsk.isEmpty, "nothing asked before moving past the last")
    reducer.reduce(into: &state, action: .move(1))
    #expect(state.olderToAsk == [14, 13, 12, 11, 10, 9])
    reducer.reduce(into: &state, action: .askedOlder(state.olderToAsk))
    #expect(state.olderToAsk.isEmpty, "asked once")
    for id in (9...14 as ClosedRange<Int64>).reversed() {
      reducer.reduce(into: &state, action: .olderMatch(Self.recent(id)))
    }
    #expect(state.recentMatches.map(\.id) == Array((9...20).reversed()))
    // All in: the selection goes on to the next, as the move asked.
    #expect(state.selectedMatch == 14)
    // The list on the screen shows them.
    let lines = LobbyScreenRenderer(width: 80, height: 40, color: false).lines(for: state)
    #expect(lines.contains { $0.contains("#9 duel-9") }, "\(lines)")
  }

  @Test("the server has none older: nothing more is asked")
  func endOfHistory() {
    var state = atTheLast()
    let reducer = LobbyScreenReducer()
    reducer.reduce(into: &state, action: .move(1))
    let asked = state.olderToAsk
    reducer.reduce(into: &state, action: .askedOlder(asked))
    reducer.reduce(into: &state, action: .olderMatch(Self.recent(14)))
    for id in (9...13 as ClosedRange<Int64>).reversed() {
      reducer.reduce(into: &state, action: .olderMissing(id, noMore: true))
    }
    #expect(state.recentMatches.map(\.id).last == 14)
    reducer.reduce(into: &state, action: .move(5))
    #expect(state.selectedMatch == 14)
    #expect(state.olderToAsk.isEmpty)
    #expect(state.notice == "No older matches on this server.")
  }
}
