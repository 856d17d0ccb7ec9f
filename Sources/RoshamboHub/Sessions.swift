import RoshamboGame

/// Who is connected where: each joined connection's room and seat, each room's audience
/// (a connection per seat, the spectators), and the lobby's followers; found by
/// connection, by room, or by name, each in time independent of how many are connected.
///
/// Invariants: a connection is in a room's audience exactly when it is a member of that
/// room; a room with nobody in its audience has no entry; a follower is in no room. The
/// name indexes hold exactly what a scan of the members and followers would find
/// (``indexMismatch()`` checks it). What changed since the last ``takeChanges()`` can be
/// undone (``reverted(by:)``) without a copy of the rest having been kept.
struct Sessions {
  /// A connection that goes by a name, kept in one of the name indexes.
  protocol Named {
    var name: String { get }
    var identity: String? { get }
    /// The name index it is kept in.
    var index: WritableKeyPath<Sessions, NameIndex> { get }
  }

  struct Member: Equatable, Named {
    var link: Peer
    var room: String
    var seat: Seat?
    /// What the lobby stores for this player's resume token (players only).
    var token: String?
    /// The resume token itself, as the player was given it (players only; never stored):
    /// sent again in the `welcome` when quick match moves the player to another room.
    var resumeToken: String?
    /// The name they joined under (a player's is also its seat's).
    var name: String
    /// The player identity the connection presented, if any.
    var identity: String? = nil
    /// Whether it takes `lobbyPatch` messages after its first view (its `hello` said so).
    var takesPatches = false

    /// Players seated, or spectators.
    var index: WritableKeyPath<Sessions, NameIndex> { seat != nil ? \.seated : \.watching }
  }

  /// A connection following the lobby.
  struct Follower: Equatable, Named {
    var link: Peer
    var name: String
    /// Whether it can be challenged and seated from the lobby (its `hello` said so).
    var takesChallenges = false
    /// Whether it can play a fair room (its `hello` said `fair`).
    var playsFair = false
    /// The player identity the connection presented, if any.
    var identity: String? = nil
    /// Whether it takes `lobbyPatch` messages after its first view (its `hello` said so).
    var takesPatches = false

    /// Those who can be challenged, or looks.
    var index: WritableKeyPath<Sessions, NameIndex> { takesChallenges ? \.challengers : \.looks }
  }

  struct Audience: Equatable {
    var seats: [Seat: Peer] = [:]
    var spectators: Set<Peer> = []
  }

  /// What each connection and room touched since the last ``takeChanges()`` was before
  /// its first change then (nil: it was not there). Applying it puts them back.
  struct Changes {
    fileprivate var members: [Int: Member?] = [:]
    fileprivate var followers: [Int: Follower?] = [:]
    fileprivate var audiences: [String: Audience?] = [:]
    fileprivate var seatAddresses: [String: [Seat: String]?] = [:]
  }

  private(set) var members: [Int: Member] = [:]
  private(set) var followers: [Int: Follower] = [:]
  private var audiences: [String: Audience] = [:]
  /// The address each seat of a room was last taken from: kept when its connection
  /// drops, so that a match a seat forfeits is judged by it (``RatingRule``), until the
  /// room closes.
  private var seatAddresses: [String: [Seat: String]] = [:]
  /// Seated players, spectators, followers who can be challenged and looks at the lobby,
  /// each by name and identity: who goes by a name is found without looking at everyone.
  private var seated = NameIndex()
  private var watching = NameIndex()
  private var challengers = NameIndex()
  private var looks = NameIndex()
  private var changes = Changes()

  subscript(id: Int) -> Member? { members[id] }

  func audience(of room: String) -> Audience? { audiences[room] }

  /// The address `seat` of `room` was last taken from, while the room is open.
  func address(of seat: Seat, in room: String) -> String? { seatAddresses[room]?[seat] }

  /// `room` closed: what was kept of its seats goes.
  mutating func forgetSeats(of room: String) {
    guard seatAddresses[room] != nil else { return }
    changeSeatAddresses(of: room) { $0 = [:] }
  }

  /// `link` now holds `seat` in `room` (a connection that held it before is replaced).
  mutating func attach(
    _ link: Peer, room: String, seat: Seat, name: String, token: String,
    resumeToken: String, identity: String? = nil
  ) {
    let identity = identity ?? members[link.id]?.identity ?? followers[link.id]?.identity
    setMember(
      link.id,
      Member(
        link: link, room: room, seat: seat, token: token, resumeToken: resumeToken, name: name,
        identity: identity))
    changeAudience(of: room) { $0.seats[seat] = link }
    if seatAddresses[room]?[seat] != link.address {
      changeSeatAddresses(of: room) { $0[seat] = link.address }
    }
  }

