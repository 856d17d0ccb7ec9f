import Testing

@testable import RoshamboTLS

/// The TLS handler's decisions alone: no channel, no OpenSSL.
@Suite("TLS handler state machine")
struct TLSHandlerStateMachineTests {
  /// A machine whose handshake has completed.
  func active() -> TLSHandlerStateMachine {
    var machine = TLSHandlerStateMachine(role: .client)
    _ = machine.channelActive()
    _ = machine.handshakeStepped(.complete)
    return machine
  }

  @Test("a connection's life: handshake, data, close_notify, gone")
  func lifecycle() {
    var machine = TLSHandlerStateMachine(role: .client)
    #expect(machine.bytesArrived() == .ignore)
    #expect(machine.write() == .buffer)
    #expect(machine.flush() == .hold)
    #expect(machine.channelActive() == .startHandshake)
    #expect(machine.state == .handshaking)
    #expect(machine.channelActive() == .none)
    #expect(machine.bytesArrived() == .stepHandshake)
    #expect(machine.handshakeStepped(.incomplete) == .sendOutput)
    // Written and flushed during the handshake: held until it completes.
    #expect(machine.write() == .buffer)
    #expect(machine.flush() == .hold)
    #expect(machine.handshakeStepped(.complete) == .complete)
    #expect(machine.state == .active)
    #expect(machine.handshakeStepped(.complete) == .ignore)
    #expect(machine.bytesArrived() == .decrypt)
    #expect(machine.flush() == .encrypt)
    #expect(machine.close(input: false) == .sendCloseNotify)
    #expect(machine.state == .closing)
    #expect(machine.write() == .fail)
    #expect(machine.flush() == .hold)
    #expect(machine.bytesArrived() == .decrypt)
    #expect(machine.close(input: false) == .forward)
    #expect(machine.channelInactive() == .failWrites)
    #expect(machine.state == .closed)
    #expect(machine.bytesArrived() == .ignore)
  }

  @Test("a server steps the handshake when the ClientHello comes; its timeout runs from activation")
  func serverAwaitsClientHello() {
    var machine = TLSHandlerStateMachine(role: .server)
    #expect(machine.bytesArrived() == .ignore)
    #expect(machine.channelActive() == .awaitPeer)
    #expect(machine.state == .handshaking)
    #expect(machine.channelActive() == .none)
    #expect(machine.bytesArrived() == .stepHandshake)
    #expect(machine.handshakeStepped(.incomplete) == .sendOutput)
    #expect(machine.handshakeStepped(.complete) == .complete)
    #expect(machine.state == .active)

    var silent = TLSHandlerStateMachine(role: .server)
    _ = silent.channelActive()
    guard case .fail(let timeout) = silent.handshakeTimedOut(seconds: 10) else {
      Issue.record("no failure for a client that never sent its ClientHello")
      return
    }
    #expect(timeout.kind == .handshakeTimeout)
    #expect(silent.state == .closed)
  }

  @Test("the handshake fails, or times out, or the peer leaves during it")
  func handshakeFailures() {
    let refused = TLSError(.untrustedIssuer, "untrusted issuer")
    var failed = TLSHandlerStateMachine(role: .client)
    _ = failed.channelActive()
    #expect(failed.handshakeStepped(.failed(refused)) == .fail(refused))
    #expect(failed.state == .closed)
    #expect(failed.handshakeTimedOut(seconds: 10) == .ignore)

    var slow = TLSHandlerStateMachine(role: .client)
    _ = slow.channelActive()
    guard case .fail(let timeout) = slow.handshakeTimedOut(seconds: 7) else {
      Issue.record("no failure for a handshake that timed out")
      return
    }
    #expect(timeout.kind == .handshakeTimeout && timeout.message.contains("7 s"))
    #expect(slow.state == .closed)

    var left = TLSHandlerStateMachine(role: .client)
    _ = left.channelActive()
    guard case .fail(let error) = left.channelInactive() else {
      Issue.record("no failure for a peer that left mid-handshake")
      return
    }
    #expect(error.kind == .protocolFailure)
  }

  @Test("a timeout after the handshake changes nothing")
  func lateTimeout() {
    var machine = active()
    #expect(machine.handshakeTimedOut(seconds: 10) == .ignore)
    #expect(machine.state == .active)
  }

  @Test("a peer that vanishes without close_notify is reported as truncated")
  func truncated() {
    var machine = active()
    guard case .fail(let error) = machine.channelInactive() else {
      Issue.record("no failure for a truncated connection")
      return
    }
    #expect(error.kind == .truncated && error.message.contains("close_notify"))
  }

  @Test("close_notify from the peer is answered once")
  func peerCloses() {
    var machine = active()
    #expect(machine.peerSentCloseNotify() == .answerAndClose)
    #expect(machine.state == .closing)
    #expect(machine.peerSentCloseNotify() == .none)
    #expect(machine.write() == .fail)
    #expect(machine.channelInactive() == .failWrites)
  }

  @Test("a record that cannot be decrypted ends the connection once")
  func badRecord() {
    var machine = active()
    let error = TLSError(.protocolFailure, "bad record mac")
    #expect(machine.decryptFailed(error) == .fail(error))
    #expect(machine.state == .closed)
    #expect(machine.decryptFailed(error) == .ignore)
  }

  @Test("closing before the peer is verified closes at once; closing input is not TLS's")
  func earlyClose() {
    var idle = TLSHandlerStateMachine(role: .client)
    #expect(idle.close(input: true) == .closeInput)
    #expect(idle.state == .idle)
    #expect(idle.close(input: false) == .closeNow)
    #expect(idle.state == .closed)
    #expect(idle.channelActive() == .none)

    var handshaking = TLSHandlerStateMachine(role: .client)
    _ = handshaking.channelActive()
    #expect(handshaking.close(input: false) == .closeNow)
    #expect(handshaking.handshakeStepped(.complete) == .ignore)
    #expect(handshaking.state == .closed)
  }
}
