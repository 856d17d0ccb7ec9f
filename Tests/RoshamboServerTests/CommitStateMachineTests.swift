import PropertyBased
import Testing

@testable import RoshamboHub
@testable import RoshamboJournal
@testable import RoshamboServer

/// The save-before-send lifecycle alone: every transition, a failure in each state, and
/// nothing delivered before its own commit, with flights as plain numbers.
@Suite("Server: the commit state machine")
struct CommitStateMachineTests {
  typealias Machine = CommitStateMachine<Int>

  func isIdle(_ machine: Machine) -> Bool {
    if case .idle = machine.state { true } else { false }
  }

  func committing(_ machine: Machine) -> Int? {
    if case .committing(let flight) = machine.state { flight } else { nil }
  }

  func paused(_ machine: Machine) -> Machine.Probe? {
    if case .paused(let probe) = machine.state { probe } else { nil }
  }

  @Test("idle: nothing to commit is sent at once; actions are sealed and committed here first")
  func idle() {
    var machine = Machine()
    #expect(machine.acceptsActions)
    #expect(machine.flushRequested(hasActions: false) == .deliverNow(wakeWaiters: false))
    #expect(isIdle(machine))
    #expect(machine.flushRequested(hasActions: true) == .commitInline)
    machine.sealed(1)
    #expect(committing(machine) == 1)
  }

  @Test("committing: later flushes wait; actions are still accepted (the next batch gathers)")
  func committingWaits() {
    var machine = Machine()
    _ = machine.flushRequested(hasActions: true)
    machine.sealed(1)
    #expect(machine.acceptsActions)
    #expect(machine.flushRequested(hasActions: true) == .wait)
    #expect(machine.flushRequested(hasActions: false) == .wait)
    #expect(committing(machine) == 1)
  }

  @Test("a commit here succeeds: its flight is delivered, then the hub flushes again")
  func committedInline() {
    var machine = Machine()
    _ = machine.flushRequested(hasActions: true)
    machine.sealed(1)
    guard case .deliver(1) = machine.commitSucceeded(onJournalThread: false, hasActions: true)
    else {
      Issue.record("an inline commit is delivered, the next one is committed by the next flush")
      return
    }
    #expect(isIdle(machine))
    #expect(machine.flushRequested(hasActions: true) == .commitInline)
  }

  @Test("a commit on the journal's thread with the next batch waiting: pipelined, then delivered")
  func pipelined() {
    var machine = Machine()
    _ = machine.flushRequested(hasActions: true)
    machine.sealed(1)
    guard
      case .pipeline(deliver: 1) = machine.commitSucceeded(
        onJournalThread: true, hasActions: true)
    else {
      Issue.record("expected the next batch to be handed to the journal's thread first")
      return
    }
    machine.sealed(2)
    #expect(committing(machine) == 2)
    // With nothing waiting, a commit on the thread is just delivered.
    guard case .deliver(2) = machine.commitSucceeded(onJournalThread: true, hasActions: false)
    else {
      Issue.record("expected flight 2 to be delivered")
      return
    }
    #expect(isIdle(machine))
  }

  @Test("a failed commit: its flight comes back, then reloading, paused, probing, resumed")
  func failureAndRecovery() {
    var machine = Machine()
    _ = machine.flushRequested(hasActions: true)
    machine.sealed(7)
    #expect(machine.commitFailed() == 7)
    #expect(!machine.acceptsActions)
    #expect(machine.flushRequested(hasActions: false) == .wait)
    #expect(machine.reloaded() == .scheduleProbe)
    #expect(paused(machine) == .scheduled)
    #expect(!machine.acceptsActions)
    // Paused: errors and closes still go out.
    #expect(machine.flushRequested(hasActions: false) == .deliverNow(wakeWaiters: false))
    #expect(machine.probeDue() == true)
    #expect(paused(machine) == .running)
    #expect(machine.probeDue() == false)
    #expect(machine.probeFinished(succeeded: false) == .scheduleProbe)
    #expect(paused(machine) == .scheduled)
    #expect(machine.probeDue() == true)
    #expect(machine.probeFinished(succeeded: true) == .resume)
    #expect(isIdle(machine))
    #expect(machine.acceptsActions)
  }