  mutating func attachSpectator(
    _ link: Peer, room: String, name: String, identity: String? = nil
  ) {
    setMember(
      link.id,
      Member(link: link, room: room, seat: nil, token: nil, name: name, identity: identity))
    changeAudience(of: room) { $0.spectators.insert(link) }
  }

  /// Takes the connection out of its room; returns what it was.
  @discardableResult
  mutating func remove(_ id: Int) -> Member? {
    guard let member = members[id] else { return nil }
    setMember(id, nil)
    let link = member.link
    changeAudience(of: member.room) { audience in
      if let seat = member.seat {
        if audience.seats[seat] == link { audience.seats[seat] = nil }
      } else {
        audience.spectators.remove(link)
      }
    }
    return member
  }

  mutating func follow(
    _ link: Peer, name: String, takesChallenges: Bool = false, playsFair: Bool = false,
    identity: String? = nil, takesPatches: Bool = false
  ) {
    follow(
      Follower(
        link: link, name: name, takesChallenges: takesChallenges, playsFair: playsFair,
        identity: identity, takesPatches: takesPatches))
  }

  /// `follower` follows the lobby (again).
  mutating func follow(_ follower: Follower) {
    setFollower(follower.link.id, follower)
  }

  /// Stops the connection following the lobby; returns whether it did.
  @discardableResult
  mutating func unfollow(_ id: Int) -> Bool {
    guard followers[id] != nil else { return false }
    setFollower(id, nil)
    return true
  }

  // MARK: - By name

  /// Whether someone here other than `identity` uses `name` (any case) where a name
  /// acts: a follower of the lobby who can be challenged and, when `countingSeated`, a
  /// player seated under it. Spectators' names are only shown, and a look at the lobby
  /// acts on nothing. For a connection without an identity, whether anyone does.
  func isUsed(_ name: String, byAnyoneBut identity: String?, countingSeated: Bool) -> Bool {
    challengers.hasAnyoneBut(identity, named: name)
      || countingSeated && seated.hasAnyoneBut(identity, named: name)
  }

  /// Whether a connection is seated as a player under `name` (in any case).
  func isSeated(_ name: String) -> Bool { seated.contains(named: name) }

  /// The followers named exactly `name` (presenting `identity`, when given), in the
  /// order they arrived.
  func followers(named name: String, identity: String?? = nil) -> [Follower] {
    Self.entries(of: followers, in: [challengers, looks], named: name, identity: identity)
  }

  /// The members (players and spectators) named exactly `name` (presenting `identity`,
  /// when given), in the order they arrived.
  func members(named name: String, identity: String?? = nil) -> [Member] {
    Self.entries(of: members, in: [seated, watching], named: name, identity: identity)
  }

  /// The entries of `all` that `indexes` hold under `name` (presenting `identity`, when
  /// given), named exactly so, by connection number.
  private static func entries<Entry: Named>(
    of all: [Int: Entry], in indexes: [NameIndex], named name: String, identity: String??
  ) -> [Entry] {
    let ids = indexes.flatMap { index in
      identity.map { index.ids(named: name, identity: $0) } ?? index.ids(named: name)
    }
    return ids.sorted().compactMap { all[$0] }.filter { $0.name == name }
  }

  /// The follower named `name` who takes challenges (the first to arrive, when several
  /// share the name), else why nobody by that name can be challenged.
  func challengeable(named name: String) -> Result<Follower, Refusal> {
    if let first = challengers.ids(named: name).lazy.compactMap({ self.followers[$0] })
      .first(where: { $0.name == name })
    {
      return .success(first)
    }
    if looks.ids(named: name).contains(where: { followers[$0]?.name == name }) {
      return .failure(.busy("\(name) is only looking at the lobby and cannot take challenges."))
    }
    if let member = members(named: name).first {
      return .failure(
        .busy("\(name) is in room \(member.room); challenge them when they are back."))
    }
    return .failure(.noSuchPlayer("Nobody named \(name) is in the lobby."))
  }

  // MARK: - Undoing what a failed commit gathered

  /// What changed since the last call, to be undone if the batch it went with fails; from
  /// now on changes are counted anew.
  mutating func takeChanges() -> Changes {
    defer { changes = Changes() }
    return changes
  }

