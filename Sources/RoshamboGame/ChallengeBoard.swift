/// The challenges waiting for an answer in the lobby: who challenged whom, on which
/// terms, until when, and whom each person declines for the evening. People are the
/// server's own numbers for them (a connection's) and, for the limits, their identity
/// when they have one, else their address, so the board needs no socket and no clock:
/// time arrives inside actions as `at`.
///
/// Invariants: a person (as ``Person/counted``) has at most ``maxOutgoing`` challenges
/// out and makes at most ``maxPerMinute`` a minute, and an address at most
/// ``maxPerMinutePerAddress``; at most ``maxIncoming`` wait for one
/// person's answer, at most ``maxIncomingPerAddress`` of them from one address; at most
/// one challenge is pending between the same two people; none from someone the one
/// challenged declined for the evening; every challenge leaves the board through
/// exactly one event (accepted, declined, expired or withdrawn), so both sides are told
/// how it ended once; an acceptance is the last event of its action.
public struct ChallengeBoard: Sendable, Equatable {
  /// How long a challenge waits for an answer by default, ms.
  public static let defaultLifetimeMillis: Int64 = 30_000
  /// Challenges one person may have waiting for others' answers.
  public static let maxOutgoing = 3
  /// Challenges that may wait for one person's answer.
  public static let maxIncoming = 5
  /// Challenges that may wait for one person's answer from one address, whatever
  /// identities they come under (identities cost nothing to make).
  public static let maxIncomingPerAddress = 2
  /// Challenges one person may make in any minute.
  public static let maxPerMinute = 10
  /// Challenges one address may make in any minute, whatever identities they come under
  /// (a fresh identity costs nothing; a party behind one NAT shares this).
  public static let maxPerMinutePerAddress = 30

  /// What a challenger asks for.
  public struct Terms: Sendable, Equatable {
    public var bestOf: Int
    public var ruleset: Ruleset.ID
    public var fair: Bool

    public init(bestOf: Int, ruleset: Ruleset.ID, fair: Bool) {
      self.bestOf = bestOf
      self.ruleset = ruleset
      self.fair = fair
    }
  }

  /// Declines for the evening the board keeps in all; past it the oldest is forgotten.
  public static let maxDeclinedForTheEvening = 10_000

  /// Someone in the lobby, as the server numbers and names them.
  public struct Person: Sendable, Equatable {
    public var id: Int
    public var name: String
    /// The player identity the connection presented, if any.
    public var identity: String?
    /// The address it connects from, as the server's per-address limits count it (an
    /// IPv6 address by its /64), if known.
    public var address: String?

    public init(id: Int, name: String, identity: String? = nil, address: String? = nil) {
      self.id = id
      self.name = name
      self.identity = identity
      self.address = address
    }

    /// Whom the limits count, and whom a decline for the evening refuses: the player's
    /// identity when it presented one, so that many connections, or a new one after
    /// leaving, are still one person; else its address, so that connections without an
    /// identity from one address are one person too; else the connection.
    public var counted: String {
      if let identity { return "identity " + identity }
      if let address { return "address " + address }
      return "connection \(id)"
    }

    /// Whose decline for the evening it is: the identity's, kept across its connections
    /// (and restarts: ``Block``); without one, the connection's, which ends with it.
    public var decliner: String { identity.map { "identity " + $0 } ?? "connection \(id)" }

    /// Whom a decline for the evening of this person's challenges refuses: who they are
    /// counted as, and their address too (an IPv6 address by its /64), so that neither a
    /// fresh identity nor a keyless connection from the same machine gets through.
    public var blocked: [String] { [counted] + (addressKey.map { [$0] } ?? []) }

    /// The person's address as the limits count it, when that is not already who they
    /// are counted as (a person without an identity is their address).
    var addressKey: String? {
      guard let address, identity != nil else { return nil }
      return "address " + address
    }
  }

  /// A decline for the evening: `by` (a ``Person/decliner``) refuses every challenge
  /// from `of` (an identity or an address, ``Person/blocked``) made before `at` +
  /// ``eveningMillis``. An identity's are journaled (``LobbyState/blocks``), so that a
  /// restart lifts none.
  public struct Block: Hashable, Sendable {
    public var by: String
    public var of: String
    public var at: Int64

    public init(by: String, of: String, at: Int64) {
      self.by = by
      self.of = of
      self.at = at
    }
  }

  /// How long a decline for the evening lasts: 12 hours.
  public static let eveningMillis: Int64 = 12 * 3_600_000

  private struct Decline: Hashable, Sendable {
    var by: String
    var of: String
  }

