import RoshamboClient
import RoshamboGame
import RoshamboProtocol
import Testing

/// The pacer alone: no socket, no clock but the milliseconds passed in.
@Suite("Client: pacer")
struct PacerTests {
  static let server = FrameRate(perSecond: 20, burst: 40)

  func pick(_ id: Int, round: Int = 1) -> ClientMessage {
    .choose(round: round, weapon: .rock, id: id)
  }

  /// Ticks `pacer` whenever it asks until nothing waits, returning each frame with the
  /// time it went.
  func drain(_ pacer: inout Pacer, from output: Pacer.Output, at now: Int64) -> [(Int64, Int?)] {
    var sent = output.send.map { (now, $0.id) }
    var wake = output.wakeAt
    while let at = wake {
      let next = pacer.tick(now: at)
      sent += next.send.map { (at, $0.id) }
      wake = next.wakeAt
    }
    return sent
  }

  @Test("a burst never exceeds the announced rate: half its burst at once, then one per interval")
  func burstKeepsTheRate() {
    var pacer = Pacer(now: 0)
    _ = pacer.announced(Self.server, now: 0)
    var first = Pacer.Output()
    var atOnce: [(Int64, Int?)] = []
    for id in 1...100 {
      first = pacer.submit(pick(id), now: 0)
      atOnce += first.send.map { (0, $0.id) }
    }
    #expect(pacer.burst == 20 && pacer.perSecond == 20)
    #expect(first.wakeAt == 50)
    let sent = atOnce + drain(&pacer, from: Pacer.Output(wakeAt: first.wakeAt), at: 0)
    #expect(sent.count == 100)
    #expect(sent.map(\.1) == Array(1...100), "in the order submitted")
    #expect(sent.filter { $0.0 == 0 }.count == 20)
    #expect(sent[20].0 == 50 && sent[21].0 == 100 && sent.last?.0 == 4_000)
    // Over any span, no more than the burst and the rate allow.
    var over: [(Int64, Int64, Int)] = []
    for (index, (start, _)) in sent.enumerated() {
      for (end, _) in sent[index...] {
        let inSpan = sent.filter { $0.0 >= start && $0.0 <= end }.count
        if Int64(inSpan) > 20 + 20 * (end - start) / 1_000 { over.append((start, end, inSpan)) }
      }
    }
    #expect(over.isEmpty, "spans over the rate: \(over.prefix(3))")
  }

  @Test("without an announcement: 10 a second, 10 at once; a quiet spell refills no more than that")
  func unannounced() {
    var pacer = Pacer(now: 0)
    var output = Pacer.Output()
    for id in 1...15 { output = pacer.submit(pick(id), now: 0) }
    #expect(pacer.waitingCount == 5)
    #expect(output.wakeAt == 100)
    let later = pacer.tick(now: 250)
    #expect(later.send.map(\.id) == [11, 12])
    #expect(later.wakeAt == 300)
    // A minute of quiet: the burst again, not a minute's worth.
    _ = drain(&pacer, from: later, at: 250)
    var quiet = Pacer.Output()
    var sentAfterQuiet = 0
    for id in 100..<130 {
      quiet = pacer.submit(pick(id), now: 60_000)
      sentAfterQuiet += quiet.send.count
    }
    #expect(sentAfterQuiet == 10)
    #expect(quiet.wakeAt == 60_100)
  }