  /// These sessions as they were before `undone` (newest first) and what changed since
  /// the last ``takeChanges()``. Costs what those changes touched, not what is connected.
  func reverted(by undone: [Changes]) -> Sessions {
    var before = self
    for step in [changes] + undone {
      for (id, member) in step.members { before.setMember(id, member) }
      for (id, follower) in step.followers { before.setFollower(id, follower) }
      for (room, audience) in step.audiences { before.audiences[room] = audience }
      for (room, addresses) in step.seatAddresses { before.seatAddresses[room] = addresses }
    }
    before.changes = Changes()
    return before
  }

  // MARK: - The only writes

  private mutating func setMember(_ id: Int, _ member: Member?) {
    let old = members[id]
    if changes.members.index(forKey: id) == nil { changes.members[id] = .some(old) }
    members[id] = member
    reindex(id, from: old, to: member)
  }

  private mutating func setFollower(_ id: Int, _ follower: Follower?) {
    let old = followers[id]
    if changes.followers.index(forKey: id) == nil { changes.followers[id] = .some(old) }
    followers[id] = follower
    reindex(id, from: old, to: follower)
  }

  /// Connection `id` was `old` and is now `new`: the name indexes follow.
  private mutating func reindex<Entry: Named>(_ id: Int, from old: Entry?, to new: Entry?) {
    if let old { self[keyPath: old.index].remove(id, name: old.name, identity: old.identity) }
    if let new { self[keyPath: new.index].insert(id, name: new.name, identity: new.identity) }
  }

  /// Changes `room`'s audience; one left empty goes.
  private mutating func changeAudience(of room: String, _ change: (inout Audience) -> Void) {
    if changes.audiences.index(forKey: room) == nil {
      changes.audiences[room] = .some(audiences[room])
    }
    var audience = audiences.removeValue(forKey: room) ?? Audience()
    change(&audience)
    if !audience.seats.isEmpty || !audience.spectators.isEmpty { audiences[room] = audience }
  }

  /// Changes what is kept of `room`'s seats' addresses; an empty record goes.
  private mutating func changeSeatAddresses(
    of room: String, _ change: (inout [Seat: String]) -> Void
  ) {
    if changes.seatAddresses.index(forKey: room) == nil {
      changes.seatAddresses[room] = .some(seatAddresses[room])
    }
    var addresses = seatAddresses.removeValue(forKey: room) ?? [:]
    change(&addresses)
    if !addresses.isEmpty { seatAddresses[room] = addresses }
  }

  // MARK: - Checking

  /// What differs between the indexes and what a scan of everyone finds, or nil when
  /// nothing does. For tests and the simulator: it looks at every connection.
  func indexMismatch() -> String? {
    var scanned = Sessions()
    for (id, member) in members { scanned.setMember(id, member) }
    for (id, follower) in followers { scanned.setFollower(id, follower) }
    for (name, index) in [
      ("seated players", \Sessions.seated), ("spectators", \.watching),
      ("followers who can be challenged", \.challengers), ("looks", \.looks),
    ] where self[keyPath: index] != scanned[keyPath: index] {
      return "\(name) by name: \(self[keyPath: index].buckets), a scan: "
        + "\(scanned[keyPath: index].buckets)"
    }
    for (id, member) in members {
      let audience = audiences[member.room]
      let inIt =
        member.seat.map { audience?.seats[$0] == member.link }
        ?? (audience?.spectators.contains(member.link) ?? false)
      // A seat a newer connection took over leaves the older member out of the audience.
      if !inIt, member.seat == nil { return "spectator \(id) is not in \(member.room)'s audience" }
    }
    for (room, audience) in audiences {
      if audience.seats.isEmpty, audience.spectators.isEmpty {
        return "room \(room) has an empty audience"
      }
      for link in Array(audience.seats.values) + Array(audience.spectators)
      where members[link.id]?.room != room {
        return "connection \(link.id) is in \(room)'s audience but not a member of it"
      }
    }
    return nil
  }
}

extension Sessions: Equatable {
  /// Who is connected where; the indexes follow from it and the changes are bookkeeping.
  static func == (lhs: Sessions, rhs: Sessions) -> Bool {
    lhs.members == rhs.members && lhs.followers == rhs.followers && lhs.audiences == rhs.audiences
      && lhs.seatAddresses == rhs.seatAddresses
  }
}
