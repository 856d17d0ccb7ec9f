import RoshamboConnections
import RoshamboGame
import RoshamboProtocol
import Testing

@testable import RoshamboHub

/// A connection's decisions alone: no channel, no hub, no clock but the one passed in.
@Suite("Server: connection state machine")
struct ConnectionStateMachineTests {
  static let hello = ClientMessage.hello(
    protocol: WireProtocol.version, name: "Alice", role: .player, room: "den", resume: nil,
    id: 1)

  func limits(burst: Int = 3) -> ConnectionLimits {
    var limits = ConnectionLimits()
    limits.framesPerSecond = 1
    limits.frameBurst = burst
    return limits
  }

  /// The action for `message` arriving at `at` seconds.
  func arrive(
    _ machine: inout ConnectionStateMachine, _ message: ClientMessage, at seconds: Int64 = 0
  ) -> ConnectionStateMachine.Action {
    machine.frameArrived(at: seconds * 1_000 + 1) {
      (.success(message), message.id)
    }
  }

  func code(_ action: ConnectionStateMachine.Action) -> ErrorCode? {
    switch action {
    case .refuse(let error, _), .refuseAfterAnswers(let error, _): error.code
    default: nil
    }
  }

  @Test("hello first; pings answered whenever; then requests go to the hub")
  func helloFirst() {
    var machine = ConnectionStateMachine(limits: limits(burst: 10), admission: .admitted)
    #expect(arrive(&machine, .ping(id: 5)) == .pong(id: 5))
    let early = arrive(&machine, .choose(round: 1, weapon: .rock, id: 4))
    #expect(early == .refuse(.helloFirst(), re: 4))
    #expect(machine.state == .awaitingHello)
    #expect(arrive(&machine, Self.hello) == .forward(Self.hello))
    #expect(machine.state == .joined)
    let late = machine.helloTimedOut()
    #expect(late == .none)
    #expect(
      arrive(&machine, .choose(round: 1, weapon: .rock, id: 6))
        == .forward(.choose(round: 1, weapon: .rock, id: 6)))
    #expect(arrive(&machine, .ping(id: nil)) == .pong(id: nil))
  }

  @Test("a bad message is refused with its id; a bad frame closes")
  func badInput() {
    var machine = ConnectionStateMachine(limits: limits(burst: 10), admission: .admitted)
    let bad = machine.frameArrived(at: 1) {
      (.failure(.badMessage("no round")), 9)
    }
    #expect(bad == .refuse(.badMessage("no round"), re: 9))
    #expect(machine.state == .awaitingHello)
    let failed = machine.failed(.badFrame("length 0"))
    #expect(code(failed) == .badFrame)
    #expect(machine.state == .closing)
    // Closing: nothing more is read, answered or refused.
    #expect(arrive(&machine, Self.hello) == .none)
    let idle = machine.idle()
    #expect(idle == .none)
  }

  @Test("over the rate: the first excess frame is warned, the rest dropped, a burst closes")
  func rateLimit() {
    var machine = ConnectionStateMachine(limits: limits(burst: 3), admission: .admitted)
    for _ in 0..<3 { #expect(arrive(&machine, .ping(id: 1)) == .pong(id: 1)) }
    guard case .refuse(let warning, _) = arrive(&machine, .ping(id: 1)) else {
      Issue.record("no warning for the first excess frame")
      return
    }
    #expect(warning.code == .rateLimited && !warning.fatal)
    #expect(arrive(&machine, .ping(id: 1)) == .none)
    #expect(arrive(&machine, .ping(id: 1)) == .none)
    guard case .refuse(let last, _) = arrive(&machine, .ping(id: 1)) else {
      Issue.record("no refusal for a burst of excess frames")
      return
    }
    #expect(last.code == .rateLimited && last.fatal)
    #expect(machine.state == .closing)
  }

  @Test("a flood after hello: the fatal refusal goes after the hub's answers to the burst")
  func floodAfterHello() {
    var machine = ConnectionStateMachine(limits: limits(burst: 3), admission: .admitted)
    #expect(arrive(&machine, Self.hello) == .forward(Self.hello))
    let pick = ClientMessage.choose(round: 1, weapon: .rock, id: 2)
    #expect(arrive(&machine, pick) == .forward(pick))
    #expect(arrive(&machine, .ping(id: 3)) == .pong(id: 3))
    #expect(code(arrive(&machine, .ping(id: 4))) == .rateLimited)
    for _ in 0..<2 { #expect(arrive(&machine, .ping(id: 5)) == .none) }
    guard case .refuseAfterAnswers(let last, nil) = arrive(&machine, .ping(id: 6)) else {
      Issue.record("the flood's refusal does not wait for the hub's answers")
      return
    }
    #expect(last.code == .rateLimited && last.fatal)
    #expect(machine.state == .closing)
    #expect(arrive(&machine, pick) == .none)
  }

  @Test("every dropped frame with an id is refused naming it, at most the rate's refusals a second")
  func refusalsNameDroppedFrames() {
    var limits = ConnectionLimits()
    limits.framesPerSecond = 2
    limits.frameBurst = 6
    var machine = ConnectionStateMachine(limits: limits, admission: .admitted)
    func re(_ action: ConnectionStateMachine.Action) -> Int?? {
      guard case .refuse(let error, let re) = action, error.code == .rateLimited, !error.fatal
      else { return nil }
      return .some(re)
    }
    for id in 1...6 { #expect(arrive(&machine, .ping(id: id)) == .pong(id: id)) }
    #expect(re(arrive(&machine, .ping(id: 7))) == 7)
    #expect(re(arrive(&machine, .ping(id: 8))) == 8)
    // Two refusals a second: the third dropped frame in that second goes unanswered.
    #expect(arrive(&machine, .ping(id: 9)) == .none)
    // A second later: two frames are taken, then refusals again, but not for a frame
    // without an id (past the first excess frame, nothing can name it).
    #expect(arrive(&machine, .ping(id: 10), at: 1) == .pong(id: 10))
    #expect(arrive(&machine, .ping(id: 11), at: 1) == .pong(id: 11))
    #expect(re(arrive(&machine, .ping(id: 12), at: 1)) == 12)
    #expect(arrive(&machine, .rematch(id: nil), at: 1) == .none)
    #expect(machine.state == .awaitingHello)
  }

  @Test("a second later the bucket has a token again and the excess count starts over")
  func rateRecovers() {
    var machine = ConnectionStateMachine(limits: limits(burst: 1), admission: .admitted)
    #expect(arrive(&machine, .ping(id: 1), at: 0) == .pong(id: 1))
    #expect(code(arrive(&machine, .ping(id: 2), at: 0)) == .rateLimited)
    #expect(arrive(&machine, .ping(id: 3), at: 1) == .pong(id: 3))
    #expect(code(arrive(&machine, .ping(id: 4), at: 1)) == .rateLimited)
    #expect(machine.state == .awaitingHello)
  }

  @Test("silence: no hello in time, or no frame for the idle limit, closes with timeout")
  func silence() {
    var waiting = ConnectionStateMachine(limits: limits(), admission: .admitted)
    guard case .refuse(let error, nil) = waiting.helloTimedOut() else {
      Issue.record("no timeout for a missing hello")
      return
    }
    #expect(error.code == .timeout && error.fatal && error.message.contains("No hello"))
    #expect(waiting.state == .closing)
    var joined = ConnectionStateMachine(limits: limits(), admission: .admitted)
    _ = arrive(&joined, Self.hello)
    let idle = joined.idle()
    #expect(code(idle) == .timeout)
    // Said to a person, whose client prints it: what happened and what to do.
    guard case .refuseAfterAnswers(let timeout, nil) = idle else {
      Issue.record("a joined connection's fatal refusal goes after the hub's answers")
      return
    }
    #expect(
      timeout.message
        == "Nothing came from your program for 60 s, so the server closed the connection; "
        + "start it again to come back (programs written for Roshambo send a ping while "
        + "they wait).")
  }

  @Test("a connection over the limits is told so once TLS is up")
  func admission() {
    var admitted = ConnectionStateMachine(limits: limits(), admission: .admitted)
    let welcome = admitted.handshakeCompleted()
    #expect(welcome == .none)
    for admission in [ConnectionStateMachine.Admission.serverFull, .addressFull] {
      var machine = ConnectionStateMachine(limits: limits(), admission: admission)
      guard case .refuse(let error, _) = machine.handshakeCompleted() else {
        Issue.record("\(admission) was not refused")
        continue
      }
      #expect(error.code == .serverFull && error.fatal)
      #expect(error.message.contains(admission == .serverFull ? "maximum of" : "Your address"))
    }
  }

  @Test("a peer that does not read: one stall timer; reading again drains; still stalled closes")
  func stall() {
    var machine = ConnectionStateMachine(limits: limits(), admission: .admitted)
    let steps = [
      machine.writabilityChanged(isWritable: false), machine.writabilityChanged(isWritable: false),
      machine.writabilityChanged(isWritable: true),
    ]
    #expect(steps == [.startStallTimer, .none, .drain])
    let closedWhileReading = machine.stallTimedOut()
    #expect(!closedWhileReading)
    let again = machine.writabilityChanged(isWritable: false)
    #expect(again == .startStallTimer)
    let closed = machine.stallTimedOut()
    #expect(closed)
    #expect(machine.state == .closing)
  }
}