  @Test("a refused frame is sent again, before those submitted after it, an interval later")
  func refusedIsSentAgain() {
    var pacer = Pacer(now: 0, rate: FrameRate(perSecond: 20, burst: 4))
    var output = Pacer.Output()
    var sent: [Int?] = []
    for id in 1...3 {
      output = pacer.submit(pick(id), now: 0)
      sent += output.send.map(\.id)
    }
    #expect(sent == [1, 2])
    #expect(output.wakeAt == 50)
    // The server dropped frame 1: it goes again before 3, once the server has room.
    let refused = pacer.refused(re: 1, now: 10)
    #expect(refused == Pacer.Output(send: [], wakeAt: 60))
    #expect(pacer.tick(now: 60) == Pacer.Output(send: [pick(1)], wakeAt: 110))
    #expect(pacer.tick(now: 110) == Pacer.Output(send: [pick(3)]))
    // Not ours, or already sent again and not refused since: nothing to do.
    #expect(pacer.refused(re: 99, now: 120) == nil)
    #expect(pacer.refused(re: 2, now: 120) != nil)
    #expect(pacer.refused(re: 2, now: 130) == nil)
  }

  @Test("a frame refused again and again waits longer each time, and is given up after the bound")
  func givesUp() {
    var pacer = Pacer(now: 0, rate: Self.server)
    #expect(pacer.submit(pick(7, round: 3), now: 0).send == [pick(7, round: 3)])
    var now: Int64 = 0
    for attempt in 1...Pacer.resendLimit {
      let output = pacer.refused(re: 7, now: now)
      #expect(output?.send == [])
      #expect(output?.givenUp == [])
      // One interval (50 ms) for the first refusal, one more for each after it.
      #expect(output?.wakeAt == now + 50 * Int64(attempt), "attempt \(attempt)")
      now = output?.wakeAt ?? now
      #expect(pacer.tick(now: now).send == [pick(7, round: 3)])
    }
    let last = pacer.refused(re: 7, now: now)
    #expect(last == Pacer.Output(send: [], wakeAt: nil, givenUp: [pick(7, round: 3)]))
    #expect(pacer.refused(re: 7, now: now) == nil)
    #expect(
      pacer.givenUpNotice(pick(7, round: 3))
        == "gave up sending your pick for round 3: the server refused it 6 times as too fast "
        + "(it takes 20 messages a second)")
    #expect(pacer.givenUpNotice(.rematch(id: 8)).hasPrefix("gave up sending your rematch request:"))
  }

  @Test("frames without an id are paced but never sent again")
  func noIDNoResend() {
    var pacer = Pacer(now: 0)
    #expect(pacer.submit(.leave(id: nil), now: 0).send == [.leave(id: nil)])
    #expect(pacer.refused(re: 0, now: 1) == nil)
  }

  @Test("a new connection forgets what waited and what was sent, and the rate announced")
  func reconnected() {
    var pacer = Pacer(now: 0, rate: FrameRate(perSecond: 20, burst: 2))
    _ = pacer.submit(pick(1), now: 0)
    _ = pacer.submit(pick(2), now: 0)
    #expect(pacer.waitingCount == 1)
    pacer.reconnected(now: 10)
    #expect(pacer.waitingCount == 0)
    #expect(pacer.rate == Pacer.unannounced)
    #expect(pacer.refused(re: 1, now: 10) == nil)
  }

  @Test("an announcement counts what the server's larger burst leaves; no limit is as good as none")
  func announcement() {
    var pacer = Pacer(now: 0)
    for id in 1...10 { _ = pacer.submit(pick(id), now: 0) }
    #expect(pacer.submit(pick(11), now: 0).send == [])
    // 20 at once against the 10 assumed: ten more may go now (the waiting one first).
    let announced = pacer.announced(Self.server, now: 0)
    #expect(announced.send == [pick(11)])
    var now = Pacer.Output()
    for id in 12...20 { now = pacer.submit(pick(id), now: 0) }
    #expect(now.send == [pick(20)] && now.wakeAt == nil)
    #expect(pacer.submit(pick(21), now: 0).wakeAt == 50)
    // A server without a limit (the arena's own) announces the largest numbers there are.
    var unlimited = Pacer(now: 0)
    _ = unlimited.announced(FrameRate(perSecond: .max, burst: .max), now: 0)
    var sent = 0
    for id in 1...10_000 { sent += unlimited.submit(pick(id), now: 1).send.count }
    #expect(sent == 10_000)
  }
}
