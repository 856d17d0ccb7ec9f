import RoshamboClient
import Testing

@Suite("Keepalive: when a client pings, and when it takes the server for lost")
struct KeepaliveTests {
  @Test("a ping goes after an interval with nothing sent; anything sent puts it off")
  func pingsWhenQuiet() {
    var keepalive = Keepalive(intervalMillis: 3_000, silenceLimitMillis: 6_000, now: 0)
    #expect(keepalive.step(at: 1_000) == .wait(until: 3_000))
    keepalive.sent(at: 2_000)
    #expect(keepalive.step(at: 3_000) == .wait(until: 5_000))
    #expect(keepalive.step(at: 5_000) == .ping)
    keepalive.pingSent(id: 7)
    #expect(keepalive.ping?.id == 7)
    #expect(keepalive.step(at: 5_001) == .wait(until: 8_000))
  }

  @Test("a pong answers its ping with the round trip; another frame only says the server lives")
  func pongAnswers() {
    var keepalive = Keepalive(intervalMillis: 3_000, silenceLimitMillis: 6_000, now: 0)
    #expect(keepalive.step(at: 3_000) == .ping)
    keepalive.pingSent(id: 1)
    #expect(keepalive.heard(at: 3_100) == nil)
    #expect(keepalive.ping != nil)
    #expect(keepalive.heard(at: 3_200, pong: .some(2)) == nil)
    #expect(keepalive.heard(at: 3_250, pong: .some(1)) == 250)
    #expect(keepalive.ping == nil)
  }

  @Test("silence is lost only with a ping unanswered for an interval, and once per silence")
  func lostOncePerSilence() {
    var keepalive = Keepalive(intervalMillis: 3_000, silenceLimitMillis: 6_000, now: 0)
    // Nothing heard for 3 s but the first ping only now: not lost.
    #expect(keepalive.step(at: 3_000) == .ping)
    #expect(keepalive.step(at: 5_999) == .wait(until: 6_000))
    #expect(keepalive.step(at: 6_000) == .lost(silentMillis: 6_000))
    // The silence starts again: the next check is a ping, not another loss.
    #expect(keepalive.step(at: 6_001) == .ping)
    #expect(keepalive.step(at: 6_002) == .wait(until: 9_001))
    #expect(keepalive.step(at: 9_001) == .ping)
    #expect(keepalive.step(at: 11_999) == .wait(until: 12_001))
    #expect(keepalive.step(at: 12_001) == .lost(silentMillis: 6_001))
  }

  @Test("a server that answers keeps the connection however long nobody sends anything")
  func answeredForever() {
    var keepalive = Keepalive(intervalMillis: 15_000, silenceLimitMillis: 45_000, now: 0)
    var now: Int64 = 0
    var pings = 0
    while now < 3_600_000 {
      switch keepalive.step(at: now) {
      case .ping:
        pings += 1
        keepalive.pingSent(id: nil)
        keepalive.heard(at: now + 40, pong: .some(nil))
      case .lost:
        Issue.record("taken for lost at \(now) ms")
        return
      case .wait(let until):
        #expect(until > now)
        now = until
      }
    }
    // One every 15 s from 15 s to 3,585 s.
    #expect(pings == 239)
  }
}