  public struct Challenge: Sendable, Equatable, Identifiable {
    public var id: Int
    public var from: Person
    public var to: Person
    public var terms: Terms
    /// When it expires unanswered (ms since 1970).
    public var expiresAt: Int64

    public init(id: Int, from: Person, to: Person, terms: Terms, expiresAt: Int64) {
      self.id = id
      self.from = from
      self.to = to
      self.terms = terms
      self.expiresAt = expiresAt
    }

    /// Whether `person` is either side of it.
    public func involves(_ person: Int) -> Bool { from.id == person || to.id == person }
  }

  public enum Action: Sendable, Equatable {
    case offer(from: Person, to: Person, terms: Terms, at: Int64)
    /// `by` answers challenge `id` (only the one challenged may).
    case accept(id: Int, by: Int)
    case decline(id: Int, by: Int)
    /// `by` declines challenge `id`, and every challenge from its challenger (their
    /// identity and their address) for the evening (``eveningMillis``): those waiting
    /// now end as declined, later ones are refused.
    case block(id: Int, by: Int, at: Int64)
    /// The challenge's time ran out (a timer; stale once it was answered).
    case expire(id: Int, at: Int64)
    /// The person left the lobby (went, or was seated): every challenge of theirs ends.
    case departed(Int)
  }

  /// How a challenge changed; each goes to both sides.
  public enum Event: Sendable, Equatable {
    case offered(Challenge)
    case accepted(Challenge)
    case declined(Challenge)
    case expired(Challenge)
    /// It ended because one side left the lobby (or took another challenge).
    case withdrawn(Challenge)

    public var challenge: Challenge {
      switch self {
      case .offered(let c), .accepted(let c), .declined(let c), .expired(let c),
        .withdrawn(let c):
        c
      }
    }
  }

  /// Pending challenges by id.
  public private(set) var pending: [Int: Challenge] = [:]
  private var nextID = 1
  /// When each person made their challenges of the last minute (at most
  /// ``maxPerMinute`` each; a person with none has no entry).
  private var made: [String: [Int64]] = [:]
  /// The declines for the evening, oldest first, and the same with when each was made,
  /// to look up.
  private var declines: [Decline] = []
  private var declined: [Decline: Int64] = [:]

  /// How long a challenge on this board waits for an answer, ms.
  public let lifetimeMillis: Int64

  public init(lifetimeMillis: Int64 = Self.defaultLifetimeMillis, blocks: [Block] = []) {
    self.lifetimeMillis = lifetimeMillis
    for block in blocks { remember(Decline(by: block.by, of: block.of), at: block.at) }
  }

  /// The declines for the evening `challenge`'s answer with a block makes at `at`.
  public static func blocks(of challenge: Challenge, at: Int64) -> [Block] {
    challenge.from.blocked.map { Block(by: challenge.to.decliner, of: $0, at: at) }
  }

  /// Applies `action` and returns what happened, or why it is refused (and nothing
  /// changed). A timer or departure that finds nothing to end is not refused: it yields
  /// no event.
  public mutating func reduce(_ action: Action) -> Result<[Event], Refusal> {
    switch action {
    case .offer(let from, let to, let terms, let at):
      if let refusal = refusal(from: from, to: to, at: at) { return .failure(refusal) }
      let challenge = Challenge(
        id: nextID, from: from, to: to, terms: terms, expiresAt: at + lifetimeMillis)
      nextID += 1
      pending[challenge.id] = challenge
      if made.count >= 4_096 { made = made.filter { at - ($0.value.last ?? at) < 60_000 } }
      made[from.counted] = recent(from.counted, at: at) + [at]
      if let address = from.addressKey { made[address] = recent(address, at: at) + [at] }
      return .success([.offered(challenge)])
    case .accept(let id, let by):
      guard let challenge = pending[id], challenge.to.id == by else {
        return .failure(.noSuchChallenge(id))
      }
      pending[id] = nil
      // Both go to play: whatever else they had pending ends, told first, while both
      // still follow the lobby; the acceptance comes last, right before they are seated.
      return .success(
        withdraw { $0.involves(challenge.from.id) || $0.involves(by) } + [.accepted(challenge)])
    case .decline(let id, let by):
      guard let challenge = pending[id], challenge.to.id == by else {
        return .failure(.noSuchChallenge(id))
      }
      pending[id] = nil
      return .success([.declined(challenge)])
    case .block(let id, let by, let at):
      guard let challenge = pending[id], challenge.to.id == by else {
        return .failure(.noSuchChallenge(id))
      }
      for block in Self.blocks(of: challenge, at: at) {
        remember(Decline(by: block.by, of: block.of), at: at)
      }
      // Whatever else waits from the same challenger for this person ends the same way.
      let blocked = Set(challenge.from.blocked)
      let ended = pending.values.filter {
        $0.to.id == by && !blocked.isDisjoint(with: $0.from.blocked)
      }.sorted { $0.id < $1.id }
      for challenge in ended { pending[challenge.id] = nil }
      return .success(ended.map { .declined($0) })
    case .expire(let id, let at):
      guard let challenge = pending[id], at >= challenge.expiresAt else { return .success([]) }
      pending[id] = nil
      return .success([.expired(challenge)])
    case .departed(let person):
      // A connection's count goes with it; an identity's stays, whatever it reconnects.
      made["connection \(person)"] = nil
      // So do the declines of a person without an identity.
      if declines.contains(where: { $0.by == "connection \(person)" }) {
        declines.removeAll { $0.by == "connection \(person)" }
        declined = declined.filter { $0.key.by != "connection \(person)" }
      }
      return .success(withdraw { $0.involves(person) })
    }
  }

