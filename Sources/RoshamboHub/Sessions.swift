import RoshamboGame

/// Who is connected where: each joined connection's room and seat, each room's audience
/// (a connection per seat, the spectators), and the lobby's followers.
///
/// Invariant: a connection is in a room's audience exactly when it is a member of that
/// room; a room with nobody in its audience has no entry; a follower is in no room.
struct Sessions: Equatable {
  struct Member: Equatable {
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
  }

  /// A connection following the lobby.
  struct Follower: Equatable {
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
  }

  struct Audience: Equatable {
    var seats: [Seat: Peer] = [:]
    var spectators: Set<Peer> = []
  }

  private(set) var members: [Int: Member] = [:]
  private(set) var followers: [Int: Follower] = [:]
  private var audiences: [String: Audience] = [:]

  subscript(id: Int) -> Member? { members[id] }

  func audience(of room: String) -> Audience? { audiences[room] }

  /// `link` now holds `seat` in `room` (a connection that held it before is replaced).
  mutating func attach(
    _ link: Peer, room: String, seat: Seat, name: String, token: String,
    resumeToken: String, identity: String? = nil
  ) {
    members[link.id] = Member(
      link: link, room: room, seat: seat, token: token, resumeToken: resumeToken, name: name,
      identity: identity ?? members[link.id]?.identity ?? followers[link.id]?.identity)
    audiences[room, default: Audience()].seats[seat] = link
  }

  mutating func attachSpectator(
    _ link: Peer, room: String, name: String, identity: String? = nil
  ) {
    members[link.id] = Member(
      link: link, room: room, seat: nil, token: nil, name: name, identity: identity)
    audiences[room, default: Audience()].spectators.insert(link)
  }

  /// Takes the connection out of its room; returns what it was.
  @discardableResult
  mutating func remove(_ id: Int) -> Member? {
    guard let member = members.removeValue(forKey: id) else { return nil }
    let link = member.link
    if let seat = member.seat {
      if audiences[member.room]?.seats[seat] == link { audiences[member.room]?.seats[seat] = nil }
    } else {
      audiences[member.room]?.spectators.remove(link)
    }
    if let audience = audiences[member.room], audience.seats.isEmpty, audience.spectators.isEmpty {
      audiences[member.room] = nil
    }
    return member
  }

  mutating func follow(
    _ link: Peer, name: String, takesChallenges: Bool = false, playsFair: Bool = false,
    identity: String? = nil, takesPatches: Bool = false
  ) {
    followers[link.id] = Follower(
      link: link, name: name, takesChallenges: takesChallenges, playsFair: playsFair,
      identity: identity, takesPatches: takesPatches)
  }

  /// `follower` follows the lobby (again).
  mutating func follow(_ follower: Follower) {
    followers[follower.link.id] = follower
  }

  /// The connections using `name` now: players seated under it and followers of the
  /// lobby (spectators' names are only shown, never used to act), with their identities.
  /// Names that differ only in case are the same name (``NameBook/folded(_:)``).
  func using(_ name: String) -> [(link: Peer, identity: String?)] {
    let folded = NameBook.folded(name)
    return followers.values.filter { NameBook.folded($0.name) == folded }.map {
      ($0.link, $0.identity)
    }
      + members.values.filter { $0.seat != nil && NameBook.folded($0.name) == folded }.map {
        ($0.link, $0.identity)
      }
  }

  /// The follower named `name` who takes challenges (the first to arrive, when several
  /// share the name), else why nobody by that name can be challenged.
  func challengeable(named name: String) -> Result<Follower, Refusal> {
    let candidates = followers.values.filter { $0.name == name && $0.takesChallenges }
    if let first = candidates.min(by: { $0.link.id < $1.link.id }) { return .success(first) }
    if followers.values.contains(where: { $0.name == name }) {
      return .failure(.busy("\(name) is only looking at the lobby and cannot take challenges."))
    }
    if let member = members.values.first(where: { $0.name == name }) {
      return .failure(
        .busy("\(name) is in room \(member.room); challenge them when they are back."))
    }
    return .failure(.noSuchPlayer("Nobody named \(name) is in the lobby."))
  }

  /// Stops the connection following the lobby; returns whether it did.
  @discardableResult
  mutating func unfollow(_ id: Int) -> Bool {
    followers.removeValue(forKey: id) != nil
  }
}
