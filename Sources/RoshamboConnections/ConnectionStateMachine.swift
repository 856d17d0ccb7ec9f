import RoshamboProtocol

/// A client connection's decisions as a value: what the ``ConnectionHandler`` does with
/// each event (connected, TLS done, a frame, a message, silence, a peer that does not
/// read), with the hello deadline, the rate limit and admission decided here and the
/// timers and writes left to the handler (the server's `ConnectionHandler`, or the
/// simulator's virtual network). Its clock is milliseconds, passed in.
///
/// `awaitingHello → joined → closing`; any state may go to `closing`.
///
/// Invariant: nothing but `hello` (and `ping`) is forwarded before `hello`, and nothing
/// at all once closing; every refusal it returns is the contract's error for it; a fatal
/// one, once requests went to the hub, is sent after the hub's answers to them.
public struct ConnectionStateMachine: Sendable {
  public enum State: Equatable, Sendable {
    /// Waiting for TLS and `hello`.
    case awaitingHello
    case joined
    case closing
  }

  /// Whether the connection may stay, decided when it was accepted.
  public enum Admission: Equatable, Sendable {
    case admitted
    /// The server holds its maximum of connections.
    case serverFull
    /// The peer's address holds its maximum of connections.
    case addressFull

    /// The `reason` label of `roshambo_connections_refused_total`.
    public var metricsLabel: String {
      switch self {
      case .admitted: "admitted"
      case .serverFull: "server_full"
      case .addressFull: "address_full"
      }
    }
  }

  public private(set) var state = State.awaitingHello
  private let limits: ConnectionLimits
  private let admission: Admission
  private var bucket: TokenBucket
  /// The bound on refusals of dropped frames: as many a second as frames are taken, so a
  /// flood is answered with no more frames than a client within the rate gets.
  private var refusals: TokenBucket
  /// Frames over the rate in a row.
  private var excess = 0
  /// Whether the stall timer runs (the connection is unwritable).
  private var stalled = false
  /// How long this connection may stay silent: the idle limit, or less for a client that
  /// promised pings in its `hello` (``ClientMessage/keepaliveLimit(for:idleLimit:)``).
  public private(set) var silenceLimitSeconds: Int64
  /// When the last complete frame arrived, ms.
  private var lastFrame: Int64?
  /// The key the client presented in the TLS handshake, if any: its player identity.
  public private(set) var identity: String?

  public init(limits: ConnectionLimits, admission: Admission) {
    self.limits = limits
    self.admission = admission
    self.bucket = TokenBucket(perSecond: limits.framesPerSecond, burst: limits.frameBurst)
    self.refusals = TokenBucket(
      perSecond: limits.framesPerSecond, burst: limits.framesPerSecond)
    self.silenceLimitSeconds = limits.idleTimeoutSeconds
  }

  /// When the silence of a client that promised pings is next worth checking (ms): its
  /// limit after its last frame (nil for a client that promised none: the idle limit, kept by
  /// the pipeline, covers it).
  public var promisedSilenceDeadline: Int64? {
    guard silenceLimitSeconds < limits.idleTimeoutSeconds, state == .joined, let lastFrame
    else { return nil }
    return lastFrame + silenceLimitSeconds * 1_000
  }

  /// A check of a client that promised pings: past its silence limit, the connection is
  /// taken for lost and closed (its seat is then held for the grace period, and others
  /// see it away); otherwise nothing, and the next check is at
  /// ``promisedSilenceDeadline``.
  public mutating func silenceChecked(at now: Int64) -> Action {
    guard let deadline = promisedSilenceDeadline, now >= deadline else { return .none }
    return idle()
  }

  /// What to do: send an error (closing after it when it is fatal), hand a request to
  /// the hub, answer a ping, or nothing.
  public enum Action: Equatable, Sendable {
    case refuse(ProtocolError, re: Int?)
    /// Send a fatal error and close, but through the hub, after what it answers to the
    /// requests it was handed before (a flood closes a connection whose frames inside
    /// the burst are still being answered).
    case refuseAfterAnswers(ProtocolError, re: Int?)
    case forward(ClientMessage)
    case pong(id: Int?)
    case none
  }