  @Test("events that do not belong to the state change nothing")
  func outOfPlace() {
    var machine = Machine()
    #expect(machine.commitFailed() == nil)
    guard case .none = machine.commitSucceeded(onJournalThread: true, hasActions: true) else {
      Issue.record("a success with nothing in flight must do nothing")
      return
    }
    #expect(machine.reloaded() == .none)
    #expect(machine.probeDue() == false)
    #expect(machine.probeFinished(succeeded: true) == .none)
    #expect(isIdle(machine))
    _ = machine.flushRequested(hasActions: true)
    machine.sealed(1)
    #expect(machine.reloaded() == .none)
    #expect(machine.probeDue() == false)
    #expect(committing(machine) == 1)
  }

  @Test("shutdown: at once when idle; else once the flight is delivered; no probe any more")
  func shutdown() {
    var idle = Machine()
    #expect(idle.shutdownRequested() == .finished(cancelProbe: false))

    var busy = Machine()
    _ = busy.flushRequested(hasActions: true)
    busy.sealed(1)
    #expect(busy.shutdownRequested() == .wait(cancelProbe: false))
    _ = busy.commitSucceeded(onJournalThread: false, hasActions: false)
    #expect(busy.flushRequested(hasActions: false) == .deliverNow(wakeWaiters: true))
    #expect(busy.flushRequested(hasActions: false) == .deliverNow(wakeWaiters: false))

    var paused = Machine()
    _ = paused.flushRequested(hasActions: true)
    paused.sealed(1)
    _ = paused.commitFailed()
    _ = paused.reloaded()
    #expect(paused.shutdownRequested() == .finished(cancelProbe: true))
    #expect(paused.probeDue() == false)
    #expect(self.paused(paused) == .stopped)

    // A failure while stopping: reloaded, then no probe.
    var failing = Machine()
    _ = failing.flushRequested(hasActions: true)
    failing.sealed(1)
    #expect(failing.shutdownRequested() == .wait(cancelProbe: false))
    _ = failing.commitFailed()
    #expect(failing.reloaded() == .none)
    #expect(failing.flushRequested(hasActions: false) == .deliverNow(wakeWaiters: true))
  }

  /// The machine driven by random events, as the hub drives it; what it delivers.
  @Test("whatever happens, a flight is delivered only after its own commit succeeded, once")
  func nothingDeliveredBeforeItsCommit() async {
    await propertyCheck(count: 300, input: Gen.int(in: 0...7).array(of: 0...200)) { events in
      var machine = Machine()
      var next = 1
      var committed: Set<Int> = []
      var failed: Set<Int> = []
      var delivered: [Int] = []
      var inFlight: Int?
      func seal() {
        machine.sealed(next)
        inFlight = next
        next += 1
      }
      for event in events {
        switch event {
        case 0, 1:
          if machine.flushRequested(hasActions: event == 1) == .commitInline {
            #expect(machine.acceptsActions)
            seal()
          }
        case 2, 3:
          let success = machine.commitSucceeded(onJournalThread: event == 3, hasActions: true)
          switch success {
          case .none: #expect(inFlight == nil)
          case .deliver(let flight):
            committed.insert(flight)
            delivered.append(flight)
            inFlight = nil
          case .pipeline(let flight):
            committed.insert(flight)
            inFlight = nil
            seal()
            delivered.append(flight)
          }
        case 4:
          let flight = machine.commitFailed()
          #expect(flight == inFlight)
          if let flight {
            failed.insert(flight)
            inFlight = nil
          }
        case 5:
          _ = machine.reloaded()
        case 6:
          if machine.probeDue() { _ = machine.probeFinished(succeeded: events.count % 2 == 0) }
        default:
          _ = machine.shutdownRequested()
        }
        #expect(committing(machine) == inFlight)
        #expect(delivered.allSatisfy(committed.contains))
        #expect(failed.isDisjoint(with: delivered), "a failed flight was delivered")
        #expect(failed.isDisjoint(with: committed))
        #expect(Set(delivered).count == delivered.count)
      }
    }
  }
}
