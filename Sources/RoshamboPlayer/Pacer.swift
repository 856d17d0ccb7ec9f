import RoshamboGame
import RoshamboProtocol

/// A client's sending pace as a value: every frame for the server goes through it, and
/// it says which to send now, which wait (and when to ask again), which to send again
/// after the server refused them as `rate_limited`, and which it gave up. It has no clock
/// of its own: times are milliseconds on any clock that only rises, passed in.
///
/// It keeps to the rate the server's `welcome` announced (``Pacer/unannounced`` until
/// then, or from a server that says nothing), with half the announced burst: frames
/// that the network bunches together on their way still fit the server's own burst.
///
/// Invariant: over any span of `t` ms it sends at most `burst + perSecond · t / 1000`
/// frames (its own `burst`, half the announced one), in the order they were submitted
/// (a refused frame going again before those that came after it), and it sends a frame
/// again only for a refusal naming the frame's `id`, at most ``resendLimit`` times.
public struct Pacer: Sendable, Equatable {
  /// What a server that announces nothing is taken to accept: half the limit of every
  /// Roshambo server so far (20 a second, 40 at once).
  public static let unannounced = FrameRate(perSecond: 10, burst: 20)
  /// Times one frame is sent again after refusals; the next refusal gives it up.
  public static let resendLimit = 5
  /// How many frames sent lately are kept to be sent again if refused.
  static let remembered = 64
  /// The most frames a second this pacer ever counts on (an announcement of more, as
  /// from a server without a limit, is taken as this).
  static let fastest = 1_000_000

  /// What to do after an event.
  public struct Output: Equatable, Sendable {
    /// Send these now, in this order.
    public var send: [ClientMessage] = []
    /// Frames wait: call ``tick(now:)`` at this time (nil: nothing waits).
    public var wakeAt: Int64?
    /// Frames refused more than ``resendLimit`` times, not sent again: say so.
    public var givenUp: [ClientMessage] = []

    public init(send: [ClientMessage] = [], wakeAt: Int64? = nil, givenUp: [ClientMessage] = []) {
      self.send = send
      self.wakeAt = wakeAt
      self.givenUp = givenUp
    }
  }

  /// A frame with its place in the order of submission and how often it was refused.
  struct Entry: Equatable, Sendable {
    var message: ClientMessage
    var order: Int
    var refusals: Int
  }

  /// The server's rate, as announced or assumed.
  public private(set) var rate: FrameRate
  /// This pacer's own rate and burst (see the type's comment).
  public var perSecond: Int { min(rate.perSecond, Self.fastest) }
  public var burst: Int { max(1, min(rate.burst, 2 * Self.fastest) / 2) }
  /// Thousandths of a frame that may go now; below zero after refusals (a debt).
  private var credit: Int64
  private var creditAt: Int64
  private var waiting: [Entry] = []
  /// Frames sent with an `id`, newest last, at most ``remembered``.
  private var sent: [Entry] = []
  private var submitted = 0

  /// A pacer for a connection made at `now`, keeping to `rate` (nil: ``unannounced``).
  public init(now: Int64, rate: FrameRate? = nil) {
    self.rate = rate ?? Self.unannounced
    self.creditAt = now
    self.credit = 0
    self.credit = Int64(burst) * 1_000
  }

  /// Frames waiting to be sent.
  public var waitingCount: Int { waiting.count }

  /// The server's `welcome` announced `rate` (nil: it said nothing, so the assumed rate
  /// stays).
  public mutating func announced(_ rate: FrameRate?, now: Int64) -> Output {
    if let rate {
      refill(now)
      // What was sent so far took as much from the server's burst as from the one
      // assumed: the difference between the two is there to send too (or not).
      let assumed = burst
      self.rate = rate
      credit = min(Int64(burst) * 1_000, credit + Int64(burst - assumed) * 1_000)
    }
    return flush(now)
  }