  /// Why `from` may not challenge `to` now, or nil.
  private func refusal(from: Person, to: Person, at: Int64) -> Refusal? {
    if from.id == to.id { return .noSuchPlayer("You cannot challenge yourself.") }
    for key in from.blocked {
      if let since = declined[Decline(by: to.decliner, of: key)], at - since < Self.eveningMillis {
        return .busy("\(to.name) declines your challenges for this evening.")
      }
    }
    let recent = recent(from.counted, at: at)
    if recent.count >= Self.maxPerMinute {
      let wait = (recent[0] + 60_000 - at + 999) / 1_000
      return .challengeLimit(
        "You made \(Self.maxPerMinute) challenges in the last minute; wait \(wait) s.")
    }
    if let address = from.addressKey {
      let fromAddress = self.recent(address, at: at)
      if fromAddress.count >= Self.maxPerMinutePerAddress {
        let wait = (fromAddress[0] + 60_000 - at + 999) / 1_000
        return .challengeLimit(
          "Many challenges came from your address in the last minute; wait \(wait) s.")
      }
    }
    let open = pending.values
    // The earliest of them, not the first the dictionary holds: the wording is then the
    // same whatever the process's hashing.
    let same = open.filter { $0.from.counted == from.counted && $0.to.id == to.id }
      .min { $0.id < $1.id }
    if let same {
      return .challengeLimit(
        same.from.id == from.id || from.identity != nil
          ? "You already challenged \(to.name); wait for the answer."
          : "Someone at your address already challenged \(to.name); wait for the answer.")
    }
    if open.contains(where: { $0.from.id == to.id && $0.to.id == from.id }) {
      return .challengeLimit("\(to.name) already challenged you: accept that challenge.")
    }
    if open.count(where: { $0.from.counted == from.counted }) >= Self.maxOutgoing {
      return .challengeLimit(
        "You have \(Self.maxOutgoing) challenges waiting for an answer; wait for one.")
    }
    if let address = from.address,
      open.count(where: { $0.to.id == to.id && $0.from.address == address })
        >= Self.maxIncomingPerAddress
    {
      return .challengeLimit(
        "\(to.name) has \(Self.maxIncomingPerAddress) challenges from your address to answer "
          + "already; wait for an answer.")
    }
    if open.count(where: { $0.to.id == to.id }) >= Self.maxIncoming {
      return .busy("\(to.name) has \(Self.maxIncoming) challenges to answer already; try later.")
    }
    return nil
  }

  /// Keeps `decline` made at `at`, forgetting the oldest past
  /// ``maxDeclinedForTheEvening``.
  private mutating func remember(_ decline: Decline, at: Int64) {
    if declined.updateValue(at, forKey: decline) != nil {
      declines.removeAll { $0 == decline }
    }
    declines.append(decline)
    if declines.count > Self.maxDeclinedForTheEvening {
      declined[declines.removeFirst()] = nil
    }
  }

  /// When `person` made the challenges of the minute before `at`.
  private func recent(_ person: String, at: Int64) -> [Int64] {
    (made[person] ?? []).filter { at - $0 < 60_000 }
  }

  /// Removes every pending challenge `matching` says, as `withdrawn` events in id order.
  private mutating func withdraw(_ matching: (Challenge) -> Bool) -> [Event] {
    let ended = pending.values.filter(matching).sorted { $0.id < $1.id }
    for challenge in ended { pending[challenge.id] = nil }
    return ended.map { .withdrawn($0) }
  }
}
