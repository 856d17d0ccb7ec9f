/// The TLS handler's lifecycle as a value: an event goes in, the action the handler must
/// perform comes out (the shape of swift-nio's `NIOTypedHTTPServerUpgraderStateMachine`).
/// It touches no channel and no OpenSSL, so every path is tested without either.
///
/// `idle → handshaking → active → closing → closed`; any state may jump to `closed`.
///
/// Invariant: application data is decrypted and passed up only in `active` and `closing`,
/// and written data is encrypted only in `active`, so nothing moves before the peer has
/// been verified.
struct TLSHandlerStateMachine {
  enum State: Equatable {
    /// Added to a channel that is not active yet.
    case idle
    /// The handshake is under way.
    case handshaking
    /// Application data flows both ways.
    case active
    /// close_notify has been sent or received; the connection is going away.
    case closing
    case closed
  }

  private(set) var state = State.idle
  /// Which side of the handshake this is: a client speaks first, a server answers.
  let role: TLSRole

  init(role: TLSRole) {
    self.role = role
  }

  // MARK: - Start

  enum StartAction: Equatable {
    /// Schedule the handshake timeout and take the first handshake step (a client's
    /// ClientHello).
    case startHandshake
    /// Schedule the handshake timeout; the first handshake step waits for the peer's
    /// first bytes. A server has nothing to say before the ClientHello, and OpenSSL's
    /// first step sets up its handshake buffers (the record write buffer, 16 KB; the
    /// handshake message buffer, 21 KB; the buffering BIO that gathers a flight, 8 KB),
    /// which a connection that has not spoken yet would otherwise hold.
    case awaitPeer
    case none
  }

  /// The channel is active (or the handler joined an active channel).
  mutating func channelActive() -> StartAction {
    guard state == .idle else { return .none }
    state = .handshaking
    return role == .client ? .startHandshake : .awaitPeer
  }

  // MARK: - Inbound

  enum ReadAction: Equatable {
    /// Feed the handshake.
    case stepHandshake
    /// Decrypt what can be decrypted and pass it up.
    case decrypt
    /// Nothing to do with it (not started, or gone).
    case ignore
  }

  /// Ciphertext arrived (it is always handed to OpenSSL first).
  func bytesArrived() -> ReadAction {
    switch state {
    case .handshaking: .stepHandshake
    case .active, .closing: .decrypt
    case .idle, .closed: .ignore
    }
  }

  enum HandshakeAction: Equatable {
    /// Not done: send what OpenSSL produced and wait for the peer.
    case sendOutput
    /// Verified: cancel the timeout, send the last flight, announce it, then decrypt
    /// what came with it and encrypt writes that waited.
    case complete
    /// Cancel the timeout, send the alert that says why, fail pending writes, report
    /// the error and close.
    case fail(TLSError)
    case ignore
  }

  /// A handshake step returned `result`.
  mutating func handshakeStepped(_ result: TLSConnection.StepResult) -> HandshakeAction {
    guard state == .handshaking else { return .ignore }
    switch result {
    case .incomplete:
      return .sendOutput
    case .complete:
      state = .active
      return .complete
    case .failed(let error):
      state = .closed
      return .fail(error)
    }
  }

  enum FailureAction: Equatable {
    /// Fail pending writes, report the error and close.
    case fail(TLSError)
    case ignore
  }

  /// The handshake timeout fired.
  mutating func handshakeTimedOut(seconds: Int64) -> FailureAction {
    guard state == .handshaking else { return .ignore }
    state = .closed
    return .fail(
      TLSError(
        .handshakeTimeout,
        "handshake timeout: TLS setup did not finish within \(seconds) s; the other side may "
          + "not speak TLS on this port, or the network drops packets."))
  }

  /// Decrypting failed (a bad record, an alert): the connection is done.
  mutating func decryptFailed(_ error: TLSError) -> FailureAction {
    guard state != .closed else { return .ignore }
    state = .closed
    return .fail(error)
  }

  enum CloseNotifyAction: Equatable {
    /// Pass up what was read, fail pending writes, answer with close_notify and close.
    case answerAndClose
    case none
  }

  /// The peer sent close_notify.
  mutating func peerSentCloseNotify() -> CloseNotifyAction {
    guard state == .active else { return .none }
    state = .closing
    return .answerAndClose
  }

  enum InactiveAction: Equatable {
    /// Cancel the timeout, fail pending writes with the error, report it.
    case fail(TLSError)
    /// Fail pending writes as written to a closed channel; nothing to report.
    case failWrites
  }

  /// The connection is gone.
  mutating func channelInactive() -> InactiveAction {
    let previous = state
    state = .closed
    switch previous {
    case .handshaking:
      return .fail(
        TLSError(
          .protocolFailure,
          "the peer closed the connection during the TLS handshake; it may not trust this "
            + "side's certificate or TLS settings."))
    case .active:
      return .fail(
        TLSError(
          .truncated,
          "truncated: the peer closed the connection without close_notify, so the last data "
            + "may be cut short (a crash, or a peer that does not close TLS properly)."))
    case .idle, .closing, .closed:
      return .failWrites
    }
  }

  // MARK: - Outbound

  enum WriteAction: Equatable {
    /// Keep it until a flush (and the handshake) lets it go.
    case buffer
    /// The connection is going away: fail it.
    case fail
  }

  func write() -> WriteAction {
    switch state {
    case .closing, .closed: .fail
    case .idle, .handshaking, .active: .buffer
    }
  }

  enum FlushAction: Equatable {
    /// Encrypt the flushed writes and send them as one network write.
    case encrypt
    /// Mark them flushed; they go out when the handshake completes.
    case hold
  }

  func flush() -> FlushAction {
    state == .active ? .encrypt : .hold
  }

  enum CloseAction: Equatable {
    /// Half-close the input below; TLS has nothing to say about it.
    case closeInput
    /// Encrypt what was flushed, send close_notify, then close.
    case sendCloseNotify
    /// Not verified yet: cancel the timeout, fail pending writes, close now.
    case closeNow
    /// Already closing: pass the close on.
    case forward
  }

  mutating func close(input: Bool) -> CloseAction {
    if input { return .closeInput }
    switch state {
    case .active:
      state = .closing
      return .sendCloseNotify
    case .idle, .handshaking:
      state = .closed
      return .closeNow
    case .closing, .closed:
      return .forward
    }
  }
}