  /// The TLS handshake completed, the client presenting `identity` (its key's SHA-256)
  /// or none: a connection over the limits is refused now that it can be told why.
  public mutating func handshakeCompleted(identity: String? = nil) -> Action {
    self.identity = identity
    let message: String
    switch admission {
    case .admitted: return .none
    case .serverFull:
      message =
        "The server has its maximum of \(limits.maxConnections) connections; try again later."
    case .addressFull:
      message =
        "Your address has its maximum of \(limits.maxConnectionsPerAddress) connections to "
        + "this server; close one and try again."
    }
    return refuse(.serverFull(message), re: nil)
  }

  /// The hello deadline passed.
  public mutating func helloTimedOut() -> Action {
    guard state == .awaitingHello else { return .none }
    return refuse(
      .timeout("No hello within \(limits.helloTimeoutSeconds) s of connecting; closing."), re: nil)
  }

  /// No complete frame for the idle limit.
  public mutating func idle() -> Action {
    guard state != .closing else { return .none }
    return refuse(
      .timeout(
        "Nothing came from your program for \(silenceLimitSeconds) s, so the server "
          + "closed the connection; start it again to come back (programs written for "
          + "Roshambo send a ping while they wait)."),
      re: nil)
  }

  /// A frame arrived at `now` (ms). Over the rate it is dropped: the first excess frame is
  /// warned, and so is every later one that carries an `id` while the refusals' own bound
  /// allows (each refusal names the dropped frame's `id` as `re`, so its sender can send
  /// it again); a burst of them closes the connection. Otherwise `decode` reads it (the
  /// result, and the message's `id` if it could be read) and the message is judged.
  public mutating func frameArrived(
    at now: Int64, decode: () -> (Result<ClientMessage, ProtocolError>, Int?)
  ) -> Action {
    guard state != .closing else { return .none }
    lastFrame = now
    guard bucket.take(at: now) else {
      excess += 1
      if excess > limits.frameBurst {
        return refuse(
          .rateLimited(
            "More than \(limits.framesPerSecond) messages per second; slow down. Closing.",
            fatal: true),
          re: nil)
      }
      // Reading a dropped frame for its id is work a flood could ask for: it is done
      // only for a refusal the bound allows.
      guard refusals.take(at: now) || excess == 1 else { return .none }
      let id = decode().1
      guard id != nil || excess == 1 else { return .none }
      return refuse(
        .rateLimited(
          "More than \(limits.framesPerSecond) messages per second; slow down (messages are "
            + "being dropped: this one was, send it again later).", fatal: false),
        re: id)
    }
    excess = 0
    let (result, id) = decode()
    let message: ClientMessage
    switch result {
    case .failure(let error): return refuse(error, re: id)
    case .success(let decoded): message = decoded
    }
    if case .ping(let id) = message { return .pong(id: id) }
    switch (state, message) {
    case (.awaitingHello, .hello):
      state = .joined
      silenceLimitSeconds = ClientMessage.keepaliveLimit(
        for: message.promisedKeepalive, idleLimit: limits.idleTimeoutSeconds)
      return .forward(message)
    case (.awaitingHello, _):
      return refuse(.helloFirst(), re: message.id)
    case (.joined, _):
      return .forward(message)
    case (.closing, _):
      return .none
    }
  }

  /// A fatal error the pipeline raised (a bad frame).
  public mutating func failed(_ error: ProtocolError) -> Action {
    guard state != .closing else { return .none }
    return refuse(error, re: nil)
  }

  public enum WritabilityAction: Equatable, Sendable {
    /// Start the stall timer (once).
    case startStallTimer
    /// Stop it, and send the hub's backlog for this connection.
    case drain
    case none
  }

  public mutating func writabilityChanged(isWritable: Bool) -> WritabilityAction {
    if isWritable {
      stalled = false
      return .drain
    }
    guard !stalled else { return .none }
    stalled = true
    return .startStallTimer
  }

  /// The stall limit passed with the connection still unwritable: close it.
  public mutating func stallTimedOut() -> Bool {
    guard stalled, state != .closing else { return false }
    state = .closing
    return true
  }

  /// The connection is closing or closed.
  public mutating func closed() {
    state = .closing
  }

  private mutating func refuse(_ error: ProtocolError, re: Int?) -> Action {
    guard error.fatal else { return .refuse(error, re: re) }
    let forwarded = state == .joined
    state = .closing
    return forwarded ? .refuseAfterAnswers(error, re: re) : .refuse(error, re: re)
  }
}
