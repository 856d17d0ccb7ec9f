/// What this server tells Agones about itself so that Agones' allocator can route players
/// to it, as a value: the Counters `players`, `rooms` and `waiting`, and the List `rooms`
/// (the names of the rooms players named). Given what the game holds and what the
/// GameServer holds (as its watch last showed it), it says which calls to make; the
/// caller makes them and reports which succeeded.
///
/// The allocator itself changes the List and `waiting` when it routes a player here (it
/// adds the room's name, it counts the quick-match player on the way), before that
/// player arrives, possibly before this server's first round. So a name in the List that
/// is not a room yet stays for ``arrivalGrace`` before it is removed, a count the
/// GameServer shows that differs from the game's is corrected only once it has differed
/// for ``countGrace``, and `waiting` is first set only once the watch has shown it.
///
/// Each call is an HTTP request to the SDK server, made one after another, and the next
/// health ping waits for a round's calls: so a round makes at most
/// ``maxListCallsPerRound`` List calls, after the Counters, and a flood of rooms is
/// listed over several rounds instead of holding one up. The names it waits to add go
/// newest first (by the round that first reported them), so a room named while a flood
/// waits is listed in the next round.
///
/// Invariant: the List never holds more than ``listCapacity`` names by this server's
/// doing; a round makes at most ``maxListCallsPerRound`` List calls; a name is removed
/// only after it has not been a room here for ``arrivalGrace``.
package struct FleetListing: Equatable, Sendable {
  /// The List's key and the Counters' keys, as the Fleet declares them.
  package static let roomsList = "rooms"
  package static let counters = ["players", "rooms", "waiting"]
  /// Agones caps a List at 1,000 values.
  package static let listCapacity = 1_000
  /// The List calls one round makes at most (the Counters' three are not counted).
  package static let maxListCallsPerRound = 32
  /// How long a name the allocator added may wait for its room (ms).
  package static let arrivalGrace: Int64 = 60_000
  /// How long the GameServer's count may differ from the game's before it is set (ms).
  package static let countGrace: Int64 = 10_000
  /// The Counters the allocator changes itself (it counts a quick-match player on the
  /// way): this server sets them for the first time only once the watch shows that the
  /// GameServer holds no such count, or after the grace, never blindly at its first
  /// round, which may come after the allocator sent someone here.
  package static let countedByAllocator: Set<String> = ["waiting"]

  /// What the game holds now.
  package struct Report: Equatable, Sendable {
    package var players: Int
    package var rooms: Int
    /// Players waiting alone for a quick-match opponent.
    package var waiting: Int
    /// Rooms named by players (not `quick-N`, `duel-N` or a tournament's): all of them,
    /// so that which are listed is this listing's choice (the newest), not the order of
    /// a dictionary.
    package var namedRooms: Set<String>

    package func count(_ key: String) -> Int {
      switch key {
      case "players": players
      case "rooms": rooms
      default: waiting
      }
    }
  }

  /// One call to the SDK server.
  package enum Call: Hashable, Sendable {
    case setCounter(String, Int)
    case addToList(String)
    case removeFromList(String)
  }

  package init() {}

  /// Counts last set successfully.
  package private(set) var sent: [String: Int] = [:]
  /// The names believed to be in the List: the watch's last view, and what was added
  /// or removed since.
  package private(set) var listed: Set<String> = []
  /// Since when each listed name has not been a room here (ms).
  private var notRoomSince: [String: Int64] = [:]
  /// The counts the GameServer showed last, and since when each differed from the game's.
  private var watchedCounts: [String: Int] = [:]
  private var differentSince: [String: Int64] = [:]
  /// When the first round was (ms): a count the watch never shows is set a grace later.
  private var firstRound: Int64?
  /// Rounds so far, and the round that first reported each named room not yet listed.
  private var round = 0
  private var waitingSince: [String: Int] = [:]

  /// The GameServer as the watch shows it now; `names` nil when it shows no `rooms` List
  /// (what was added stays believed).
  package mutating func observe(counts: [String: Int], listed names: [String]?) {
    watchedCounts = counts
    if let names { listed = Set(names) }
  }

  /// The calls that bring the GameServer in line with `report`, at `now` (ms).
  package mutating func calls(for report: Report, now: Int64) -> [Call] {
    var calls: [Call] = []
    firstRound = firstRound ?? now
    for key in Self.counters {
      let count = report.count(key)
      let watched = watchedCounts[key]
      if let told = sent[key], told != count {
        // The game's count moved since it was told (or telling it failed): tell it now.
        calls.append(.setCounter(key, count))
        differentSince[key] = nil
      } else if sent[key] == nil, !Self.countedByAllocator.contains(key) {
        calls.append(.setCounter(key, count))
      } else if watched == count {
        // The GameServer shows the game's count already (the allocator's own count for
        // a player who has arrived, on a first round): nothing to tell.
        sent[key] = count
        differentSince[key] = nil
      } else if watched != nil {
        // Another count on the GameServer: the allocator's, for a player on the way.
        let since = differentSince[key] ?? now
        differentSince[key] = since
        if now - since >= Self.countGrace { calls.append(.setCounter(key, count)) }
      } else if sent[key] == nil {
        // Never told, and the watch has not shown the GameServer's count: wait for it, at
        // most a grace.
        if now - (firstRound ?? now) >= Self.countGrace { calls.append(.setCounter(key, count)) }
      } else {
        differentSince[key] = nil
      }
    }
    notRoomSince = notRoomSince.filter { listed.contains($0.key) }
    var stale: [(name: String, since: Int64)] = []
    for name in listed {
      if report.namedRooms.contains(name) {
        notRoomSince[name] = nil
      } else {
        let since = notRoomSince[name] ?? now
        notRoomSince[name] = since
        if now - since >= Self.arrivalGrace { stale.append((name, since)) }
      }
    }
    // Rooms to add, newest first; then names to remove, longest gone first; at most
    // maxListCallsPerRound in all, the rest in later rounds.
    round += 1
    waitingSince = waitingSince.filter { report.namedRooms.contains($0.key) }
    for name in report.namedRooms where !listed.contains(name) && waitingSince[name] == nil {
      waitingSince[name] = round
    }
    let adding = waitingSince.filter { !listed.contains($0.key) }
      .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
      .prefix(max(0, min(Self.maxListCallsPerRound, Self.listCapacity - listed.count)))
    calls += adding.map { .addToList($0.key) }
    calls += stale.sorted { ($0.since, $0.name) < ($1.since, $1.name) }
      .prefix(Self.maxListCallsPerRound - adding.count).map { .removeFromList($0.name) }
    return calls
  }

  /// `call` was made and the SDK server answered 2xx.
  package mutating func succeeded(_ call: Call) {
    switch call {
    case .setCounter(let key, let count):
      sent[key] = count
      watchedCounts[key] = count
      differentSince[key] = nil
    case .addToList(let name):
      listed.insert(name)
      waitingSince[name] = nil
    case .removeFromList(let name):
      listed.remove(name)
      notRoomSince[name] = nil
    }
  }
}
