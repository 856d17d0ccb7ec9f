import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// The host sees what happens to people (issue 51, item 15): a connection lost with a seat
/// held, the return, the grace that ran out, an entry withdrawn, a name refused, in
/// sentences on the host's terminal.
@Suite("Hub: the host's news of people")
struct HubHostNewsTests {
  typealias H = HubHarness

  static func news(_ lines: [String]) -> [String] {
    lines.filter { $0.hasPrefix("news ") }.map { String($0.dropFirst(5)) }
  }

  @Test("a seat's connection lost, the return, and a grace that ran out, in people's words")
  func seatHeld() {
    var hub = HubHarness { $0.tellsNews = true }
    let (ann, ben) = (HubNameLimitTests.key(1), HubNameLimitTests.key(2, at: "10.0.0.2"))
    _ = hub.say(ann, H.hello("Ann", room: "den", fair: nil))
    var seated = hub.raw(.received(H.hello("Ben", room: "den", fair: nil), from: ben))
    seated += hub.raw(.timerFired(.flush))
    while hub.pendingCommit != nil {
      hub.pendingCommit = nil
      seated += hub.raw(.committed(.success(()), onJournalThread: false))
    }
    guard case .welcome(_, _, let token?, _)? = H.messages(to: ben, in: seated).first else {
      Issue.record("Ben was not welcomed with a token")
      return
    }
    #expect(
      Self.news(hub.handle(.closed(ben)))
        == ["Ben lost the connection in den: the seat waits 30 s for them"])
    let back = Peer(id: 7, address: "10.0.0.2", identity: ben.identity)
    #expect(Self.news(hub.say(back, H.hello("Ben", resume: token))) == ["Ben is back in den"])
    _ = hub.settle()
    _ = hub.handle(.closed(back))
    let expired = hub.fire(.grace(room: "den", seat: .two))
    #expect(
      Self.news(expired) == [
        "Ben was not back in den within 30 s: the seat is given up",
        "Ann beat Ben by forfeit in den, at 0–0",
      ])
  }

  @Test("a name refused is told, without saying who asked")
  func nameRefused() {
    var hub = HubHarness { $0.tellsNews = true }
    _ = HubNameLimitTests.arrive(&hub, HubNameLimitTests.key(1), as: "Ann")
    let refused = hub.say(HubNameLimitTests.key(2, at: "10.0.0.2"), H.hello("ANN", room: "den"))
    #expect(Self.news(refused) == ["someone was refused the name ANN: another player holds it"])
  }
}