  /// `message` is to go to the server: now, or after those waiting.
  public mutating func submit(_ message: ClientMessage, now: Int64) -> Output {
    waiting.append(Entry(message: message, order: submitted, refusals: 0))
    submitted += 1
    return flush(now)
  }

  /// The server refused the frame whose `id` was `id` as `rate_limited`: it goes again
  /// before those submitted after it, once the server can take it, unless it was refused
  /// too often. Nil when this pacer did not send a frame with that `id` lately (not one
  /// of its own, or already sent again).
  public mutating func refused(re id: Int, now: Int64) -> Output? {
    guard let index = sent.lastIndex(where: { $0.message.id == id }) else { return nil }
    var entry = sent.remove(at: index)
    entry.refusals += 1
    refill(now)
    // The server holds no frame in hand: wait a whole interval, longer each time the same
    // frame is refused.
    credit = min(credit, 0) - Int64(entry.refusals - 1) * 1_000
    guard entry.refusals <= Self.resendLimit else {
      var output = flush(now)
      output.givenUp.append(entry.message)
      return output
    }
    let place = waiting.firstIndex { $0.order > entry.order } ?? waiting.endIndex
    waiting.insert(entry, at: place)
    return flush(now)
  }

  /// The time asked for in ``Output/wakeAt`` came (or any time): what may go now.
  public mutating func tick(now: Int64) -> Output { flush(now) }

  /// The connection was replaced: frames waiting or sent on the old one are forgotten
  /// (the client's state says what to send again), and the new server's rate is not yet
  /// known.
  public mutating func reconnected(now: Int64) {
    refill(now)
    waiting = []
    sent = []
    rate = Self.unannounced
    credit = min(credit, Int64(burst) * 1_000)
  }

  private mutating func refill(_ now: Int64) {
    let cap = Int64(burst) * 1_000
    let elapsed = max(0, now - creditAt)
    creditAt = max(creditAt, now)
    guard credit < cap else { return }
    // Bounded before multiplying: a long quiet spell fills the burst and no more.
    let gained = min(elapsed, cap - credit) * Int64(perSecond)
    credit = min(cap, credit + gained)
  }

  private mutating func flush(_ now: Int64) -> Output {
    refill(now)
    var output = Output()
    while let next = waiting.first, credit >= 1_000 {
      credit -= 1_000
      waiting.removeFirst()
      output.send.append(next.message)
      guard next.message.id != nil else { continue }
      sent.append(next)
      if sent.count > Self.remembered { sent.removeFirst() }
    }
    if !waiting.isEmpty {
      let missing = 1_000 - credit
      output.wakeAt = now + (missing + Int64(perSecond) - 1) / Int64(perSecond)
    }
    return output
  }

  /// A frame given up, in the player's words: "gave up sending your pick for round 3:
  /// the server refused it 6 times as too fast (it takes 20 messages a second)".
  public func givenUpNotice(_ message: ClientMessage) -> String {
    let what: String
    switch message {
    case .choose(let round, _, _): what = "your pick for round \(round)"
    case .commit(let round, _, _): what = "your commitment for round \(round)"
    case .reveal(let round, _, _, _): what = "your reveal for round \(round)"
    case .rematch: what = "your rematch request"
    case .hello: what = "your hello"
    case .leave: what = "your leaving"
    case .ping: what = "a ping"
    case .challenge(let name, _, _, _, _): what = "your challenge to \(name)"
    case .accept: what = "your acceptance of a challenge"
    case .decline: what = "your refusal of a challenge"
    case .enter: what = "your entry to the tournament"
    case .withdraw: what = "your withdrawal from the tournament"
    case .match(let match, _): what = "your request for match \(match)"
    case .lobbyResync: what = "a request for the whole lobby"
    }
    return "gave up sending \(what): the server refused it \(Self.resendLimit + 1) times as "
      + "too fast (it takes \(rate.perSecond) messages a second)"
  }
}
